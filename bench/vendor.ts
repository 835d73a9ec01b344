// The other libraries' codecs, loaded the way they ship them, with just enough typing for the
// benchmarks. kafkajs 2.2.4 has no types for its protocol internals (CommonJS under src/), so they
// are required through createRequire; @platformatic/kafka 1.35.0 is ESM with its own types.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

// ---- kafkajs -----------------------------------------------------------------------------------

export interface KEncoder {
  readonly buffer: Buffer;
  size(): number;
  writeInt8(v: number): KEncoder;
  writeInt16(v: number): KEncoder;
  writeInt32(v: number): KEncoder;
  writeInt64(v: unknown): KEncoder;
  writeBoolean(v: boolean): KEncoder;
  writeString(v: string | null): KEncoder;
  writeBytes(v: Buffer | null): KEncoder;
  writeBuffer(v: Buffer): KEncoder;
  writeEncoder(v: KEncoder): KEncoder;
  writeArray(a: unknown[], type?: string): KEncoder;
}

export interface KDecoder {
  offset: number;
  readInt8(): number;
  readInt16(): number;
  readInt32(): number;
  readInt64(): bigint;
  readBoolean(): boolean;
  readString(): string | null;
  readBytes(): Buffer | null;
  readArray<T>(f: (d: KDecoder) => T): T[];
}

export const KafkaEncoder = require('kafkajs/src/protocol/encoder') as new (initialSize?: number) => KEncoder;
export const KafkaDecoder = require('kafkajs/src/protocol/decoder') as new (buf: Buffer) => KDecoder;

/** kafkajs's 64-bit integer class (a vendored copy of the `long` package). */
export interface KLong {
  toString(): string;
}
const LongCls = require('kafkajs/src/utils/long') as { fromInt(n: number): KLong; fromValue(v: unknown): KLong };
export const Long = LongCls;

export interface KRequest {
  apiKey: number;
  apiVersion: number;
  encode(): Promise<KEncoder>;
}
export type KRequestFactory = (args: Record<string, unknown>) => KRequest;
export interface KResponseModule {
  decode(buf: Buffer): Promise<Record<string, unknown>>;
}

export function kafkajsRequest(api: string, version: number): KRequestFactory {
  return require(`kafkajs/src/protocol/requests/${api}/v${version}/request`) as KRequestFactory;
}
export function kafkajsResponse(api: string, version: number): KResponseModule {
  return require(`kafkajs/src/protocol/requests/${api}/v${version}/response`) as KResponseModule;
}

export interface KRecordArgs {
  offsetDelta?: number;
  timestampDelta?: number;
  key: Buffer | string | null;
  value: Buffer | string | null;
  headers?: Record<string, string | Buffer>;
}
export const KafkaRecord = require('kafkajs/src/protocol/recordBatch/record/v0') as (args: KRecordArgs) => KEncoder;
export const KafkaRecordBatch = (require('kafkajs/src/protocol/recordBatch/v0') as {
  RecordBatch: (args: Record<string, unknown>) => Promise<KEncoder>;
}).RecordBatch;

export const AssignerProtocol = (require('kafkajs') as {
  AssignerProtocol: { MemberMetadata: { encode(m: { version: number; topics: string[]; userData?: Buffer }): Buffer } };
}).AssignerProtocol;

// ---- @platformatic/kafka -------------------------------------------------------------------------

export {
  Reader as PltReader,
  Writer as PltWriter,
  joinGroupV6,
  joinGroupV7,
  joinGroupV8,
  joinGroupV9,
  produceV9,
  fetchV12,
  fetchV16,
} from '@platformatic/kafka';
