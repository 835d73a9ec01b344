// kmock's programmatic API: start a broker for tests, or use the codec directly (`kmock/codec`).
// What a test drives is `kmock.control` (ControlPlane): groups, topics, policies, faults, events;
// the same model the admin HTTP API and `kmock admin` serve (docs/control-plane.md).
export { startKmock, type Kmock, type KmockOptions } from './broker/server.js';
export { DEFAULT_CONFIG, type BrokerConfig } from './broker/config.js';
export { ErrorCode, errorName } from './codec/errors.js';
export * as codec from './codec/index.js';
// From the modules themselves, not control/index.ts: that one loads the HTTP API (node:http),
// which startKmock loads only when `adminPort` is set.
export { ControlPlane } from './broker/control/model.js';
export { ControlError } from './broker/control/errors.js';
export type { ClockControl, ClockMoveView, ClockSettingInput, WaitForTimerOptions } from './broker/control/clock.js';
export type { ClockSetting, ClockView, PendingTimer } from './broker/time/broker-clock.js';
export { DETERMINISTIC_EPOCH_MS } from './broker/config.js';
export type { FaultsView } from './broker/control/faults.js';
export type {
  AssignmentView,
  CommittedOffsetView,
  ConnectionFilter,
  ConnectionView,
  ErrorInjectionInput,
  EventOptions,
  GroupSummary,
  GroupView,
  LatencyInput,
  MemberRemovalInput,
  MemberView,
  PoliciesInput,
  PoliciesView,
  StaticMembershipOptions,
  StrictClientsView,
  SubscriptionView,
  TopicView,
} from './broker/control/model.js';
export type { GroupEvent } from './broker/group/events.js';
export type { ClientFinding, FindingConnection, FindingKindSummary, FindingsSummary } from './broker/strict/findings.js';
export { FINDING_KINDS, type FindingKind } from './broker/strict/kinds.js';
export {
  POLICY_NAMES,
  type ForceRebalanceResult,
  type HeldStaticMember,
  type MembershipChangeResult,
  type OfflineStaticMember,
  type PolicyConfig,
  type PolicyName,
  type PolicyUpdate,
  type RebalanceRecord,
  type RemoveMembersResult,
} from './broker/group/policies/types.js';
// The policies' text form (`kmock start --policy`, `--set policies=`, a properties file's
// `policies=` line), for a test that keeps its policies as text: parsePolicies(text) is the
// PolicyUpdate `startKmock({ policies })` takes; formatPolicies(config) the text again.
export { formatPolicies, parsePolicies, PolicyError } from './broker/group/policies/config.js';
// Transactions in the control plane (`kmock.control.transactions`) and their events.
export type { TransactionsControl, TransactionView, TxnEventOptions } from './broker/control/transactions.js';
export type { TxnEvent } from './broker/txn/events.js';
export type { TxnState } from './broker/txn/metadata.js';
