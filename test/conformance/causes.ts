// Known differences between kmock and the reference Kafka, with their causes. A difference that
// matches an entry is reported with that cause; whether it keeps the suite green follows from the
// entry's kind alone (ACCEPTED_KINDS), so a kmock bug can never be marked harmless by a flag:
//
// - free-text, deliberate, not-yet-served, kafka-4x-change: accepted;
// - kmock-bug: never accepted (an entry names a bug while it is being fixed; the run stays red);
// - kafka-defect: accepted only where kmock's side of the event meets the expectation written in
//   the scenario (what kmock answers instead of copying the defect is asserted, not assumed).
//
// Every entry is scoped (checked when this module loads): a field path, and a request or scenario
// pattern or a condition on the values, so it explains exactly the differences it was written for. An entry that matched
// nothing in a complete run is stale and fails the run (staleCauses, used by main.ts), as
// schema.test.ts does for its allowlist.
import { checkExpectations, type Difference, type NormalisedTranscript } from './runner.js';

export type CauseKind =
  /** Free text (error messages) that clients do not interpret. */
  | 'free-text'
  /** kmock differs on purpose (documented in docs/ or the handler's comment). */
  | 'deliberate'
  /** Kafka serves it and kmock does not yet: an open issue names it; the entry goes when it lands. */
  | 'not-yet-served'
  /** kmock does not do what Kafka 3.9 does: a bug to fix in src/. Never accepted. */
  | 'kmock-bug'
  /** Kafka misbehaves and kmock does not copy it: accepted where kmock meets the scenario's expectation. */
  | 'kafka-defect'
  /** Kafka 4.x answers differently from 3.9 by design (causes-4x.ts); kmock follows 3.9. */
  | 'kafka-4x-change'
  /** A closed-loop sequence after an accepted first divergence (closedLoopConsequences). */
  | 'consequence';

const ACCEPTED_KINDS: ReadonlySet<CauseKind> = new Set(['free-text', 'deliberate', 'not-yet-served', 'kafka-4x-change', 'consequence']);

/**
 * A random sequence's clients react to the answers they get (random.ts), so once the two brokers
 * answered one request differently, the requests that follow differ too: every later difference
 * is a consequence of the first. They are accepted exactly when every difference at the first
 * differing event is (with its own cause, scoped as any other); otherwise they fail with it.
 */
export const CLOSED_LOOP_CONSEQUENCE: Cause = {
  id: 'closed-loop-consequence',
  kind: 'consequence',
  scenario: /^random-seed-/,
  path: /./,
  cause: 'A later event of a closed-loop sequence whose first divergence is explained and accepted: the clients reacted to different answers, so what follows is not compared.',
};

/** `diffs` of a closed-loop run, with every difference after an accepted first divergence marked as its consequence. */
export function closedLoopConsequences(diffs: ClassifiedDifference[]): ClassifiedDifference[] {
  if (diffs.length === 0) return diffs;
  const first = Math.min(...diffs.map((d) => d.event));
  if (!diffs.filter((d) => d.event === first).every((d) => d.accepted)) return diffs;
  return diffs.map((d) => (d.event > first && !d.accepted ? { ...d, cause: CLOSED_LOOP_CONSEQUENCE, accepted: true } : d));
}

export interface CauseContext {
  /** The reference target's name: "kafka-3.9.1", "kafka-4.4.0". */
  reference?: string;
  /** Both normalised transcripts of the run ([kmock, reference]), when the caller has them. */
  transcripts?: readonly [NormalisedTranscript, NormalisedTranscript];
}

export interface Cause {
  id: string;
  kind: CauseKind;
  /** Scenario names it applies to (exact or pattern). */
  scenario?: string | RegExp;
  /** Path of the differing field ("kind", "response.groups[0].members[1].memberId", …). */
  path?: RegExp;
  /** The request the difference is about ("JoinGroup v5 (join a)"). */
  request?: RegExp;
  /** Only in this mode ("reference": kmock vs Kafka; "self": kmock vs kmock). */
  mode?: 'reference' | 'self';
  /** The difference must also satisfy this (a throw counts as false). */
  when?: (d: Difference, ctx: CauseContext) => boolean;
  cause: string;
  /**
   * Why a complete run may show no such difference (it depends on something that varies by run,
   * e.g. the random namespace a group id gets): the stale-cause check then skips the entry.
   */
  intermittent?: string;
}

export interface ClassifiedDifference extends Difference {
  cause?: Cause;
  accepted: boolean;
}

/**
 * API keys Kafka 3.9.1's broker listener serves (ApiVersions v3) that kmock does not serve yet,
 * each with the issue that brings it. The list shrinks as APIs arrive: a key kmock starts to
 * serve leaves its entry unmatched, and the stale-cause check fails the run until it is removed.
 */
