import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  javaStringHashCode,
  scalaHashMapOrder,
  scalaImproveHash,
  selectProtocol,
} from '../../../src/broker/group/protocol-selection.js';
import { GroupInitialRebalanceDelay, Harness, metadata } from './harness.js';
import { ErrorCode } from '../../../src/codec/index.js';

const m = (...protocolNames: string[]) => ({ protocolNames });

describe('protocol selection', () => {
  it('the candidates are the protocols every member supports; each member votes its first candidate', () => {
    expect(selectProtocol([m('range', 'roundrobin'), m('roundrobin')], new Set(['roundrobin']))).toBe('roundrobin');
    expect(selectProtocol([m('a', 'b'), m('a', 'b'), m('b', 'a')], new Set(['a', 'b']))).toBe('a');
    expect(selectProtocol([m('b', 'a'), m('b', 'a'), m('a', 'b')], new Set(['a', 'b']))).toBe('b');
  });

  it('hashes exactly like the JVM (values checked with jshell)', () => {
    expect(javaStringHashCode('hello')).toBe(99162322);
    expect(javaStringHashCode('range')).toBe(108280125);
    expect(javaStringHashCode('roundrobin')).toBe(-128548644);
    expect(javaStringHashCode('cooperative-sticky')).toBe(1843682987);
    expect(scalaImproveHash(108280125)).toBe(-31343276);
    expect(scalaImproveHash(-128548644)).toBe(11801351);
    expect(scalaImproveHash(0)).toBe(-8130816);
  });

  it('ties follow the Scala 2.13 HashMap iteration order of the protocol names, not member order or preference', () => {
    // improve(hash) & 31: roundrobin -> 7, range -> 20, cooperative-sticky -> 1, sticky -> 20.
    expect(scalaHashMapOrder(['range', 'roundrobin'])).toEqual(['roundrobin', 'range']);
    expect(scalaHashMapOrder(['range', 'cooperative-sticky'])).toEqual(['cooperative-sticky', 'range']);
    // range and sticky share a slot: they sit in a sub-node, visited after the root's own entries.
    expect(scalaHashMapOrder(['sticky', 'range', 'roundrobin', 'cooperative-sticky'])).toEqual(['cooperative-sticky', 'roundrobin', 'range', 'sticky']);
    const candidates = new Set(['range', 'roundrobin']);
    expect(selectProtocol([m('range', 'roundrobin'), m('roundrobin', 'range')], candidates)).toBe('roundrobin');
    expect(selectProtocol([m('roundrobin', 'range'), m('range', 'roundrobin')], candidates)).toBe('roundrobin');
  });

  it('property: the winner has the most votes and does not depend on member order', () => {
    const names = ['range', 'roundrobin', 'sticky', 'cooperative-sticky', 'a', 'b'];
    fc.assert(
      fc.property(fc.array(fc.shuffledSubarray(names, { minLength: 1 }), { minLength: 1, maxLength: 8 }), (prefs) => {
        const candidates = new Set(names.filter((n) => prefs.every((p) => p.includes(n))));
        if (candidates.size === 0) return;
        const members = prefs.map((p) => m(...p));
        const winner = selectProtocol(members, candidates);
        const votes = new Map<string, number>();
        for (const p of prefs) {
          const v = p.find((n) => candidates.has(n))!;
          votes.set(v, (votes.get(v) ?? 0) + 1);
        }
        expect(votes.get(winner)).toBe(Math.max(...votes.values()));
        expect(selectProtocol([...members].reverse(), candidates)).toBe(winner);
      }),
    );
  });

  it('a group with tied votes settles on the Kafka 3.9 choice', () => {
    const h = new Harness();
    const a = h.sendJoinGroup({ protocols: [{ name: 'range', metadata }, { name: 'roundrobin', metadata }] });
    const b = h.sendJoinGroup({ protocols: [{ name: 'roundrobin', metadata }, { name: 'range', metadata }] });
    h.advance(GroupInitialRebalanceDelay * 2);
    expect(a.result.errorCode).toBe(ErrorCode.NONE);
    expect(a.result.protocolName).toBe('roundrobin');
    expect(b.result.protocolName).toBe('roundrobin');
  });
});
