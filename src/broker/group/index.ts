// The classic consumer-group coordinator (Kafka 3.9 GroupCoordinator semantics), as a pure,
// clock-injected state machine. Where to look:
//
//   coordinator.ts         GroupCoordinator: the API handlers, the control plane and tests call;
//                          assembles the pieces below; notes where Kafka's source and the reference differ
//   kernel.ts              the group registry (create, drop), the outbox (responses and events after
//                          each operation), timers as operations, member validation
//   membership.ts          JoinGroup, SyncGroup, Heartbeat, LeaveGroup (Kafka's GroupMetadataManager)
//   offset-manager.ts      OffsetCommit, OffsetFetch, OffsetDelete, offset expiry, deleted partitions
//                          (Kafka's OffsetMetadataManager)
//   txn-offsets.ts         TxnOffsetCommit (KIP-890 verification seam) and the markers completing it
//   offsets-log.ts         partitionFor, open transactions per offsets partition
//   records.ts             the __consumer_offsets records (keys, values, batches) and the
//                          GroupRecordSink seam they are written through
//   offsets-topic.ts       the broker's sink: the records appended to the partition logs
//   loader.ts              doLoadGroupsAndOffsets: groups and offsets read back from those logs
//   offset-requests.ts     request/response shaping shared by the offset APIs
//   admin.ts               DescribeGroups, ListGroups, DeleteGroups; force rebalance, remove members,
//                          the read model, policy settings and operations (the control plane's)
//   rebalance.ts           RebalanceEngine: join/sync phases, member add/update/replace/remove, all
//                          timeouts (session, new-member join, pending member, initial delay,
//                          rebalance, pending sync)
//   rules.ts               the decisions, as pure functions (max size, member validation, what a
//                          rejoin does, static replacement, initial delay arithmetic, commit checks)
//   hooks.ts               the hook table: where a plug-in may act, and the chain that runs them
//   group.ts / member.ts   one group's and one member's data, with Kafka's bookkeeping invariants
//   offsets.ts             committed and pending transactional offsets of a group
//   protocol-selection.ts  protocol vote, with Kafka's (Scala HashMap) tie-break
//   subscription.ts        consumer-protocol Subscription decoder (for GROUP_SUBSCRIBED_TO_TOPIC)
//   clock.ts               Clock/Timers injection; FakeTimers for tests
//   config.ts, errors.ts, events.ts, types.ts
//   policies/              the draft policies (kip345-draft-errors, registration-timeout,
//                          expansion-timeout, membership-modes, kip423-join-reasons), plug-ins of
//                          hooks.ts, all off by default; the contract with the control plane is
//                          policies/types.ts
export { GroupCoordinator, shapeJoinResponse, type GroupCoordinatorOptions } from './coordinator.js';
export { FakeTimers, systemClock, systemTimers, type Clock, type TimerHandle, type Timers } from './clock.js';
export {
  defaultGroupCoordinatorConfig,
  type GroupCoordinatorConfig,
  type GroupWriteCause,
  type SubscribedTopicsHook,
} from './config.js';
export {
  CountingGroupRecordSink,
  type GroupAppendResult,
  type GroupMetadataRecord,
  type GroupRecord,
  type GroupRecordBatch,
  type GroupRecordCause,
  type GroupRecordSink,
} from './records.js';
export { isPolicyEvent, type GroupEvent, type GroupEventListener, type RebalanceTrigger, type RemovalCause, type TxnOffsetEntry } from './events.js';
export { DEFAULT_OFFSETS_TOPIC_PARTITIONS, offsetsPartitionFor, type OpenOffsetsTransaction } from './offsets-log.js';
export type { PendingTxnOffset, TransactionResult, VerifyOffsetsPartition } from './txn-offsets.js';
export { readOffsetsPartition, type GroupLoadSummary, type OffsetsPartitionContents } from './loader.js';
export { ClassicGroup } from './group.js';
export { CONTINUE, ANSWERED, override, HookChain, type GroupHooks, type GroupPlugin, type MemberJoinRequest } from './hooks.js';
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
