// Micro-benchmark of the ways to write/read a short UTF-8 string in a Buffer on Node 20, with the
// string sizes of a JoinGroup request (81, 17, 12 and 8 ASCII chars) and one non-ASCII string.
// Evidence for the suggestions in bench/README.md; uses the same harness as the codec benchmarks.
//   npx tsx bench/experiments/strings.ts [--quick] [--per-length]
import { FULL, QUICK, fmtOps, runCase, type Contender } from '../harness.js';

type NodeBuffer = Buffer & {
  utf8Write(s: string, offset: number, length?: number): number;
  utf8Slice(start: number, end: number): string;
  latin1Slice(start: number, end: number): string;
};

const STRINGS = [
  'consumer-group-id-b522188a3a12a1f04cfb-23702-e1ff35c7-fde9-4d58-960a-2cef8af77eef',
  'group-instance-id',
  'AssignerName',
  'consumer',
];
const NON_ASCII = 'grüppe-ñ-消费者';

// ---- writers: all write every string at consecutive positions and return the end position ----

const out = Buffer.allocUnsafe(4096) as NodeBuffer;

function writeBufferWrite(ss: string[]): number {
  let p = 0;
  for (const s of ss) p += out.write(s, p);
  return p;
}

function writeUtf8Write(ss: string[]): number {
  let p = 0;
  for (const s of ss) p += out.utf8Write(s, p);
  return p;
}

/** ASCII in a JS loop; the first non-ASCII char hands the rest of the string to utf8Write. */
function writeJsAscii(ss: string[]): number {
  let p = 0;
  for (const s of ss) {
    const n = s.length;
    let i = 0;
    for (; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) break;
      out[p++] = c;
    }
    if (i < n) p += out.utf8Write(i === 0 ? s : s.slice(i), p);
  }
  return p;
}

const encoder = new TextEncoder();
function writeEncodeInto(ss: string[]): number {
  let p = 0;
  for (const s of ss) p += encoder.encodeInto(s, out.subarray(p)).written;
  return p;
}

// ---- readers: read each string back given [start, end) ----

interface Spans {
  buf: NodeBuffer;
  spans: [number, number][];
}

function spansOf(ss: string[]): Spans {
  const buf = Buffer.allocUnsafe(4096) as NodeBuffer;
  const spans: [number, number][] = [];
  let p = 0;
  for (const s of ss) {
    const n = buf.write(s, p);
    spans.push([p, p + n]);
    p += n;
  }
  return { buf, spans };
}

function readToString(x: Spans): string[] {
  const r: string[] = [];
  for (const [a, b] of x.spans) r.push(x.buf.toString('utf8', a, b));
  return r;
}

function readUtf8Slice(x: Spans): string[] {
  const r: string[] = [];
  for (const [a, b] of x.spans) r.push(x.buf.utf8Slice(a, b));
  return r;
}

/** kafkajs's way: a view, then toString() with no arguments (Node's fast path). */
function readSliceToString(x: Spans): string[] {
  const r: string[] = [];
  for (const [a, b] of x.spans) r.push(x.buf.subarray(a, b).toString());
  return r;
}

/** Short ASCII decoded in JS (String.fromCharCode), anything else via utf8Slice. */
function readJsAscii(x: Spans): string[] {
  const r: string[] = [];
  for (const [a, b] of x.spans) r.push(jsAscii(x.buf, a, b));
  return r;
}

function jsAscii(buf: NodeBuffer, a: number, b: number): string {
  if (b - a > 64) return buf.utf8Slice(a, b);
  let s = '';
  for (let i = a; i < b; i++) {
    const c = buf[i];
    if (c >= 0x80) return buf.utf8Slice(a, b);
    s += String.fromCharCode(c);
  }
  return s;
}

/** ASCII via String.fromCharCode.apply over a reused array of char codes (n ≤ 64). */
const codes: number[] = [];
function jsAsciiApply(buf: NodeBuffer, a: number, b: number): string {
  const n = b - a;
  if (n > 64) return buf.utf8Slice(a, b);
  codes.length = n;
  for (let i = 0; i < n; i++) {
    const c = buf[a + i];
    if (c >= 0x80) return buf.utf8Slice(a, b);
    codes[i] = c;
  }
  return String.fromCharCode.apply(null, codes);
}
function readJsAsciiApply(x: Spans): string[] {
  const r: string[] = [];
  for (const [a, b] of x.spans) r.push(jsAsciiApply(x.buf, a, b));
  return r;
}

const td = new TextDecoder();
function readTextDecoder(x: Spans): string[] {
  const r: string[] = [];
  for (const [a, b] of x.spans) r.push(td.decode(x.buf.subarray(a, b)));
  return r;
}

const hexOut = (p: number) => out.subarray(0, p).toString('hex');

const quick = process.argv.includes('--quick');
const opts = quick ? QUICK : FULL;
const only = process.argv.includes('--per-length');
const sets: (readonly [string, string[]])[] = only
  ? STRINGS.map((s) => [`one ASCII string of ${s.length} chars`, [s]] as const)
  : [
      ['JoinGroup v5 strings (ASCII: 81+17+12+8 chars)', STRINGS],
      ['non-ASCII string (15 chars, 24 bytes)', [NON_ASCII]],
    ];
for (const [label, ss] of sets) {
  const strs = [...ss];
  const writers: Contender<string[]>[] = [
    { name: 'buf.write(s, pos)            [kmock Writer today]', lib: 'kmock', fn: writeBufferWrite, normalize: hexOut },
    { name: 'buf.utf8Write(s, pos)        [skips the JS wrapper]', lib: 'kmock', fn: writeUtf8Write, normalize: hexOut },
    { name: 'JS charCodeAt loop, utf8Write fallback', lib: 'kmock', fn: writeJsAscii, normalize: hexOut },
    { name: 'TextEncoder.encodeInto(s, subarray)', lib: 'kmock', fn: writeEncodeInto, normalize: hexOut },
  ];
  const w = await runCase({ section: 'strings', op: `write ${label}`, input: strs, contenders: writers }, opts);
  const spans = spansOf(strs);
  const readers: Contender<Spans>[] = [
    { name: "buf.toString('utf8', a, b)   [kmock Reader today]", lib: 'kmock', fn: readToString },
    { name: 'buf.utf8Slice(a, b)          [skips the JS wrapper]', lib: 'kmock', fn: readUtf8Slice },
    { name: 'buf.subarray(a, b).toString() [kafkajs Decoder]', lib: 'kafkajs', fn: readSliceToString },
    { name: 'JS fromCharCode loop ≤64 B, utf8Slice fallback', lib: 'kmock', fn: readJsAscii },
    { name: 'JS fromCharCode.apply(codes) ≤64 B, utf8Slice fallback', lib: 'kmock', fn: readJsAsciiApply },
    { name: 'TextDecoder.decode(subarray)', lib: 'kmock', fn: readTextDecoder },
  ];
  const r = await runCase({ section: 'strings', op: `read ${label}`, input: spans, contenders: readers }, opts);
  for (const res of [w, r]) {
    console.log(`\n${res.op}\n`);
    console.log('| method | ops/s | vs first |');
    console.log('|---|---:|---:|');
    for (const x of res.results) console.log(`| ${x.name} | ${fmtOps(x.median)} | ${(x.median / res.results[0].median).toFixed(2)}× |`);
  }
}
