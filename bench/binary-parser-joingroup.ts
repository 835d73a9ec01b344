// binary-parser 2.3.0 as an alternative JoinGroup v5 request decoder, written in the idiom that is
// fastest for it (length fields by name, a formatter rather than `choice` for the nullable string)
// so that the comparison is fair to it. binary-parser has no encoder, no varints and no bounds
// checks on strings/buffers (TextDecoder/subarray clamp silently); see the truncation probe below.
// The package's "exports" map hides its typings from NodeNext resolution ("import" points at an
// .mjs without a .d.mts), so load the CommonJS build, whose .d.ts sits next to it. Same code.
import { Parser } from 'binary-parser/dist/binary_parser.js';

interface BpVars {
  groupInstanceIdLen: number;
}

const protocol = new Parser()
  .int16be('nameLen')
  .string('name', { length: 'nameLen', encoding: 'utf8' })
  .int32be('metadataLen')
  .buffer('metadata', { length: 'metadataLen' });

/** JoinGroup request v5 body. */
export const joinGroupV5Parser = new Parser()
  .int16be('groupIdLen')
  .string('groupId', { length: 'groupIdLen', encoding: 'utf8' })
  .int32be('sessionTimeoutMs')
  .int32be('rebalanceTimeoutMs')
  .int16be('memberIdLen')
  .string('memberId', { length: 'memberIdLen', encoding: 'utf8' })
  .int16be('groupInstanceIdLen')
  .string('groupInstanceId', {
    encoding: 'utf8',
    // A plain `length: 'groupInstanceIdLen'` with -1 would move the offset BACKWARDS by one.
    length: function (this: BpVars) {
      return this.groupInstanceIdLen < 0 ? 0 : this.groupInstanceIdLen;
    },
    formatter: function (this: BpVars, s: string) {
      return this.groupInstanceIdLen === -1 ? null : s;
    },
  })
  .int16be('protocolTypeLen')
  .string('protocolType', { length: 'protocolTypeLen', encoding: 'utf8' })
  .int32be('protocolCount')
  .array('protocols', { type: protocol, length: 'protocolCount' });

// Compile once up front (parse() would compile lazily on first use anyway).
joinGroupV5Parser.compile();

export interface BpJoinGroupV5 {
  groupIdLen: number;
  groupId: string;
  sessionTimeoutMs: number;
  rebalanceTimeoutMs: number;
  memberIdLen: number;
  memberId: string;
  groupInstanceIdLen: number;
  groupInstanceId: string | null;
  protocolTypeLen: number;
  protocolType: string;
  protocolCount: number;
  protocols: { nameLen: number; name: string; metadataLen: number; metadata: Buffer }[];
}

/** The raw parser result (with its length fields). */
export function bpDecodeJoinGroupV5(buf: Buffer): BpJoinGroupV5 {
  return joinGroupV5Parser.parse(buf) as BpJoinGroupV5;
}

/** The same, reshaped into the message a codec must hand to its caller (what we'd actually ship). */
export function bpDecodeJoinGroupV5Shaped(buf: Buffer) {
  const p = joinGroupV5Parser.parse(buf) as BpJoinGroupV5;
  const protocols = new Array<{ name: string; metadata: Buffer }>(p.protocols.length);
  for (let i = 0; i < protocols.length; i++) protocols[i] = { name: p.protocols[i].name, metadata: p.protocols[i].metadata };
  return {
    groupId: p.groupId,
    sessionTimeoutMs: p.sessionTimeoutMs,
    rebalanceTimeoutMs: p.rebalanceTimeoutMs,
    memberId: p.memberId,
    groupInstanceId: p.groupInstanceId,
    protocolType: p.protocolType,
    protocols,
    reason: null,
  };
}

export interface TruncationReport {
  prefixes: number;
  oursThrew: number;
  bpThrew: number;
  bpReturnedSilently: number;
}

/** Decodes every proper prefix of `body` with both decoders and counts who notices. */
export function truncationProbe(body: Buffer, ours: (b: Buffer) => unknown): TruncationReport {
  const rep: TruncationReport = { prefixes: 0, oursThrew: 0, bpThrew: 0, bpReturnedSilently: 0 };
  for (let n = 0; n < body.length; n++) {
    const prefix = Buffer.from(body.subarray(0, n));
    rep.prefixes++;
    try {
      ours(prefix);
    } catch {
      rep.oursThrew++;
    }
    try {
      bpDecodeJoinGroupV5(prefix);
      rep.bpReturnedSilently++;
    } catch {
      rep.bpThrew++;
    }
  }
  return rep;
}
