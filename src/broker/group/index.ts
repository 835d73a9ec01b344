// The classic consumer-group coordinator (Kafka 3.9 GroupCoordinator semantics), as a pure,
// clock-injected state machine. Where to look:
//
//   coordinator.ts         GroupCoordinator: one method per API (JoinGroup, SyncGroup, Heartbeat,
//                          LeaveGroup, OffsetCommit, TxnOffsetCommit, OffsetFetch, DescribeGroups,
//                          ListGroups, DeleteGroups, OffsetDelete), request validation and
//                          per-version shaping; notes where Kafka's source and the reference differ
//   rebalance.ts           RebalanceEngine: join/sync phases, member add/update/replace/remove, all
//                          timeouts (session, new-member join, pending member, initial delay,
//                          rebalance, pending sync)
//   rules.ts               the decisions, as pure functions (max size, member validation, what a
//                          rejoin does, static replacement, initial delay arithmetic, commit checks)
//   group.ts / member.ts   one group's and one member's data, with Kafka's bookkeeping invariants
//   offsets.ts             committed and pending transactional offsets of a group
//   protocol-selection.ts  protocol vote, with Kafka's (Scala HashMap) tie-break
//   subscription.ts        consumer-protocol Subscription decoder (for GROUP_SUBSCRIBED_TO_TOPIC)
//   clock.ts               Clock/Timers injection; FakeTimers for tests
//   config.ts, errors.ts, events.ts, types.ts
//   policies/              the draft policies (kip345-draft-errors, registration-timeout,
//                          expansion-timeout, membership-modes, kip423-join-reasons), all off by
//                          default; the contract with the control plane is policies/types.ts
export { GroupCoordinator, shapeJoinResponse, type GroupCoordinatorOptions } from './coordinator.js';
export { FakeTimers, systemClock, systemTimers, type Clock, type TimerHandle, type Timers } from './clock.js';
export { ErrorCode, errorName } from './errors.js';
export {
  alwaysSucceedingStore,
  defaultGroupCoordinatorConfig,
  type GroupCoordinatorConfig,
  type GroupStore,
  type GroupWriteCause,
  type SubscribedTopicsHook,
} from './config.js';
export { isPolicyEvent, type GroupEvent, type GroupEventListener, type RebalanceTrigger, type RemovalCause } from './events.js';
export { ClassicGroup } from './group.js';
export { GroupMember } from './member.js';
export {
  consumerSubscribedTopics,
  decodeConsumerSubscription,
  subscribedTopicsFromConsumerMetadata,
  type ConsumerSubscription,
} from './subscription.js';
export { selectProtocol, scalaHashMapOrder } from './protocol-selection.js';
export type * from './types.js';
export * from './policies/index.js';
