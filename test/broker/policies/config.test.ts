// Policy settings: all off by default (and then no policy event at all), the broker/group layering,
// validation, the `--policy` text form, and the broker setting `policies`.

import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { Broker } from '../../../src/broker/broker.js';
import { applySetting, ConfigError, DEFAULT_CONFIG, parseProperties, resolveConfig, type BrokerConfig } from '../../../src/broker/config.js';
import { isPolicyEvent } from '../../../src/broker/group/events.js';
import {
  DEFAULT_POLICIES,
  formatPolicies,
  parseDuration,
  parsePolicies,
  PolicyError,
  validatePolicyUpdate,
} from '../../../src/broker/group/policies/config.js';
import { POLICY_NAMES } from '../../../src/broker/group/policies/types.js';
import { startKmock } from '../../../src/broker/server.js';
import { PolicyHarness, groupId } from '../../support/policies/harness.js';

describe('defaults', () => {
  it('every policy is off, broker-wide and for any group', () => {
    const h = new PolicyHarness();
    for (const name of POLICY_NAMES) {
      expect(h.coordinator.brokerPolicies()[name].enabled).toBe(false);
      expect(h.coordinator.policiesFor('any')[name].enabled).toBe(false);
    }
    expect(h.coordinator.brokerPolicies()).toEqual(DEFAULT_POLICIES);
    expect(DEFAULT_POLICIES['registration-timeout'].registrationTimeoutMs).toBe(900_000);
  });

  it('with every policy off a group\'s life emits no policy event', () => {
    const h = new PolicyHarness();
    const g = h.staticGroup(['A', 'B']);
    h.sendJoinGroup({ groupInstanceId: 'A', version: 9, reason: 'restart' });
    h.commitOne('', g.generation, 'A');
    h.advance(10_000);
    expect(h.events.filter(isPolicyEvent)).toEqual([]);
  });
});

describe('broker and group layering', () => {
  it('group settings overlay the broker\'s field by field; null clears them; a group may be set before it exists', () => {
    const h = new PolicyHarness();
    h.coordinator.setBrokerPolicies({ 'registration-timeout': { enabled: true, registrationTimeoutMs: 60_000 } });
    h.coordinator.setGroupPolicies('g1', { 'registration-timeout': { registrationTimeoutMs: 5_000 }, 'kip345-draft-errors': { enabled: true } });
    expect(h.coordinator.policiesFor('g1')).toMatchObject({
      'registration-timeout': { enabled: true, registrationTimeoutMs: 5_000 },
      'kip345-draft-errors': { enabled: true },
    });
    expect(h.coordinator.policiesFor('g2')).toMatchObject({ 'registration-timeout': { enabled: true, registrationTimeoutMs: 60_000 }, 'kip345-draft-errors': { enabled: false } });
    // Later updates merge into the group's settings.
    h.coordinator.setGroupPolicies('g1', { 'registration-timeout': { enabled: false } });
    expect(h.coordinator.groupPolicies('g1')).toEqual({ 'kip345-draft-errors': { enabled: true }, 'registration-timeout': { registrationTimeoutMs: 5_000, enabled: false } });
    // The broker's change shows through where the group has no setting of its own.
    h.coordinator.setBrokerPolicies({ 'kip423-join-reasons': { enabled: true } });
    expect(h.coordinator.policiesFor('g1')['kip423-join-reasons'].enabled).toBe(true);
    h.coordinator.setGroupPolicies('g1', null);
    expect(h.coordinator.policiesFor('g1')).toEqual(h.coordinator.brokerPolicies());
    expect(h.eventsOf('policies-changed').map((e) => [e.scope, e.groupId])).toEqual([
      ['broker', ''],
      ['group', 'g1'],
      ['group', 'g1'],
      ['broker', ''],
      ['group', 'g1'],
    ]);
  });

  it('bad updates throw PolicyError (a RangeError) and change nothing', () => {
    const h = new PolicyHarness();
    const bad: unknown[] = [
      null,
      [],
      { nope: { enabled: true } },
      { 'kip345-draft-errors': { enabled: 'yes' } },
      { 'kip345-draft-errors': { registrationTimeoutMs: 5 } },
      { 'registration-timeout': { registrationTimeoutMs: 0 } },
      { 'registration-timeout': { registrationTimeoutMs: 1.5 } },
      { 'expansion-timeout': { expansionTimeoutMs: -1 } },
      { 'expansion-timeout': 'on' },
    ];
    for (const u of bad) {
      expect(() => h.coordinator.setBrokerPolicies(u as never), JSON.stringify(u)).toThrow(PolicyError);
      if (u !== null) expect(() => h.coordinator.setGroupPolicies(groupId, u as never), JSON.stringify(u)).toThrow(RangeError);
    }
    expect(h.coordinator.brokerPolicies()).toEqual(DEFAULT_POLICIES);
    expect(h.events.filter(isPolicyEvent)).toEqual([]);
  });

  it('booleans stand for { enabled }', () => {
    expect(validatePolicyUpdate({ 'membership-modes': true, 'kip345-draft-errors': false })).toEqual({
      'membership-modes': { enabled: true },
      'kip345-draft-errors': { enabled: false },
    });
  });
});

