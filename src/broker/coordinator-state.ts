// The coordinators' state read back from their internal topics at broker start, as a Kafka broker
// does when it becomes the leader of their partitions: every __consumer_offsets partition into the
// group coordinator (GroupMetadataManager.scheduleLoadGroupAndOffsets -> doLoadGroupsAndOffsets,
// group/loader.ts), then every __transaction_state partition into the transaction coordinator
// (TransactionStateManager.loadTransactionsForTxnTopicPartition, txn/coordinator.ts loadFromLog),
// whose transactions caught between PrepareCommit/PrepareAbort and their completion write their
// markers again, __consumer_offsets ones included (hence groups first).
//
// Each partition is read as Kafka's loaders read it: from the log start offset to the log end
// offset (FetchIsolation.LOG_END: open transactions included), in reads of at most
// offsets.load.buffer.size / transaction.state.log.load.buffer.size (5 MiB) with minOneMessage,
// stopping when a read brings nothing new. A partition that cannot be read is logged and the
// others load (Kafka's loaders catch the error: the groups of such a partition are not loaded, the
// transactions read before the bad record are). With no data dir both topics are empty (or
// absent) at start and this does nothing.
//
// Producer ids: a restarted Kafka's controller hands out blocks past every id it gave before (they
// are in its metadata log; kmock's data dir keeps the next block the same way). If the allocator
// is still behind a producer id the loaded transactions or the partitions' producer states hold
// (a broker rebuilt over logs without that record), it goes on past the largest one.
import type { Logger } from 'pino';
import { decodeBatch, type RecordBatch } from '../codec/records/batch.js';
import { iterateBatches } from '../codec/records/iterate.js';
import type { GroupLoadSummary } from './group/loader.js';
import { OFFSETS_TOPIC, TRANSACTION_STATE_TOPIC } from './internal-topics.js';
import type { PartitionLog } from './log/partition-log.js';
import type { BrokerServices } from './services.js';
import type { Clock } from './group/clock.js';
import type { TxnLoadSummary } from './txn/coordinator.js';

/** offsets.load.buffer.size and transaction.state.log.load.buffer.size (Kafka 3.9 defaults). */
export const COORDINATOR_LOAD_BUFFER_SIZE = 5 * 1024 * 1024;

/**
 * Every batch of a partition log from its log start offset to its end, in order, decoded; read
 * `maxBytes` at a time. A read starts at the batch holding its offset, so batches already yielded
 * are skipped; a batch cut by the size limit is read whole by the next read.
 */
export function* readLogBatches(log: PartitionLog, maxBytes = COORDINATOR_LOAD_BUFFER_SIZE): Generator<RecordBatch, void, undefined> {
  let offset = log.logStartOffset;
  while (offset < log.logEndOffset) {
    const read = log.read(offset, maxBytes, true);
    if (read.errorCode !== 0) throw new Error(`reading ${log.tp} at offset ${offset} failed with error ${read.errorCode}`);
    let next = offset;
    for (const stored of read.records) {
      for (const entry of iterateBatches(stored, { allowPartial: true })) {
        if (entry.header === null) continue; // legacy messages never reach these topics
        const batch = decodeBatch(entry.bytes);
        const nextOffset = Number(batch.baseOffset) + batch.lastOffsetDelta + 1;
        if (nextOffset <= next) continue;
        next = nextOffset;
        yield batch;
      }
    }
    if (next === offset) break; // readAtLeastOneRecord: nothing new
    offset = next;
  }
}

export interface CoordinatorStateLoad {
  groups: GroupLoadSummary[];
  transactions: TxnLoadSummary[];
}

export type CoordinatorStateServices = Pick<BrokerServices, 'topics' | 'groups' | 'transactions' | 'producerIds'> & { clock: Clock; log: Logger };

/** Loads both coordinators from their topics' logs (see above). Call once, before any request. */
export function loadCoordinatorState(b: CoordinatorStateServices): CoordinatorStateLoad {
  const out: CoordinatorStateLoad = { groups: [], transactions: [] };
  const offsets = b.topics.get(OFFSETS_TOPIC);
  for (const [partition, log] of (offsets?.partitions ?? []).entries()) {
    if (log.logEndOffset > log.logStartOffset) out.groups.push(b.groups.loadFromLog(partition, readLogBatches(log)));
  }
  const txnState = b.topics.get(TRANSACTION_STATE_TOPIC);
  for (const [partition, log] of (txnState?.partitions ?? []).entries()) {
    if (log.logEndOffset > log.logStartOffset) out.transactions.push(b.transactions.loadFromLog(partition, readLogBatches(log)));
  }
  for (const s of [...out.groups, ...out.transactions]) {
    if (s.error !== undefined) b.log.error({ partition: s.partition, topic: 'groups' in s ? OFFSETS_TOPIC : TRANSACTION_STATE_TOPIC, err: s.error }, 'coordinator state not loaded from a partition');
  }
  advanceProducerIds(b);
  const groups = out.groups.reduce((n, s) => n + s.groups.length, 0);
  const transactions = out.transactions.reduce((n, s) => n + s.loaded, 0);
  if (out.groups.length + out.transactions.length > 0) {
    b.log.info(
      {
        groups,
        offsets: out.groups.reduce((n, s) => n + s.offsets, 0),
        pendingTxnOffsets: out.groups.reduce((n, s) => n + s.pendingOffsets, 0),
        transactions,
        unknownKeys: out.groups.reduce((n, s) => n + s.unknownKeys, 0) + out.transactions.reduce((n, s) => n + s.unknownKeys, 0),
      },
      'coordinator state loaded',
    );
  }
  return out;
}

/** Moves the producer id allocator past every producer id the broker's state holds. */
function advanceProducerIds(b: CoordinatorStateServices): void {
  let max = -1n;
  for (const id of b.transactions.transactionalIds()) {
    const md = b.transactions.metadata(id);
    if (md === undefined) continue;
    if (md.producerId > max) max = md.producerId;
    if (md.lastProducerId > max) max = md.lastProducerId;
  }
  const now = b.clock.now();
  for (const topic of b.topics.all()) {
    for (const log of topic.partitions) for (const id of log.producers.activeProducers(now).keys()) if (id > max) max = id;
  }
  if (b.producerIds.peek() <= max) b.producerIds.restore(max + 1n);
}