export const NOT_YET_SERVED_API_KEYS: ReadonlyArray<{ key: number; name: string; issue: string }> = [
  { key: 23, name: 'OffsetForLeaderEpoch', issue: '#15 cluster' },
  { key: 43, name: 'ElectLeaders', issue: '#15 cluster' },
  { key: 45, name: 'AlterPartitionReassignments', issue: '#15 cluster' },
  { key: 46, name: 'ListPartitionReassignments', issue: '#15 cluster' },
  { key: 55, name: 'DescribeQuorum', issue: '#15 cluster' },
  { key: 57, name: 'UpdateFeatures', issue: '#17 KIP-848 / Kafka 4.x mode' },
  { key: 64, name: 'UnregisterBroker', issue: '#15 cluster' },
  { key: 68, name: 'ConsumerGroupHeartbeat', issue: '#17 KIP-848' },
  { key: 69, name: 'ConsumerGroupDescribe', issue: '#17 KIP-848' },
  { key: 74, name: 'ListClientMetricsResources', issue: '#18 tooling' },
  { key: 75, name: 'DescribeTopicPartitions', issue: '#15 cluster' },
  { key: 80, name: 'AddRaftVoter', issue: '#15 cluster' },
  { key: 81, name: 'RemoveRaftVoter', issue: '#15 cluster' },
];

/** Filled in from runs against real Kafka (see CONFORMANCE.md for the evidence). */
export const CAUSES: Cause[] = [
  {
    id: 'error-message-text',
    kind: 'free-text',
    path: /errorMessage$/,
    cause: 'Only the text of an error message differs; both sides send one. Clients show it but do not interpret it.',
    intermittent:
      'A rule for any error message text, not one known difference: kmock now sends Kafka 3.9.1\'s texts in every scenario (the last one, FindCoordinator for a transactional id, went with #12), so a complete 3.9 run may match nothing; the runs against 4.x still need it (4.x rewords some messages: testCreateTopicsErrors, testDescribeConfigsUnknownResourceTypes).',
  },
  ...NOT_YET_SERVED_API_KEYS.map(
    ({ key, name, issue }): Cause => ({
      id: `not-yet-served-api-${key}`,
      kind: 'not-yet-served',
      mode: 'reference',
      request: /^ApiVersions v/,
      path: new RegExp(`^response\\.apiKeys\\[apiKey=${key}\\]$`),
      // Only the entry's absence on kmock's side: a range kmock advertises wrongly is not this.
      when: (d) => d.a === undefined && d.b !== undefined,
      cause: `ApiVersions: Kafka 3.9.1 serves ${name} (key ${key}); kmock does not yet (${issue}).`,
    }),
  ),
  {
    id: 'fetch-sessions-no-slots',
    kind: 'deliberate',
    mode: 'reference',
    scenario: 'testFetchSessions',
    request: /^Fetch v12\b/,
    path: /^response\.(sessionId|errorCode|responses\[topic=[^\]]+\])$/,
    // The session id Kafka hands out, the error kmock answers an incremental fetch with, and the
    // topics Kafka's session then returns that kmock's error answer has none of: nothing else.
    when: (d) => (d.path.endsWith('sessionId') ? d.a === 0 : d.path.endsWith('errorCode') ? d.a === 70 : d.a === undefined),
    cause:
      'kmock answers as a Kafka broker with max.incremental.fetch.session.cache.slots=0 (documented in fetch.ts): full fetches are served sessionless (SessionId 0) and incremental ones get FETCH_SESSION_ID_NOT_FOUND; a default Kafka creates a session. testFetchSessionsWithoutSessionSlots checks the model against a Kafka configured that way.',
  },
  {
    id: 'add-partitions-v4-empty-never-answered',
    kind: 'kafka-defect',
    mode: 'reference',
    scenario: 'testAddPartitionsToTxnBatchedAndVerifyOnly',
    request: /^AddPartitionsToTxn v4 \(no transactions\)$/,
    path: /^(kind|event|response)$/,
    cause:
      'AddPartitionsToTxn v4+ with an empty Transactions list: Kafka 3.9\'s KafkaApis.handleAddPartitionsToTxnRequest sends its answer from addResultAndMaybeSendResponse, when the number of results reaches the number of transactions, which only runs when a result is added: with no transactions it never runs and the request is never answered (the connection waits until the client times out). kmock answers at once, NONE with no results (asserted by the scenario\'s expectation). Only brokers send v4+, never with an empty list.',
  },
  {
    id: 'describe-scram-all-users-not-authorized-never-answered',
    kind: 'kafka-defect',
    mode: 'reference',
    scenario: 'testAuthorizerScramCredentials',
    request: /^DescribeUserScramCredentials v0 \(alice describes every user without DESCRIBE\)$/,
    path: /^(kind|event|response)$/,
    cause:
      'DescribeUserScramCredentials for every user (Users null) by a principal without DESCRIBE on the cluster: Kafka 3.9\'s KafkaApis answers with DescribeUserScramCredentialsRequest.getErrorResponse, which walks data.users() -- null here -- and throws a NullPointerException, also from the error answer KafkaApis.handleError tries next: the request is never answered and the connection stays muted. kmock answers CLUSTER_AUTHORIZATION_FAILED with no results (asserted by the scenario\'s expectation on kmock\'s side).',
  },
  {
    id: 'alter-configs-duplicate-resource-never-answered',
    kind: 'kafka-defect',
    mode: 'reference',
    scenario: 'testAlterConfigsDuplicateResource',
    request: /^AlterConfigs v2 \(a topic twice\)$/,
    path: /^(kind|event|response)$/,
    cause:
      'AlterConfigs naming a resource twice: Kafka 3.9\'s ConfigAdminManager.preprocess answers both INVALID_REQUEST "Each resource must appear at most once.", then RequestChannel.sendResponse counts the answer\'s errors (AlterConfigsResponse.errorCounts -> errors(), a Collectors.toMap keyed by resource) and throws IllegalStateException "Duplicate key", also for the error answer KafkaApis.handleError tries next: the request is never answered and the connection waits until the client gives up. kmock answers what the broker decided (asserted by the scenario\'s expectation; IncrementalAlterConfigs, whose errorCounts does not build such a map, answers the same on Kafka).',
  },
  {
    id: 'consumer-metadata-parse-failure',
    kind: 'kafka-defect',
    mode: 'reference',
    scenario: 'testJoinGroupCompletionWithUnparseableConsumerMetadata',
    request: /^JoinGroup v5 /,
    path: /^(kind|event|response(\..*)?)$/,
    cause:
      'Kafka 3.9 parses "consumer" member metadata when a join phase completes (GroupMetadata.computeSubscribedTopics) and only catches SchemaException; metadata that is not a ConsumerProtocolSubscription throws "Tried to allocate a collection of size …" (RuntimeException): the completing JoinGroup gets UNKNOWN_SERVER_ERROR and the other parked members are never answered. kmock does not parse the metadata and completes the rebalance (asserted by the scenario\'s expectations).',
  },
];

