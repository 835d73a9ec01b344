// What would make the generated JoinGroup codec faster? Variants of the SAME generated code with
// one change each, timed against the unchanged code with the shared harness (interleaved rounds,
// equality checked first). Nothing under src/ is modified: the changed primitives are subclasses
// of src's Reader/Writer, and the "no path tracking" decoder is a copy of the generated reader
// with its try/catch and `f = '…'` bookkeeping removed.
//   npx tsx bench/experiments/joingroup-variants.ts [--quick] [--rounds=15] [VERSION=5]
import {
  createJoinGroupRequest,
  DecodeError,
  decodeJoinGroupRequest,
  encodeJoinGroupRequest,
  Reader,
  sizeJoinGroupRequest,
  Writer,
  writeJoinGroupRequest,
  JoinGroupRequest,
} from '../../src/codec/index.js';
import { FULL, QUICK, fmtOps, pairedRatio, runCase, type CaseResult, type Contender } from '../harness.js';
import { KafkaDecoder, KafkaEncoder, AssignerProtocol, type KDecoder, type KEncoder } from '../vendor.js';

/** The old generated readers' path helper (removed from src; kept here to measure that shape). */
function prependPath(err: unknown, segment: string): never {
  if (err instanceof DecodeError) {
    err.path.unshift(segment);
    throw err;
  }
  throw err;
}

type NodeBuffer = Buffer & {
  utf8Write(s: string, offset: number, length?: number): number;
  utf8Slice(start: number, end: number): string;
};

// ---- changed primitives -------------------------------------------------------------------------

/** Reader.utf8 calling the binding Buffer#toString ends up in, without toString's argument handling. */
class Utf8SliceReader extends Reader {
  override utf8(n: number): string {
    this.need(n);
    const s = (this.buf as NodeBuffer).utf8Slice(this.pos, this.pos + n);
    this.pos += n;
    return s;
  }
}

/** Plus int16/int32 from the bytes directly, instead of Buffer#readInt16BE/readInt32BE. */
class InlineReader extends Utf8SliceReader {
  override int16(): number {
    this.need(2);
    const b = this.buf;
    const p = this.pos;
    this.pos = p + 2;
    return ((b[p] << 24) | (b[p + 1] << 16)) >> 16;
  }
  override int32(): number {
    this.need(4);
    const b = this.buf;
    const p = this.pos;
    this.pos = p + 4;
    return (b[p] << 24) | (b[p + 1] << 16) | (b[p + 2] << 8) | b[p + 3];
  }
}

/** Writer.string/compactString calling utf8Write, int16/int32 writing bytes directly. */
class InlineWriter extends Writer {
  override int16(v: number): void {
    const b = this.buf;
    const p = this.pos;
    b[p] = v >>> 8;
    b[p + 1] = v;
    this.pos = p + 2;
  }
  override int32(v: number): void {
    const b = this.buf;
    const p = this.pos;
    b[p] = v >>> 24;
    b[p + 1] = v >>> 16;
    b[p + 2] = v >>> 8;
    b[p + 3] = v;
    this.pos = p + 4;
  }
  override string(v: string | null): void {
    if (v === null) {
      this.int16(-1);
      return;
    }
    const n = (this.buf as NodeBuffer).utf8Write(v, this.pos + 2);
    this.buf[this.pos] = n >>> 8;
    this.buf[this.pos + 1] = n;
    this.pos += 2 + n;
  }
  override compactString(v: string | null): void {
    if (v === null || v.length > 42) {
      super.compactString(v);
      return;
    }
    const n = (this.buf as NodeBuffer).utf8Write(v, this.pos + 1);
    this.buf[this.pos] = n + 1;
    this.pos += 1 + n;
  }
}

/** InlineReader + short ASCII strings (≤ 16 bytes) decoded in JS, no binding call. */
class AsciiReader extends InlineReader {
  override utf8(n: number): string {
    if (n > 16) return super.utf8(n);
    this.need(n);
    const b = this.buf;
    const start = this.pos;
    let s = '';
    for (let i = start; i < start + n; i++) {
      const c = b[i];
      if (c >= 0x80) return super.utf8(n); // pos not yet advanced: decode the whole string natively
      s += String.fromCharCode(c);
    }
    this.pos = start + n;
    return s;
  }
}

