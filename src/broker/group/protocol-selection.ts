// Choosing a group's protocol (e.g. the partition assignor) at the end of a join phase.
//
// Kafka 3.9 (GroupMetadata.selectProtocol): the candidates are the protocols every member
// supports; each member votes for the first candidate in its own preference order; the protocol
// with the most votes wins. A tie is broken by the iteration order of the Scala 2.13
// immutable.HashMap that `groupBy` builds, i.e. by the protocol names' hashes — deterministic, but
// not by preference or by name. A mixed group such as [range, roundrobin] / [roundrobin, range]
// ties 1:1, and clients observe which assignor wins, so that order is reproduced here.

export interface VotingMember {
  /** Protocol names in the member's preference order (as sent in JoinGroup). */
  protocolNames: readonly string[];
}

/**
 * The protocol Kafka would select. `candidates` are the names supported by every member.
 * Throws if a member supports none of them (Kafka throws IllegalArgumentException there too).
 */
export function selectProtocol(members: readonly VotingMember[], candidates: ReadonlySet<string>): string {
  if (members.length === 0) throw new Error('Cannot select protocol for empty group');
  const votes = new Map<string, number>();
  for (const m of members) {
    const vote = m.protocolNames.find((p) => candidates.has(p));
    if (vote === undefined) throw new Error('Member does not support any of the candidate protocols');
    votes.set(vote, (votes.get(vote) ?? 0) + 1);
  }
  let best: string | undefined;
  let bestVotes = -1;
  // Scala's maxBy keeps the first maximum in iteration order.
  for (const name of scalaHashMapOrder([...votes.keys()])) {
    const n = votes.get(name)!;
    if (n > bestVotes) {
      best = name;
      bestVotes = n;
    }
  }
  return best!;
}

/** java.lang.String.hashCode over UTF-16 code units. */
export function javaStringHashCode(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0;
  return h;
}

/** scala.collection.Hashing.improve (Scala 2.13), applied by immutable.HashMap to key.## */
export function scalaImproveHash(hcode: number): number {
  let h = (hcode + ~(hcode << 9)) | 0;
  h ^= h >>> 14;
  h = (h + (h << 4)) | 0;
  return h ^ (h >>> 10);
}

/**
 * Iteration order of a Scala 2.13 immutable.HashMap (a CHAMP trie) holding these String keys.
 * Each trie level consumes 5 hash bits, least significant first. A node yields its own entries
 * (keys alone in their 5-bit slot) in slot order, then its sub-nodes (slots shared by several keys)
 * in slot order, depth first. Keys with identical 32-bit hashes keep their input order.
 */
export function scalaHashMapOrder(keys: readonly string[]): string[] {
  const entries = keys.map((key) => ({ key, hash: scalaImproveHash(javaStringHashCode(key)) }));
  return champOrder(entries, 0).map((e) => e.key);
}

function champOrder<T extends { hash: number }>(entries: T[], shift: number): T[] {
  if (entries.length <= 1 || shift >= 32) return entries;
  const slots = new Map<number, T[]>();
  for (const e of entries) {
    const slot = (e.hash >>> shift) & 31;
    const list = slots.get(slot);
    if (list) list.push(e);
    else slots.set(slot, [e]);
  }
  const ordered = [...slots.keys()].sort((a, b) => a - b);
  const payload: T[] = [];
  const subNodes: T[] = [];
  for (const slot of ordered) {
    const list = slots.get(slot)!;
    if (list.length === 1) payload.push(list[0]!);
    else subNodes.push(...champOrder(list, shift + 5));
  }
  return [...payload, ...subNodes];
}