function unscoped(c: Cause): string | undefined {
  if (c.kind === 'free-text') return c.path === undefined ? 'a free-text cause needs a path' : undefined;
  if (c.path === undefined) return 'no path';
  if (c.request === undefined && c.scenario === undefined && c.when === undefined) return 'neither a request, a scenario nor a condition';
  return undefined;
}

/** Throws when an entry could explain differences it was not written for (checked at load). */
export function assertScoped(list: readonly Cause[]): void {
  const ids = new Set<string>();
  for (const c of list) {
    const why = unscoped(c);
    if (why !== undefined) throw new Error(`cause ${c.id} is not scoped: ${why}`);
    if (ids.has(c.id)) throw new Error(`cause ${c.id} is listed twice`);
    ids.add(c.id);
  }
}
assertScoped(CAUSES);

export function causeMatches(c: Cause, scenario: string, d: Difference, mode: 'reference' | 'self', ctx: CauseContext = {}): boolean {
  if (c.mode !== undefined && c.mode !== mode) return false;
  if (c.scenario !== undefined && !(typeof c.scenario === 'string' ? c.scenario === scenario : c.scenario.test(scenario))) return false;
  if (c.path !== undefined && !c.path.test(d.path)) return false;
  if (c.request !== undefined && !c.request.test(d.request)) return false;
  if (c.kind === 'free-text' && !d.messageOnly) return false;
  if (c.when !== undefined) {
    try {
      if (!c.when(d, ctx)) return false;
    } catch {
      return false;
    }
  }
  return true;
}

/**
 * Whether a difference with this cause keeps the run green. A Kafka defect only where kmock's
 * event carries an expectation written in the scenario and meets it.
 */
export function isAccepted(cause: Cause | undefined, d: Difference, ctx: CauseContext = {}): boolean {
  if (cause === undefined) return false;
  if (ACCEPTED_KINDS.has(cause.kind)) return true;
  if (cause.kind !== 'kafka-defect') return false;
  // kmock's side meets every expectation the scenario writes, and where kmock has an event at
  // the difference, that event carries one (an event only Kafka has, e.g. a join it never
  // answers, leaves nothing on kmock's side to assert).
  const kmockSide = ctx.transcripts?.[0];
  if (kmockSide === undefined) return false;
  const event = kmockSide.events[d.event];
  if (event !== undefined && event.expect === undefined) return false;
  return checkExpectations(kmockSide).length === 0;
}

export function classifyWith(list: readonly Cause[], scenario: string, d: Difference, mode: 'reference' | 'self', ctx: CauseContext = {}): ClassifiedDifference | undefined {
  const cause = list.find((c) => causeMatches(c, scenario, d, mode, ctx));
  return cause === undefined ? undefined : { ...d, cause, accepted: isAccepted(cause, d, ctx) };
}

export function classify(scenario: string, d: Difference, mode: 'reference' | 'self', ctx: CauseContext = {}): ClassifiedDifference {
  return classifyWith(CAUSES, scenario, d, mode, ctx) ?? { ...d, accepted: false };
}

/**
 * Entries of `list` that no difference in `seen` matched: fixed in kmock (remove the entry) or
 * no longer exercised (the scenario changed). Only meaningful for a complete run.
 */
export function staleCauses(list: readonly Cause[], seen: Iterable<ClassifiedDifference>, keep: (c: Cause) => boolean = () => true): Cause[] {
  const hit = new Set<string>();
  for (const d of seen) if (d.cause) hit.add(d.cause.id);
  return list.filter((c) => keep(c) && c.intermittent === undefined && !hit.has(c.id));
}