/** InlineWriter + short ASCII strings (≤ 32 chars) stored byte by byte in JS. */
class AsciiWriter extends InlineWriter {
  override string(v: string | null): void {
    if (v === null || v.length > 32) {
      super.string(v);
      return;
    }
    const b = this.buf;
    const start = this.pos + 2;
    const n = v.length;
    for (let i = 0; i < n; i++) {
      const c = v.charCodeAt(i);
      if (c >= 0x80) {
        super.string(v); // rewrites from scratch: nothing before `start` was touched
        return;
      }
      b[start + i] = c;
    }
    b[this.pos] = n >>> 8;
    b[this.pos + 1] = n;
    this.pos = start + n;
  }
}

type NB = NodeBuffer;

/** A hand-written v5 encoder with every trick above, fresh exact-size buffer: the ceiling. */
function handEncodeV5(m: JoinGroupRequest): Buffer {
  const size = 2 + utf8Len(m.groupId) + 4 + 4 + 2 + utf8Len(m.memberId) + 2 + (m.groupInstanceId === null ? 0 : utf8Len(m.groupInstanceId)) + 2 + utf8Len(m.protocolType) + 4 + protocolsLen(m.protocols);
  const b = Buffer.allocUnsafe(size) as NB;
  let p = writeStr(b, 0, m.groupId);
  p = writeI32(b, p, m.sessionTimeoutMs);
  p = writeI32(b, p, m.rebalanceTimeoutMs);
  p = writeStr(b, p, m.memberId);
  p = m.groupInstanceId === null ? writeI16(b, p, -1) : writeStr(b, p, m.groupInstanceId);
  p = writeStr(b, p, m.protocolType);
  p = writeI32(b, p, m.protocols.length);
  for (const x of m.protocols) {
    p = writeStr(b, p, x.name);
    p = writeI32(b, p, x.metadata.length);
    x.metadata.copy(b, p);
    p += x.metadata.length;
  }
  return b;
}

/** handEncodeV5 taking its output from a private 64 KiB slab instead of Buffer's 8 KiB pool. */
let slab = Buffer.allocUnsafeSlow(64 * 1024) as NB;
let slabOff = 0;
function slabAlloc(n: number): NB {
  if (n > 4096) return Buffer.allocUnsafe(n) as NB;
  if (slabOff + n > slab.length) {
    slab = Buffer.allocUnsafeSlow(64 * 1024) as NB;
    slabOff = 0;
  }
  const b = slab.subarray(slabOff, slabOff + n) as NB;
  slabOff = (slabOff + n + 7) & ~7;
  return b;
}
function handEncodeV5Slab(m: JoinGroupRequest): Buffer {
  const size = 2 + utf8Len(m.groupId) + 4 + 4 + 2 + utf8Len(m.memberId) + 2 + (m.groupInstanceId === null ? 0 : utf8Len(m.groupInstanceId)) + 2 + utf8Len(m.protocolType) + 4 + protocolsLen(m.protocols);
  const b = slabAlloc(size);
  let p = writeStr(b, 0, m.groupId);
  p = writeI32(b, p, m.sessionTimeoutMs);
  p = writeI32(b, p, m.rebalanceTimeoutMs);
  p = writeStr(b, p, m.memberId);
  p = m.groupInstanceId === null ? writeI16(b, p, -1) : writeStr(b, p, m.groupInstanceId);
  p = writeStr(b, p, m.protocolType);
  p = writeI32(b, p, m.protocols.length);
  for (const x of m.protocols) {
    p = writeStr(b, p, x.name);
    p = writeI32(b, p, x.metadata.length);
    x.metadata.copy(b, p);
    p += x.metadata.length;
  }
  return b;
}