describe('the text form (--policy, --set policies=..., config files)', () => {
  it('parses names, on/off, durations, the draft\'s setting names, all/none', () => {
    expect(parsePolicies('kip345-draft-errors')).toEqual({ 'kip345-draft-errors': { enabled: true } });
    expect(parsePolicies('kip345-draft-errors=off,membership-modes=on')).toEqual({
      'kip345-draft-errors': { enabled: false },
      'membership-modes': { enabled: true },
    });
    expect(parsePolicies('registration-timeout=15m expansion-timeout=30s')).toEqual({
      'registration-timeout': { enabled: true, registrationTimeoutMs: 900_000 },
      'expansion-timeout': { enabled: true, expansionTimeoutMs: 30_000 },
    });
    expect(parsePolicies(['registration.timeout.ms=120000', 'member.expansion.timeout.ms=5000ms'])).toEqual({
      'registration-timeout': { enabled: true, registrationTimeoutMs: 120_000 },
      'expansion-timeout': { enabled: true, expansionTimeoutMs: 5_000 },
    });
    const all = parsePolicies('all');
    for (const n of POLICY_NAMES) expect(all[n]).toEqual({ enabled: true });
    expect(parsePolicies('all,kip423-join-reasons=off')['kip423-join-reasons']).toEqual({ enabled: false });
    expect(parsePolicies('none')['membership-modes']).toEqual({ enabled: false });
    expect(parsePolicies('')).toEqual({});
    expect(parseDuration('2h')).toBe(7_200_000);
    expect(parseDuration('15min')).toBe(900_000);
    // 0 is a duration, not "off": an expansion timeout of 0 admits held members at once.
    expect(parsePolicies('expansion-timeout=0')).toEqual({ 'expansion-timeout': { enabled: true, expansionTimeoutMs: 0 } });
  });

  it('refuses what it cannot read', () => {
    for (const t of ['bogus', 'kip345-draft-errors=5m', 'registration-timeout=soon', 'registration-timeout=0', 'all=on', 'registration-timeout=99999h']) {
      expect(() => parsePolicies(t), t).toThrow(PolicyError);
    }
  });

  it('formats what it parses', () => {
    const cfg = { ...DEFAULT_POLICIES, 'kip345-draft-errors': { enabled: true }, 'expansion-timeout': { enabled: true, expansionTimeoutMs: 30_000 } };
    expect(formatPolicies(cfg)).toBe('kip345-draft-errors,expansion-timeout=30000ms');
    expect(formatPolicies(DEFAULT_POLICIES)).toBe('none');
    expect(parsePolicies(formatPolicies(cfg))).toEqual({ 'kip345-draft-errors': { enabled: true }, 'expansion-timeout': { enabled: true, expansionTimeoutMs: 30_000 } });
  });
});

describe('setting names', () => {
  it('are own names only: an Object.prototype name is an unknown setting, not silently accepted', () => {
    const config: BrokerConfig = { ...DEFAULT_CONFIG };
    for (const name of ['toString', '__proto__', 'constructor', 'hasOwnProperty']) {
      expect(() => applySetting(config, name, '1')).toThrow(/unknown setting/);
    }
    expect(() => validatePolicyUpdate({ 'registration-timeout': { toString: 5 } })).toThrow(/unknown field "toString"/);
    applySetting(config, 'num.partitions', '3');
    applySetting(config, 'numPartitions', '4');
    expect(config.numPartitions).toBe(4);
  });
});

describe('the broker setting `policies`', () => {
  it('applySetting reads the text form, and repeated settings add up; bad text is a ConfigError', () => {
    const config: BrokerConfig = { ...DEFAULT_CONFIG };
    for (const [k, v] of parseProperties('policies=kip345-draft-errors\npolicies=registration-timeout=10m\n')) applySetting(config, k, v);
    expect(config.policies).toEqual({ 'kip345-draft-errors': { enabled: true }, 'registration-timeout': { enabled: true, registrationTimeoutMs: 600_000 } });
    expect(DEFAULT_CONFIG.policies).toEqual({});
    expect(() => applySetting(config, 'policies', 'nonsense')).toThrow(ConfigError);
    expect(() => resolveConfig({ policies: { bogus: {} } as never })).toThrow(ConfigError);
  });

  it('startKmock({ policies }) sets the broker-wide policies; policy events reach the log at info', async () => {
    const kmock = await startKmock({ policies: { 'membership-modes': { enabled: true } } });
    try {
      expect(kmock.broker.groups.brokerPolicies()['membership-modes'].enabled).toBe(true);
    } finally {
      await kmock.close();
    }
    const lines: Record<string, unknown>[] = [];
    const logger = pino(
      { level: 'info', base: undefined },
      new Writable({
        write(chunk: Buffer, _e, cb) {
          for (const l of chunk.toString().split('\n')) if (l.trim()) lines.push(JSON.parse(l) as Record<string, unknown>);
          cb();
        },
      }),
    );
    const broker = new Broker(resolveConfig({ logLevel: 'info' }), logger);
    broker.groups.setGroupPolicies('g', { 'kip345-draft-errors': { enabled: true } });
    broker.shutdown();
    await new Promise((r) => setImmediate(r));
    expect(lines.some((l) => (l.group as { type?: string } | undefined)?.type === 'policies-changed')).toBe(true);
  });
});
