// Known differences between kmock and the reference Kafka, with their causes. A difference that
// matches an entry is reported with that cause; only entries marked `accepted` (deliberate,
// documented behaviour) keep the suite green. kmock bugs stay unaccepted until fixed, so the
// differential test keeps pointing at them.
import type { Difference } from './runner.js';

export type CauseKind =
  /** kmock differs on purpose (documented in README/handlers). */
  | 'deliberate'
  /** kmock does not do what Kafka 3.9 does: a bug to fix in src/. */
  | 'kmock-bug'
  /** The reference notes (shared/reference/kafka-group-protocol.md) say something Kafka does not do. */
  | 'reference-note-error'
  /** Free text (error messages) that clients do not interpret. */
  | 'free-text'
  /** Kafka misbehaves (a defect of the reference broker) and kmock does not copy it. */
  | 'kafka-defect'
  /** The reference broker is configured differently from a default Kafka (harness artifact). */
  | 'harness'
  /** Kafka 4.x answers differently from 3.9 by design (causes-4x.ts); kmock follows 3.9. */
  | 'kafka-4x-change';

export interface Cause {
  id: string;
  kind: CauseKind;
  /** Scenario names it applies to (exact or pattern); all scenarios when left out. */
  scenario?: string | RegExp;
  /** Path of the differing field ("kind", "response.groups[0].members[1].memberId", …). */
  path?: RegExp;
  /** The request the difference is about ("JoinGroup v5 (join a)"). */
  request?: RegExp;
  /** Only in this mode ("reference": kmock vs Kafka; "self": kmock vs kmock). */
  mode?: 'reference' | 'self';
  cause: string;
  /** Accepted differences do not fail the suite. */
  accepted: boolean;
}

export interface ClassifiedDifference extends Difference {
  cause?: Cause;
  accepted: boolean;
}

/** Filled in from runs against real Kafka (see CONFORMANCE.md for the evidence). */
export const CAUSES: Cause[] = [
  {
    id: 'error-message-text',
    kind: 'free-text',
    path: /errorMessage$/,
    cause: 'Only the text of an error message differs; both sides send one. Clients show it but do not interpret it.',
    accepted: true,
  },
  {
    id: 'api-versions-features',
    kind: 'kmock-bug',
    mode: 'reference',
    request: /^ApiVersions v[34]/,
    path: /^response\.(supportedFeatures|finalizedFeatures|finalizedFeaturesEpoch)/,
    cause:
      'ApiVersions v3+: Kafka 3.9 (KRaft) lists supported features (metadata.version 1-21; kraft.version 0-1 from v4) and the finalized metadata.version 21 with an epoch; kmock lists none and answers epoch -1 (KIP-584). Admin.describeFeatures and clients gating on metadata.version see no features.',
    accepted: false,
  },
  {
    id: 'reference-static-timestamp-type',
    kind: 'harness',
    mode: 'reference',
    request: /^CreateTopics v[5-7]/,
    path: /^response\.topics\[[^\]]+\]\.configs\[name=message\.timestamp\.type\]\.configSource$/,
    cause:
      'message.timestamp.type: the reference broker reports configSource 4 (STATIC_BROKER_CONFIG) because scripts/kafka-reference writes log.message.timestamp.type=CreateTime into server.properties; a default Kafka reports 5 (DEFAULT_CONFIG), as kmock does.',
    accepted: true,
  },
  {
    id: 'fetch-error-partition-records-null',
    kind: 'kmock-bug',
    mode: 'reference',
    request: /^Fetch v/,
    path: /^response\.responses\[[^\]]+\]\.partitions\[[^\]]+\]\.records$/,
    cause: 'Fetch: for a partition answered with an error (unknown topic, unknown topic id) Kafka sends empty records (MemoryRecords.EMPTY, length 0); kmock sends null (length -1).',
    accepted: false,
  },
  {
    id: 'delete-topics-unknown-error-message',
    kind: 'kmock-bug',
    mode: 'reference',
    request: /^DeleteTopics v[5-6]/,
    path: /^response\.responses\[[^\]]+\]\.errorMessage$/,
    cause: 'DeleteTopics v5+: for an unknown topic Kafka fills ErrorMessage ("This server does not host this topic-partition."); kmock sends null.',
    accepted: false,
  },
  {
    id: 'describe-configs-error-message',
    kind: 'kmock-bug',
    mode: 'reference',
    request: /^DescribeConfigs v/,
    path: /^response\.results\[[^\]]+\]\.errorMessage$/,
    cause: 'DescribeConfigs: Kafka answers every resource with ErrorMessage "" (also for an unknown topic, next to its error code); kmock sends null.',
    accepted: false,
  },
  {
    id: 'fetch-sessions-no-slots',
    kind: 'deliberate',
    mode: 'reference',
    scenario: 'testFetchSessions',
    cause:
      'kmock answers as a Kafka broker with max.incremental.fetch.session.cache.slots=0 (documented in fetch.ts): full fetches are served sessionless (SessionId 0) and incremental ones get FETCH_SESSION_ID_NOT_FOUND; a default Kafka creates a session. testFetchSessionsWithoutSessionSlots checks the model against a Kafka configured that way.',
    accepted: true,
  },
  {
    id: 'find-coordinator-transactions',
    kind: 'deliberate',
    mode: 'reference',
    request: /^FindCoordinator v\d+ \(transaction key\)/,
    cause:
      'kmock has no transaction coordinator and answers transactional ids like a broker whose authorizer denies them (TRANSACTIONAL_ID_AUTHORIZATION_FAILED, documented in find-coordinator.ts); Kafka answers COORDINATOR_NOT_AVAILABLE while it creates __transaction_state.',
    accepted: true,
  },
  {
    id: 'consumer-metadata-parse-failure',
    kind: 'kafka-defect',
    mode: 'reference',
    scenario: 'testJoinGroupCompletionWithUnparseableConsumerMetadata',
    cause:
      'Kafka 3.9 parses "consumer" member metadata when a join phase completes (GroupMetadata.computeSubscribedTopics) and only catches SchemaException; metadata that is not a ConsumerProtocolSubscription throws "Tried to allocate a collection of size …" (RuntimeException): the completing JoinGroup gets UNKNOWN_SERVER_ERROR and the other parked members are never answered. kmock does not parse the metadata and completes the rebalance.',
    accepted: false,
  },
];

function matches(c: Cause, scenario: string, d: Difference, mode: 'reference' | 'self'): boolean {
  if (c.mode !== undefined && c.mode !== mode) return false;
  if (c.scenario !== undefined && !(typeof c.scenario === 'string' ? c.scenario === scenario : c.scenario.test(scenario))) return false;
  if (c.path !== undefined && !c.path.test(d.path)) return false;
  if (c.request !== undefined && !c.request.test(d.request)) return false;
  if (c.kind === 'free-text' && !d.messageOnly) return false;
  return true;
}

export function classify(scenario: string, d: Difference, mode: 'reference' | 'self'): ClassifiedDifference {
  const cause = CAUSES.find((c) => matches(c, scenario, d, mode));
  return { ...d, cause, accepted: cause?.accepted ?? false };
}
