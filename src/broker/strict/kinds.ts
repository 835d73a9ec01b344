// The kinds of client mistake strict-clients mode records (docs/strict-clients.md): things a
// correct Kafka client does not do and that Kafka 3.9 tolerates silently or answers with a
// generic error. kmock's answers stay Kafka's; a finding only says what the client did.
//
// Each kind names the Kafka code whose behaviour it watches; the rule itself lives where the
// request is seen (connection.ts, the produce/join-group/heartbeat handlers via ./checks).

export interface FindingKindInfo {
  /** What the client did, in one line. */
  readonly description: string;
  /** What Kafka 3.9 does with it (and so what kmock answers), citing Kafka's code. */
  readonly kafka: string;
}

export const FINDING_KINDS = {
  'unadvertised-version': {
    description: 'a request of an API, or at a version, that ApiVersions does not advertise (ApiVersions itself above its max is KIP-511 and not a finding)',
    kafka:
      'the connection is closed: RequestContext.parseRequest throws InvalidRequestException for a version the broker does not serve (SocketServer.Processor closes); an unknown API key fails RequestHeader parsing the same way',
  },
  'trailing-bytes': {
    description: 'bytes left over after the request body',
    kafka: 'ignored: AbstractRequest.parseRequest reads the body and never looks at what is left in the frame',
  },
  'tagged-fields-in-non-flexible-version': {
    description: 'the bytes after a non-flexible version\'s body form exactly a tagged-field section (the client wrote the version as flexible)',
    kafka: 'ignored like any trailing bytes: a non-flexible version\'s generated Data.read has no tagged-field section',
  },
  'batch-header-mismatch': {
    description: 'a record batch whose header disagrees with its records: lastOffsetDelta, maxTimestamp (CreateTime), recordCount, or offset deltas not 0..n-1',
    kafka:
      'LogValidator.validateBatch refuses lastOffsetDelta + 1 != recordCount (INVALID_RECORD "Inconsistent batch offset range"); DefaultRecordBatch\'s record iterator refuses a count that is not the records present (INVALID_RECORD); ' +
      'assignOffsetsNonCompressed / validateMessagesAndAssignOffsetsCompressed overwrite maxTimestamp silently (setMaxTimestamp) and keep an uncompressed batch\'s offset deltas as sent',
  },
  'member-id-required-ignored': {
    description: 'a JoinGroup v4+ with an empty member id on a connection that was answered MEMBER_ID_REQUIRED for that group and has not used the member id it was given',
    kafka:
      'GroupCoordinator.doNewMemberJoinGroup answers MEMBER_ID_REQUIRED again with yet another pending member id (KIP-394); the pending ones expire after the session timeout',
  },
  'heartbeat-stale-generation': {
    description: 'a Heartbeat from a member the group knows, with a generation that is not the group\'s (answered ILLEGAL_GENERATION)',
    kafka: 'GroupCoordinator.handleHeartbeat answers ILLEGAL_GENERATION when the member id is known and generationId != group.generationId',
  },
  'txn-partition-not-added': {
    description: 'a transactional Produce batch to a partition the producer\'s transaction does not hold (no AddPartitionsToTxn for it, or the transaction is not ongoing)',
    kafka:
      'with transaction.partition.verification.enable (the default) ReplicaManager.handleProduceAppend asks the coordinator (KIP-890 part 1), which answers TRANSACTION_ABORTABLE: Produce v11 gets TRANSACTION_ABORTABLE, older versions INVALID_TXN_STATE "Partition was not added to the transaction" (AddPartitionsToTxnManager); with verification disabled the batch is appended silently and the transaction hangs on that partition',
  },
  'idempotent-sequence-gap': {
    description: 'an idempotent Produce batch whose first sequence does not follow the last one appended for its producer id and epoch (answered OUT_OF_ORDER_SEQUENCE_NUMBER)',
    kafka: 'ProducerAppendInfo.checkSequence throws OutOfOrderSequenceException: the partition answers OUT_OF_ORDER_SEQUENCE_NUMBER',
  },
} as const satisfies Record<string, FindingKindInfo>;

export type FindingKind = keyof typeof FINDING_KINDS;

/** The kinds in the order summaries list them. */
export const FINDING_KIND_NAMES = Object.keys(FINDING_KINDS) as FindingKind[];
