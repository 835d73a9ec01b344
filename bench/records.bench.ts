// Record-batch benchmarks: the broker's Produce hot path (header + CRC, no record decoding) and
// full decode/encode against kafkajs 2.2.4's own record-batch code.
//
//   npx tsx bench/records.bench.ts [--quick]
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import {
  checkProduceRecords,
  decodeBatch,
  encodeBatch,
  setBaseOffset,
  setLogAppendTime,
  type RecordBatchInput,
} from '../src/codec/records/index.js';
import { CheckError, FULL, fmtOps, QUICK, runCase, type BenchCase } from './harness.js';

const require = createRequire(import.meta.url);
type Enc = { buffer: Buffer };
const Decoder = require('kafkajs/src/protocol/decoder') as new (b: Buffer) => unknown;
const { RecordBatch: KRecordBatch } = require('kafkajs/src/protocol/recordBatch/v0') as {
  RecordBatch: (o: Record<string, unknown>) => Promise<Enc>;
};
const KRecord = require('kafkajs/src/protocol/recordBatch/record/v0') as (r: Record<string, unknown>) => Enc;
const kDecodeBatch = require('kafkajs/src/protocol/recordBatch/v0/decoder') as (
  d: unknown,
) => Promise<{ records: { offset: string; key: Buffer | null; value: Buffer | null }[] }>;

/** Ten 100-byte records with a key and one header each: a typical small producer batch. */
function input(): RecordBatchInput {
  return {
    baseTimestamp: 1_700_000_000_000,
    maxTimestamp: 1_700_000_000_009,
    partitionLeaderEpoch: 0,
    producerEpoch: 0,
    baseSequence: 0,
    records: Array.from({ length: 10 }, (_, i) => ({
      key: Buffer.from(`key-${i}`),
      value: Buffer.alloc(100, i),
      headers: [{ key: 'trace-id', value: Buffer.from(`t${i}`) }],
      timestampDelta: i,
      offsetDelta: i,
    })),
  };
}

function kafkajsEncode(i: RecordBatchInput): Promise<Enc> {
  return KRecordBatch({
    compression: 0,
    firstOffset: 0n,
    firstTimestamp: i.baseTimestamp,
    maxTimestamp: i.maxTimestamp,
    partitionLeaderEpoch: 0,
    lastOffsetDelta: i.records.length - 1,
    producerId: -1n,
    producerEpoch: 0,
    firstSequence: 0,
    records: i.records.map((r) =>
      KRecord({
        offsetDelta: r.offsetDelta,
        timestampDelta: r.timestampDelta,
        key: r.key,
        value: r.value,
        headers: Object.fromEntries((r.headers ?? []).map((h) => [h.key, h.value])),
      }),
    ),
  });
}

export function buildRecordCases(): BenchCase<never>[] {
  const inp = input();
  const batch = encodeBatch(inp);
  const norm = (records: { offset: string; key: Buffer | null; value: Buffer | null }[]) =>
    records.map((r) => [r.offset, r.key?.toString('hex') ?? null, r.value?.toString('hex') ?? null]);

  const cases: BenchCase<Buffer | RecordBatchInput>[] = [
    {
      section: 'Record batches',
      op: 'Produce append path: check (framing, magic, CRC-32C, counts) + set baseOffset + LogAppendTime, 10 × 100 B',
      input: batch,
      contenders: [
        {
          name: 'kmock checkProduceRecords + setBaseOffset + setLogAppendTime',
          lib: 'kmock',
          baseline: true,
          fn: (b) => {
            const r = checkProduceRecords(b as Buffer);
            if (!r.ok) throw new Error(r.message);
            setBaseOffset(r.batches[0].bytes, 42n);
            setLogAppendTime(r.batches[0].bytes, 1_700_000_000_000);
            return r.batches.length;
          },
        },
      ],
      note: 'kafkajs has no header-only path (it always decodes every record), so this row has no contender.',
    },
    {
      section: 'Record batches',
      op: 'Record batch decode (uncompressed, 10 × 100 B)',
      input: batch,
      contenders: [
        {
          name: 'kmock decodeBatch',
          lib: 'kmock',
          fn: (b) => decodeBatch(b as Buffer),
          normalize: ((d: ReturnType<typeof decodeBatch>) =>
            norm(d.records.map((r) => ({ offset: String(d.baseOffset + BigInt(r.offsetDelta)), key: r.key, value: r.value })))) as (o: never) => unknown,
        },
        {
          name: 'kafkajs recordBatch/v0/decoder (await)',
          lib: 'kafkajs',
          baseline: true,
          async: true,
          fn: (b) => kDecodeBatch(new Decoder(b as Buffer)),
          normalize: ((d: Awaited<ReturnType<typeof kDecodeBatch>>) => norm(d.records)) as (o: never) => unknown,
        },
      ],
      note: 'kmock verifies the CRC-32C on every decode; kafkajs does not.',
    },
    {
      section: 'Record batches',
      op: 'Record batch encode (uncompressed, 10 × 100 B)',
      input: inp,
      contenders: [
        { name: 'kmock encodeBatch', lib: 'kmock', fn: (i) => encodeBatch(i as RecordBatchInput) },
        {
          name: 'kafkajs recordBatch/v0 RecordBatch (await, records pre-built per call)',
          lib: 'kafkajs',
          baseline: true,
          async: true,
          fn: async (i) => (await kafkajsEncode(i as RecordBatchInput)).buffer,
        },
      ],
      verify: async () => {
        // kafkajs writes producerId -1 and epoch/sequence 0 like `inp`; same inputs, same bytes.
        const ours = encodeBatch({ ...inp, producerId: -1n });
        const theirs = (await kafkajsEncode(inp)).buffer;
        if (!ours.equals(theirs)) throw new CheckError('kmock and kafkajs encode different bytes');
      },
    },
  ];
  return cases as unknown as BenchCase<never>[];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const opts = process.argv.includes('--quick') ? QUICK : FULL;
  for (const c of buildRecordCases()) {
    const r = await runCase(c, opts, (s) => console.error(s));
    console.log(`\n${r.op}`);
    for (const x of r.results) console.log(`  ${fmtOps(x.median).padStart(10)} ops/s  ${x.name}`);
  }
}
