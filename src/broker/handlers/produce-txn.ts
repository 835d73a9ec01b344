// Produce's transactional part, as Kafka 3.9's ReplicaManager.handleProduceAppend /
// maybeStartTransactionVerificationForPartitions and AddPartitionsToTxnManager (KIP-890 part 1)
// run it before the append:
//
// 1. every batch of every partition is looked at: the transactional ones with a producer id name
//    their producer; more than one (producer id, epoch) in the request throws
//    InvalidPidMappingException, the whole request's error (INVALID_PRODUCER_ID_MAPPING);
// 2. with a transactional id and transaction.partition.verification.enable, each such partition
//    whose log has no ongoing transaction of that producer starts a verification
//    (UnifiedLog.maybeStartTransactionVerification: a guard, the lowest sequence seen) and the
//    transaction coordinator is asked, for all of them at once, whether they are in the
//    transaction (AddPartitionsToTxn v4 VerifyOnly, here a call:
//    TransactionCoordinator.verifyPartitionsInTransaction);
// 3. its per-partition errors become the partition's answer, without an append, mapped twice:
//    AddPartitionsToTxnManager turns PRODUCER_FENCED into INVALID_PRODUCER_EPOCH and, below
//    Produce v11 (TransactionSupportedOperation defaultError; v11 is genericError),
//    TRANSACTION_ABORTABLE into INVALID_TXN_STATE; then handleProduceAppend's callback gives
//    INVALID_TXN_STATE the message "Partition was not added to the transaction" and turns the
//    retriable coordinator errors (CONCURRENT_TRANSACTIONS, NETWORK_EXCEPTION,
//    COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR) into
//    NOT_ENOUGH_REPLICAS with "Unable to verify ...". Those answers carry LogAppendInfo's unknown
//    offsets (-1). Produce v11 thus answers TRANSACTION_ABORTABLE in 3.9 already.
// 4. the verified partitions append with their guard; the log refuses a transactional batch that
//    starts a transaction without the right guard (INVALID_TXN_STATE, "Record was not part of an
//    ongoing transaction") unless verification is disabled.
import { ErrorCode, errorName } from '../../codec/index.js';
import { ATTRIBUTES_OFFSET, BASE_SEQUENCE_OFFSET, MAGIC_OFFSET, PRODUCER_EPOCH_OFFSET, PRODUCER_ID_OFFSET, RECORDS_COUNT_OFFSET, TRANSACTIONAL_FLAG_MASK } from '../../codec/records/constants.js';
import { nextEntry } from '../../codec/records/validate.js';
import { SENTINEL_GUARD, type VerificationGuard } from '../log/producer-state.js';
import type { PartitionLog } from '../log/partition-log.js';
import { checkTxnVerification } from '../strict/txn-checks.js';
import type { RequestContext } from './types.js';

/** A partition of the request with its records (v3+: the one batch; v0-v2: the whole records field). */
export interface TxnTarget {
  key: string;
  topic: string;
  partition: number;
  log: PartitionLog;
  records: Buffer;
}

export interface TxnProducer {
  producerId: bigint;
  producerEpoch: number;
}

/** The transactional partitions of a request and their one producer (handleProduceAppend's first loop). */
export type TxnScan =
  | { kind: 'none' }
  | { kind: 'transactional'; producer: TxnProducer; partitions: Array<{ target: TxnTarget; baseSequence: number }> }
  | { kind: 'error'; errorCode: number; message: string };

const NONE: TxnScan = { kind: 'none' };

/** RecordBatch.hasProducerId && isTransactional over every batch; the partition's first batch's base sequence. */
export function scanTransactional(targets: Iterable<TxnTarget>): TxnScan {
  let producer: TxnProducer | null = null;
  let many = false;
  const partitions: Array<{ target: TxnTarget; baseSequence: number }> = [];
  for (const t of targets) {
    const r = t.records;
    let transactional = false;
    for (let pos = 0; ; ) {
      const e = nextEntry(r, pos);
      if (e.kind !== 'entry') break;
      if (e.magic === 2 && e.size > RECORDS_COUNT_OFFSET && (r.readInt16BE(pos + ATTRIBUTES_OFFSET) & TRANSACTIONAL_FLAG_MASK) !== 0) {
        const producerId = r.readBigInt64BE(pos + PRODUCER_ID_OFFSET);
        if (producerId >= 0n) {
          transactional = true;
          const producerEpoch = r.readInt16BE(pos + PRODUCER_EPOCH_OFFSET);
          if (producer === null) producer = { producerId, producerEpoch };
          else if (producer.producerId !== producerId || producer.producerEpoch !== producerEpoch) many = true;
        }
      }
      pos += e.size;
    }
    if (transactional) {
      // records.firstBatch.baseSequence: legacy messages have none (-1)
      const baseSequence = r.length > RECORDS_COUNT_OFFSET && r[MAGIC_OFFSET] === 2 ? r.readInt32BE(BASE_SEQUENCE_OFFSET) : -1;
      partitions.push({ target: t, baseSequence });
    }
  }
  if (many) return { kind: 'error', errorCode: ErrorCode.INVALID_PRODUCER_ID_MAPPING, message: 'Transactional records contained more than one producer ID' };
  if (producer === null) return NONE;
  return { kind: 'transactional', producer, partitions };
}

