// Test-only encoder for the consumer protocol Subscription (ConsumerProtocolSubscription v0–v3),
// written independently of the decoder under test.

export interface SubscriptionInput {
  version: number;
  topics: string[];
  userData?: Buffer | null;
  ownedPartitions?: { topic: string; partitions: number[] }[];
  generationId?: number;
  rackId?: string | null;
}

function int16(n: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeInt16BE(n);
  return b;
}

function int32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
}

function str(s: string | null): Buffer {
  if (s === null) return int16(-1);
  const bytes = Buffer.from(s, 'utf8');
  return Buffer.concat([int16(bytes.length), bytes]);
}

export function encodeSubscription(s: SubscriptionInput): Buffer {
  const parts: Buffer[] = [int16(s.version), int32(s.topics.length), ...s.topics.map(str)];
  const userData = s.userData ?? null;
  parts.push(userData === null ? int32(-1) : Buffer.concat([int32(userData.length), userData]));
  if (s.version >= 1) {
    const owned = s.ownedPartitions ?? [];
    parts.push(int32(owned.length));
    for (const o of owned) parts.push(str(o.topic), int32(o.partitions.length), ...o.partitions.map(int32));
  }
  if (s.version >= 2) parts.push(int32(s.generationId ?? -1));
  if (s.version >= 3) parts.push(str(s.rackId ?? null));
  return Buffer.concat(parts);
}
