// What each policy file declares (definePolicy) and what is derived from the list of policies
// (policies/list.ts): names, settings' types and defaults, validation limits, the text form, the
// CLI's help, the coordinator's policy instances.
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { PolicyEvent, PolicyRebalanceTrigger, PolicyRemovalCause } from '../../../src/broker/group/policies/events.js';
import {
  DEFAULT_POLICIES,
  MAX_POLICY_TIMEOUT_MS,
  POLICIES,
  POLICY_NAMES,
  DraftPolicy,
  parsePolicies,
  validatePolicyUpdate,
  type PolicyConfig,
  type PolicyName,
  type PolicyUpdate,
  type PolicyHost,
  type SettingSpec,
} from '../../../src/broker/group/policies/index.js';
import { START_USAGE } from '../../../src/cli/start.js';

const settingsOf = (p: (typeof POLICIES)[number]) => Object.entries(p.settings as Record<string, SettingSpec>);

describe('policy definitions', () => {
  it('POLICY_NAMES is the list, in order', () => {
    expect(POLICY_NAMES).toEqual(POLICIES.map((p) => p.name));
    expect(new Set(POLICY_NAMES).size).toBe(POLICY_NAMES.length);
  });

  it('each declares a one-line summary and sound settings', () => {
    for (const p of POLICIES) {
      expect(p.summary, p.name).toMatch(/^[^\n]{10,60}$/);
      for (const [field, spec] of settingsOf(p)) {
        expect(field).not.toBe('enabled');
        if (spec.kind === 'duration') {
          expect(spec.default, `${p.name}.${field}`).toBeGreaterThanOrEqual(spec.min);
          expect(spec.default).toBeLessThanOrEqual(MAX_POLICY_TIMEOUT_MS);
        }
      }
      const text: { value?: string; aliases?: readonly string[] } | undefined = p.text;
      for (const alias of text?.aliases ?? []) {
        expect(alias).toBe(alias.toLowerCase());
        expect([...POLICY_NAMES, 'all', 'none']).not.toContain(alias);
      }
    }
  });

  it('DEFAULT_POLICIES: every policy off, with its declared defaults, frozen', () => {
    for (const p of POLICIES) {
      expect(DEFAULT_POLICIES[p.name]).toEqual({ enabled: false, ...Object.fromEntries(settingsOf(p).map(([f, s]) => [f, s.default])) });
      expect(Object.isFrozen(DEFAULT_POLICIES[p.name])).toBe(true);
    }
    expect(Object.isFrozen(DEFAULT_POLICIES)).toBe(true);
  });

  it('validation follows the declared kinds and limits', () => {
    for (const p of POLICIES) {
      for (const [field, spec] of settingsOf(p)) {
        if (spec.kind === 'boolean') {
          expect(() => validatePolicyUpdate({ [p.name]: { [field]: 1 } })).toThrow(`${p.name}.${field} must be true or false`);
        } else {
          expect(validatePolicyUpdate({ [p.name]: { [field]: spec.min } })).toEqual({ [p.name]: { [field]: spec.min } });
          expect(() => validatePolicyUpdate({ [p.name]: { [field]: spec.min - 1 } })).toThrow(`from ${spec.min} to ${MAX_POLICY_TIMEOUT_MS}`);
        }
      }
    }
  });

  it('the text form: NAME=VALUE sets the declared value, aliases name the policy', () => {
    for (const p of POLICIES) {
      const text: { value?: string; aliases?: readonly string[] } | undefined = p.text;
      if (text?.value === undefined) {
        expect(() => parsePolicies(`${p.name}=30s`)).toThrow(`policy "${p.name}" takes on or off, not "30s"`);
        continue;
      }
      expect(parsePolicies(`${p.name}=30s`)).toEqual({ [p.name]: { enabled: true, [text.value]: 30_000 } });
      for (const alias of text.aliases ?? []) expect(parsePolicies(`${alias}=7`)).toEqual({ [p.name]: { enabled: true, [text.value]: 7 } });
    }
  });

  it('kmock start --help has one line per policy, with its summary', () => {
    for (const p of POLICIES) expect(START_USAGE).toContain(`\n  ${p.name.padEnd(22)}${p.summary}\n`);
  });

  it('create makes the DraftPolicy of that name', () => {
    for (const p of POLICIES) {
      const policy = p.create({} as PolicyHost);
      expect(policy).toBeInstanceOf(DraftPolicy);
      expect(policy.name).toBe(p.name);
    }
  });

  it('the derived types keep their shapes (per policy: a new one adds to them)', () => {
    expectTypeOf<PolicyConfig['kip345-draft-errors']>().toEqualTypeOf<{ enabled: boolean }>();
    expectTypeOf<PolicyConfig['registration-timeout']>().toEqualTypeOf<{ enabled: boolean; registrationTimeoutMs: number }>();
    expectTypeOf<PolicyConfig['expansion-timeout']>().toEqualTypeOf<{ enabled: boolean; expansionTimeoutMs: number }>();
    expectTypeOf<PolicyConfig['membership-modes']>().toEqualTypeOf<{ enabled: boolean }>();
    expectTypeOf<PolicyConfig['kip423-join-reasons']>().toEqualTypeOf<{ enabled: boolean }>();
    expectTypeOf<PolicyUpdate['registration-timeout']>().toEqualTypeOf<{ enabled?: boolean; registrationTimeoutMs?: number } | undefined>();
    expectTypeOf(POLICY_NAMES).toExtend<readonly PolicyName[]>();
    expectTypeOf<(typeof POLICY_NAMES)[1]>().toEqualTypeOf<'registration-timeout'>();
    expectTypeOf<'registration-timeout' | 'expansion-timeout' | 'topic-metadata-change' | 'member-upgrade' | 'force-static-rebalance'>().toExtend<PolicyRebalanceTrigger>();
    expectTypeOf<'registration-timeout'>().toExtend<PolicyRemovalCause>();
    expectTypeOf<Extract<PolicyEvent, { type: 'member-offline' }>['policy']>().toEqualTypeOf<'registration-timeout'>();
  });
});