/** The same into one reused scratch buffer, returning a view: what the earlier 5× figure measured. */
const scratch = Buffer.allocUnsafe(64 * 1024) as NB;
function handEncodeV5View(m: JoinGroupRequest): Buffer {
  let p = writeStr(scratch, 0, m.groupId);
  p = writeI32(scratch, p, m.sessionTimeoutMs);
  p = writeI32(scratch, p, m.rebalanceTimeoutMs);
  p = writeStr(scratch, p, m.memberId);
  p = m.groupInstanceId === null ? writeI16(scratch, p, -1) : writeStr(scratch, p, m.groupInstanceId);
  p = writeStr(scratch, p, m.protocolType);
  p = writeI32(scratch, p, m.protocols.length);
  for (const x of m.protocols) {
    p = writeStr(scratch, p, x.name);
    p = writeI32(scratch, p, x.metadata.length);
    x.metadata.copy(scratch, p);
    p += x.metadata.length;
  }
  return scratch.subarray(0, p);
}

function protocolsLen(ps: JoinGroupRequest.Protocol[]): number {
  let n = 0;
  for (const x of ps) n += 2 + utf8Len(x.name) + 4 + x.metadata.length;
  return n;
}

/** UTF-8 length: a JS scan for short ASCII, Buffer.byteLength otherwise. */
function utf8Len(s: string): number {
  const n = s.length;
  if (n > 64) return Buffer.byteLength(s);
  for (let i = 0; i < n; i++) if (s.charCodeAt(i) >= 0x80) return Buffer.byteLength(s);
  return n;
}

function writeI16(b: NB, p: number, v: number): number {
  b[p] = v >>> 8;
  b[p + 1] = v;
  return p + 2;
}

function writeI32(b: NB, p: number, v: number): number {
  b[p] = v >>> 24;
  b[p + 1] = v >>> 16;
  b[p + 2] = v >>> 8;
  b[p + 3] = v;
  return p + 4;
}

function writeStr(b: NB, p: number, s: string): number {
  const n = s.length;
  if (n <= 32) {
    let i = 0;
    for (; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) break;
      b[p + 2 + i] = c;
    }
    if (i === n) return writeI16(b, p, n) + n;
  }
  const w = b.utf8Write(s, p + 2);
  writeI16(b, p, w);
  return p + 2 + w;
}

/** A hand-written v5 decoder with every trick above, bounds-checked: the ceiling. */
function handDecodeV5(b: NB): JoinGroupRequest {
  const r = new AsciiReader(b);
  const groupId = r.string();
  const sessionTimeoutMs = r.int32();
  const rebalanceTimeoutMs = r.int32();
  const memberId = r.string();
  const groupInstanceId = r.nullableString();
  const protocolType = r.string();
  const n = r.arrayLength(6);
  if (n < 0) throw new DecodeError('non-nullable array was null');
  const protocols = new Array<JoinGroupRequest.Protocol>(n);
  for (let i = 0; i < n; i++) protocols[i] = { name: r.string(), metadata: r.bytes() };
  return { groupId, sessionTimeoutMs, rebalanceTimeoutMs, memberId, groupInstanceId, protocolType, protocols, reason: null };
}

function encodeWith(W: typeof Writer, m: JoinGroupRequest, v: number): Buffer {
  const w = new W(sizeJoinGroupRequest(m, v));
  writeJoinGroupRequest(w, m, v);
  return w.finish();
}

// ---- the generated reader without error-path bookkeeping ---------------------------------------

function readProtocolsNoTrack(r: Reader, v: number): JoinGroupRequest.Protocol[] {
  const n = v < 6 ? r.arrayLength(6) : r.compactArrayLength(3);
  if (n < 0) throw new DecodeError('non-nullable array was null');
  const a: JoinGroupRequest.Protocol[] = [];
  for (let i = 0; i < n; i++) {
    const name = v < 6 ? r.string() : r.compactString();
    const metadata = v < 6 ? r.bytes() : r.compactBytes();
    if (v >= 6) {
      const count = r.uvarint();
      for (let t = 0; t < count; t++) {
        r.uvarint();
        r.view(r.uvarint());
      }
    }
    a.push({ name, metadata });
  }
  return a;
}