/** A partition's pre-append answer (ReplicaManager's LogAppendResult with UNKNOWN_LOG_APPEND_INFO). */
export interface VerificationFailure {
  errorCode: number;
  errorMessage: string | null;
}

export interface Verification {
  /** Per partition key, the guard to append with (absent: SENTINEL_GUARD). */
  guards: Map<string, VerificationGuard>;
  /** Per partition key, the error answered instead of appending. */
  failures: Map<string, VerificationFailure>;
}

const RETRIABLE_VERIFICATION_ERRORS: ReadonlySet<number> = new Set([
  ErrorCode.CONCURRENT_TRANSACTIONS,
  ErrorCode.NETWORK_EXCEPTION,
  ErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
  ErrorCode.COORDINATOR_NOT_AVAILABLE,
  ErrorCode.NOT_COORDINATOR,
]);

/** AddPartitionsToTxnHandler's per-partition mapping, then handleProduceAppend's postVerificationCallback. */
export function verificationFailure(coordinatorError: number, produceVersion: number): VerificationFailure {
  let code = coordinatorError;
  if (code === ErrorCode.PRODUCER_FENCED) code = ErrorCode.INVALID_PRODUCER_EPOCH;
  else if (code === ErrorCode.TRANSACTION_ABORTABLE && produceVersion <= 10) code = ErrorCode.INVALID_TXN_STATE;
  if (code === ErrorCode.INVALID_TXN_STATE) return { errorCode: code, errorMessage: 'Partition was not added to the transaction' };
  if (RETRIABLE_VERIFICATION_ERRORS.has(code)) {
    return {
      errorCode: ErrorCode.NOT_ENOUGH_REPLICAS,
      errorMessage: `Unable to verify the partition has been added to the transaction. Underlying error: ${errorName(code)}`,
    };
  }
  return { errorCode: code, errorMessage: null };
}

/**
 * maybeStartTransactionVerificationForPartitions + AddPartitionsToTxnManager.verifyTransaction,
 * for the transactional partitions `scan` found. `transactionalId` is the request's (never null
 * here: a null one was refused before, TRANSACTIONAL_ID_AUTHORIZATION_FAILED).
 */
export function verifyTransactionalPartitions(
  ctx: RequestContext,
  transactionalId: string,
  scan: Extract<TxnScan, { kind: 'transactional' }>,
  now: number,
): Verification {
  const b = ctx.services;
  const guards = new Map<string, VerificationGuard>();
  const failures = new Map<string, VerificationFailure>();
  const { producerId, producerEpoch } = scan.producer;
  const enabled = b.config.transactionPartitionVerificationEnable;
  const toVerify: TxnTarget[] = [];
  for (const { target, baseSequence } of scan.partitions) {
    if (!enabled) continue;
    const guard = target.log.producers.maybeStartTransactionVerification(producerId, baseSequence, producerEpoch, now);
    if (guard !== SENTINEL_GUARD) {
      guards.set(target.key, guard);
      toVerify.push(target);
    }
  }
  if (toVerify.length > 0) {
    const answers = b.transactions.verifyPartitionsInTransaction(
      transactionalId,
      producerId,
      producerEpoch,
      toVerify.map((t) => ({ topic: t.topic, partition: t.partition })),
    );
    const codes = answerCodes(answers);
    for (const t of toVerify) {
      // A partition the answer leaves out is verified (AddPartitionsToTxnHandler collects errors only).
      const code = codes.get(`${t.topic}\0${t.partition}`) ?? ErrorCode.NONE;
      if (code === ErrorCode.NONE) continue;
      const failure = verificationFailure(code, ctx.apiVersion);
      failures.set(t.key, failure);
      if (code === ErrorCode.TRANSACTION_ABORTABLE) checkTxnVerification(ctx, t, transactionalId, scan.producer, failure.errorCode);
    }
  } else if (!enabled && b.clientFindings.enabled) {
    // Strict mode only: what the coordinator would have said (Kafka appends without asking).
    const unverified = scan.partitions.map((p) => p.target).filter((t) => !t.log.producers.hasOngoingTransaction(producerId));
    if (unverified.length > 0) {
      const codes = answerCodes(b.transactions.verifyPartitionsInTransaction(transactionalId, producerId, producerEpoch, unverified.map((t) => ({ topic: t.topic, partition: t.partition }))));
      for (const t of unverified) {
        if (codes.get(`${t.topic}\0${t.partition}`) === ErrorCode.TRANSACTION_ABORTABLE) checkTxnVerification(ctx, t, transactionalId, scan.producer, null);
      }
    }
  }
  return { guards, failures };
}

function answerCodes(answers: ReadonlyArray<{ topic: string; partition: number; errorCode: number }>): Map<string, number> {
  const out = new Map<string, number>();
  for (const a of answers) out.set(`${a.topic}\0${a.partition}`, a.errorCode);
  return out;
}
