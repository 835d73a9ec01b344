// The conformance harness itself (no broker): normalisation, comparison, expectations, the random
// generator's determinism and the shrinker's minimality.
import { describe, expect, it } from 'vitest';
import {
  checkExpectations,
  compareTranscripts,
  formatDiff,
  normaliseTranscript,
  same,
  notSame,
  type Transcript,
  type TranscriptEvent,
} from './runner.js';
import { generate, shrink, toScenario, type Action } from './random.js';
import { classify } from './causes.js';
import { ALL_SCENARIOS } from './scenarios/index.js';

const ns = 'scen-abc123.';
const uuid = (n: number) => `0000000${n}-1111-2222-3333-444444444444`;

function transcript(target: string, events: TranscriptEvent[], vars: Record<string, unknown> = {}): Transcript {
  return { scenario: 's', target, events, vars, elapsedMs: 0 };
}

const joinEvent = (memberId: string, leader: string, members: string[], extra: Partial<TranscriptEvent> = {}): TranscriptEvent => ({
  step: 0,
  conn: 'a',
  kind: 'response',
  api: 'JoinGroup',
  version: 5,
  response: {
    throttleTimeMs: 7,
    errorCode: 0,
    generationId: 1,
    leader,
    memberId,
    members: members.map((m) => ({ memberId: m, metadata: '00' })),
  },
  ...extra,
});

describe('normalisation', () => {
  it('turns member ids into per-prefix symbols by first appearance, sorts hash-ordered lists, zeroes throttle times', () => {
    const a = `client-a-${uuid(1)}`;
    const b = `client-b-${uuid(2)}`;
    const n = normaliseTranscript(transcript('x', [joinEvent(a, a, [b, a])], { a }), { ns });
    expect(n.events[0].response).toEqual({
      throttleTimeMs: 0,
      errorCode: 0,
      generationId: 1,
      leader: 'client-a-member#1',
      memberId: 'client-a-member#1',
      members: [
        { memberId: 'client-a-member#1', metadata: '00' },
        { memberId: 'client-b-member#1', metadata: '00' },
      ],
    });
    expect(n.symbols.a).toBe('client-a-member#1');
  });

  it('strips the namespace, drops other namespaces from shared listings, symbolises topic ids and hosts', () => {
    const e: TranscriptEvent = {
      step: 0,
      conn: 'a',
      kind: 'response',
      api: 'Metadata',
      version: 12,
      response: {
        clusterId: 'abc',
        brokers: [{ nodeId: 1, host: '127.0.0.1', port: 4242 }],
        topics: [
          { name: `${ns}u`, topicId: 'BBBBBBBBBBBBBBBBBBBBBB' },
          { name: 'other.t', topicId: 'CCCCCCCCCCCCCCCCCCCCCC' },
          { name: `${ns}t`, topicId: 'DDDDDDDDDDDDDDDDDDDDDD' },
        ],
      },
    };
    const n = normaliseTranscript(transcript('x', [e]), { ns, nodeId: 1, bootstrap: '127.0.0.1:4242' });
    expect(n.events[0].response).toEqual({
      clusterId: '<cluster-id>',
      brokers: [{ nodeId: '<node>', host: '<host>', port: '<port>' }],
      topics: [
        { name: 't', topicId: 'topic-id#1' },
        { name: 'u', topicId: 'topic-id#2' },
      ],
    });
  });

  it("keeps a host or port that is not the target's own bootstrap address (a wrong advertised listener shows)", () => {
    const e: TranscriptEvent = { step: 0, conn: 'a', kind: 'response', api: 'Metadata', version: 12, response: { brokers: [{ nodeId: 1, host: 'localhost', port: 9092 }] } };
    const n = normaliseTranscript(transcript('x', [e]), { ns, nodeId: 1, bootstrap: '127.0.0.1:4242' });
    expect(n.events[0].response).toEqual({ brokers: [{ nodeId: '<node>', host: 'localhost', port: 9092 }] });
  });
});

describe('comparison', () => {
  it('reports field paths, and marks message-only differences', () => {
    const a = normaliseTranscript(
      transcript('kmock', [joinEvent(`c-${uuid(1)}`, `c-${uuid(1)}`, []), { step: 1, conn: 'a', kind: 'response', api: 'CreateTopics', version: 5, response: { errorCode: 36, errorMessage: 'x' } }]),
      { ns },
    );
    const b = normaliseTranscript(
      transcript('kafka', [
        { ...joinEvent(`c-${uuid(3)}`, `c-${uuid(3)}`, []), response: { ...(joinEvent('', '', []).response as object), memberId: `c-${uuid(3)}`, leader: `c-${uuid(3)}`, generationId: 2 } },
        { step: 1, conn: 'a', kind: 'response', api: 'CreateTopics', version: 5, response: { errorCode: 36, errorMessage: 'y' } },
      ]),
      { ns },
    );
    const d = compareTranscripts(a, b);
    expect(d.map((x) => [x.path, x.a, x.b, x.messageOnly])).toEqual([
      ['response.generationId', 1, 2, false],
      ['response.errorMessage', 'x', 'y', true],
    ]);
    expect(classify('s', d[1], 'reference').accepted).toBe(true);
    expect(classify('s', d[0], 'reference').cause).toBeUndefined();
    expect(formatDiff(d, a, b)).toContain('response.generationId');
  });

  it('checks expectations against normalised answers, with matchers on captured values', () => {
    const id = `client-a-${uuid(1)}`;
    const t = normaliseTranscript(
      transcript('k', [{ ...joinEvent(id, id, [id]), expect: { errorCode: 0, leader: same('a'), memberId: notSame('b') } }, { ...joinEvent(id, id, []), expect: 'parked' }], { a: id, b: `x-${uuid(2)}` }),
      { ns },
    );
    expect(checkExpectations(t).map((f) => f.event)).toEqual([1]);
  });
});

describe('random sequences', () => {
  it('are the same for the same seed and differ across seeds', () => {
    expect(generate(42)).toEqual(generate(42));
    expect(generate(42).actions).not.toEqual(generate(43).actions);
    const s = toScenario(generate(7));
    expect(s.steps.length).toBeGreaterThan(generate(7).actions.length);
  });

  it('plan actions only for members the sequence has (2-5 of them)', () => {
    for (let seed = 1; seed < 200; seed++) {
      const seq = generate(seed);
      expect(seq.members.length).toBeGreaterThanOrEqual(2);
      expect(seq.members.length).toBeLessThanOrEqual(5);
      for (const a of seq.actions) if ('m' in a) expect(a.m).toBeLessThan(seq.members.length);
    }
  });

  it('shrink to a 1-minimal failing subset', async () => {
    const actions = generate(3, { length: 20 }).actions;
    const culprits = [actions[4], actions[11], actions[17]];
    let calls = 0;
    const r = await shrink(actions, async (subset: Action[]) => {
      calls++;
      return culprits.every((c) => subset.includes(c));
    });
    expect(r.actions).toEqual(culprits);
    expect(r.truncated).toBe(false);
    expect(calls).toBeLessThan(60);
  });
});

describe('scenarios', () => {
  it('have unique names and steps that reference known APIs', () => {
    expect(new Set(ALL_SCENARIOS.map((s) => s.name)).size).toBe(ALL_SCENARIOS.length);
    expect(ALL_SCENARIOS.length).toBeGreaterThan(100);
  });
});