function decodeNoTrack(r: Reader, v: number): JoinGroupRequest {
  const groupId = v < 6 ? r.string() : r.compactString();
  const sessionTimeoutMs = r.int32();
  const rebalanceTimeoutMs = v < 1 ? -1 : r.int32();
  const memberId = v < 6 ? r.string() : r.compactString();
  const groupInstanceId = v < 5 ? null : v < 6 ? r.nullableString() : r.compactNullableString();
  const protocolType = v < 6 ? r.string() : r.compactString();
  const protocols = readProtocolsNoTrack(r, v);
  const reason = v < 8 ? null : r.compactNullableString();
  if (v >= 6) {
    const count = r.uvarint();
    for (let t = 0; t < count; t++) {
      r.uvarint();
      r.view(r.uvarint());
    }
  }
  return { groupId, sessionTimeoutMs, rebalanceTimeoutMs, memberId, groupInstanceId, protocolType, protocols, reason };
}

/** decodeNoTrack, but keeping one try/catch per struct (without the per-field `f = '…'` writes). */
function decodeTryOnly(r: Reader, v: number): JoinGroupRequest {
  try {
    const groupId = v < 6 ? r.string() : r.compactString();
    const sessionTimeoutMs = r.int32();
    const rebalanceTimeoutMs = v < 1 ? -1 : r.int32();
    const memberId = v < 6 ? r.string() : r.compactString();
    const groupInstanceId = v < 5 ? null : v < 6 ? r.nullableString() : r.compactNullableString();
    const protocolType = v < 6 ? r.string() : r.compactString();
    let protocols: JoinGroupRequest.Protocol[];
    try {
      protocols = readProtocolsNoTrack(r, v);
    } catch (e) {
      return prependPath(e, 'protocols');
    }
    const reason = v < 8 ? null : r.compactNullableString();
    if (v >= 6) {
      const count = r.uvarint();
      for (let t = 0; t < count; t++) {
        r.uvarint();
        r.view(r.uvarint());
      }
    }
    return { groupId, sessionTimeoutMs, rebalanceTimeoutMs, memberId, groupInstanceId, protocolType, protocols, reason };
  } catch (e) {
    return prependPath(e, '?');
  }
}

// ---- run ---------------------------------------------------------------------------------------

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const v = Number(args.find((a) => /^\d+$/.test(a)) ?? 5);
const roundsArg = args.find((a) => a.startsWith('--rounds='));
// More, shorter rounds than the main benchmark: the variants differ by 10–50% and this machine is
// shared, so the median needs more samples to be trusted.
const opts = quick ? QUICK : { ...FULL, rounds: Number(roundsArg?.slice(9) ?? 15), roundMs: 300 };

const metadata = AssignerProtocol.MemberMetadata.encode({ version: 1, topics: ['test-topic-6d25fae0b963e68547b8-23702-fafdf91d-ed40-4f21-8281-d7abb0d9bdd9'] });
const m = createJoinGroupRequest({
  groupId: 'consumer-group-id-b522188a3a12a1f04cfb-23702-e1ff35c7-fde9-4d58-960a-2cef8af77eef',
  sessionTimeoutMs: 30000,
  rebalanceTimeoutMs: 60000,
  memberId: '',
  groupInstanceId: v >= 5 ? 'group-instance-id' : null,
  protocolType: 'consumer',
  protocols: [JoinGroupRequest.createProtocol({ name: 'AssignerName', metadata })],
});
const bytes = encodeJoinGroupRequest(m, v);
const hex = (b: Buffer) => b.toString('hex');
const norm = (x: JoinGroupRequest) =>
  JSON.stringify({ ...x, unknownTaggedFields: undefined, protocols: x.protocols.map((p) => ({ name: p.name, metadata: hex(p.metadata) })) });

const kjsProtocol = ({ name, metadata: md }: JoinGroupRequest.Protocol): KEncoder => new KafkaEncoder().writeString(name).writeBytes(md);
const kjsDecodeProtocol = (d: KDecoder) => ({ name: d.readString() ?? '', metadata: d.readBytes() ?? Buffer.alloc(0) });

