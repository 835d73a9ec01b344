// Kafka's Uuid in its text form (clients/.../common/Uuid.java): the 16 bytes in base64url without
// padding, 22 characters, as in partition.metadata's topic_id and meta.properties' directory.id.

import { randomBytes } from 'node:crypto';

/** Uuid.ZERO_UUID's text. */
export const ZERO_UUID = 'AAAAAAAAAAAAAAAAAAAAAA';

/**
 * Uuid.fromString: at most 24 characters of base64url (Java's URL decoder: padding optional) that
 * decode to exactly 16 bytes. Answers the canonical 22-character form (Uuid.toString), or null
 * where Java throws.
 */
export function parseKafkaUuid(s: string): string | null {
  if (s.length > 24) return null;
  // Java's decoder refuses characters outside the URL alphabet, which Node's would skip.
  if (!/^[A-Za-z0-9_-]{22}(==)?$/.test(s)) return null;
  const bytes = Buffer.from(s.slice(0, 22), 'base64url');
  return bytes.length === 16 ? bytes.toString('base64url') : null;
}

/** The Uuid's two halves as Java's longs: (mostSignificantBits, leastSignificantBits). */
function halves(uuid: string): [bigint, bigint] {
  const b = Buffer.from(uuid, 'base64url');
  return [b.readBigInt64BE(0), b.readBigInt64BE(8)];
}

/**
 * DirectoryId.reserved (server-common/.../common/DirectoryId.java): the first 100 ids (most
 * significant half 0, least below 100) mean "migrating", "unassigned", "lost" and the like.
 */
export function isReservedDirectoryId(uuid: string): boolean {
  const [msb, lsb] = halves(uuid);
  return msb === 0n && lsb >= 0n && lsb < 100n;
}

/**
 * A new directory.id as MetaPropertiesEnsemble.generateValidDirectoryId / DirectoryId.random make
 * one: random, not reserved, and not starting with '-' (Uuid.randomUuid's rule, so command-line
 * tools never take it for an option). `random` returns 16 bytes (tests pass a seeded source).
 */
export function newDirectoryId(random: () => Buffer = () => randomBytes(16)): string {
  for (;;) {
    const s = random().toString('base64url');
    if (s.length === 22 && !s.startsWith('-') && !isReservedDirectoryId(s)) return s;
  }
}