const encoders: Contender<JoinGroupRequest>[] = [
  { name: 'generated encode, src Writer (today)', lib: 'kmock', fn: (x) => encodeJoinGroupRequest(x, v), normalize: hex },
  { name: 'generated encode, InlineWriter (utf8Write + byte stores)', lib: 'kmock', fn: (x) => encodeWith(InlineWriter, x, v), normalize: hex },
];
if (v < 6) {
  encoders.push({ name: 'generated encode, AsciiWriter (+ JS stores for ≤ 32-char ASCII)', lib: 'kmock', fn: (x) => encodeWith(AsciiWriter, x, v), normalize: hex });
}
if (v === 5) {
  encoders.push(
    { name: 'hand-written v5, all of the above + JS size scan (fresh buffer)', lib: 'kmock', fn: handEncodeV5, normalize: hex },
    { name: 'hand-written v5, output carved from a private 64 KiB slab', lib: 'kmock', fn: handEncodeV5Slab, normalize: hex },
    { name: 'hand-written v5 into a REUSED buffer, returns a view (not a valid API)', lib: 'kmock', fn: handEncodeV5View, normalize: hex },
  );
  encoders.push({
    name: 'kafkajs Encoder, joinGroup/v5 calls, sync',
    lib: 'kafkajs',
    fn: (x) =>
      new KafkaEncoder()
        .writeString(x.groupId)
        .writeInt32(x.sessionTimeoutMs)
        .writeInt32(x.rebalanceTimeoutMs)
        .writeString(x.memberId)
        .writeString(x.groupInstanceId)
        .writeString(x.protocolType)
        .writeArray(x.protocols.map(kjsProtocol)).buffer,
    normalize: hex,
  });
}
const decoders: Contender<Buffer>[] = [
  { name: 'generated decode, src Reader (today)', lib: 'kmock', fn: (b) => decodeJoinGroupRequest(b, v), normalize: norm },
  { name: 'generated decode, Utf8SliceReader', lib: 'kmock', fn: (b) => decodeJoinGroupRequest(new Utf8SliceReader(b), v), normalize: norm },
  { name: 'generated decode, InlineReader (utf8Slice + byte loads)', lib: 'kmock', fn: (b) => decodeJoinGroupRequest(new InlineReader(b), v), normalize: norm },
  { name: 'no path tracking, src Reader', lib: 'kmock', fn: (b) => decodeNoTrack(new Reader(b), v), normalize: norm },
  { name: 'try/catch per struct but no `f = …` writes, src Reader', lib: 'kmock', fn: (b) => decodeTryOnly(new Reader(b), v), normalize: norm },
  { name: 'no path tracking, InlineReader', lib: 'kmock', fn: (b) => decodeNoTrack(new InlineReader(b), v), normalize: norm },
  { name: 'generated decode, AsciiReader (+ JS decode for ≤ 16-byte ASCII)', lib: 'kmock', fn: (b) => decodeJoinGroupRequest(new AsciiReader(b), v), normalize: norm },
  { name: 'no path tracking, AsciiReader', lib: 'kmock', fn: (b) => decodeNoTrack(new AsciiReader(b), v), normalize: norm },
];
if (v === 5) {
  decoders.push({ name: 'hand-written v5 with AsciiReader', lib: 'kmock', fn: (b) => handDecodeV5(b as NB), normalize: norm });
  decoders.push({
    name: 'kafkajs Decoder composed (v5 layout)',
    lib: 'kafkajs',
    fn: (b) => {
      const d = new KafkaDecoder(b);
      return {
        groupId: d.readString() ?? '',
        sessionTimeoutMs: d.readInt32(),
        rebalanceTimeoutMs: d.readInt32(),
        memberId: d.readString() ?? '',
        groupInstanceId: d.readString(),
        protocolType: d.readString() ?? '',
        protocols: d.readArray(kjsDecodeProtocol),
        reason: null,
      };
    },
    normalize: norm,
  });
}

const show = (r: CaseResult) => {
  console.log(`\n${r.op}\n\n| variant | ops/s (median) | vs today (medians) | vs today (per-round) | spread |\n|---|---:|---:|---:|---:|`);
  for (const x of r.results) {
    const paired = pairedRatio(x, r.results[0]);
    console.log(`| ${x.name} | ${fmtOps(x.median)} | ${(x.median / r.results[0].median).toFixed(2)}× | ${paired.toFixed(2)}× | ${(x.spread * 100).toFixed(1)}% |`);
  }
};
show(await runCase({ section: 'variants', op: `JoinGroup request encode v${v} (${bytes.length} B)`, input: m, contenders: encoders }, opts));
show(await runCase({ section: 'variants', op: `JoinGroup request decode v${v} (${bytes.length} B)`, input: bytes, contenders: decoders }, opts));
