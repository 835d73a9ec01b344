// The iteration order of the JVM collections Kafka's config code walks, where it decides which of
// several problems an answer names: java.util.HashMap and java.util.Properties (a
// ConcurrentHashMap inside) iterate their String keys by bucket, so "Unknown topic config name: yyy"
// is reported before zzz whatever order the request gave them in; and how a Scala Set prints
// ("Set(broker.id, log.dirs)"). Follows OpenJDK's String.hashCode, HashMap.hash/resize and
// ConcurrentHashMap.spread, and Scala 2.13's Set1..Set4 / HashSet toString.

/** String.hashCode: s[0]*31^(n-1) + ... + s[n-1], in 32-bit arithmetic over UTF-16 code units. */
export function javaStringHash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0;
  return h;
}

/** HashMap.hash / ConcurrentHashMap.spread (the sign bit only matters to the latter, not to a bucket index). */
function spread(h: number): number {
  return (h ^ (h >>> 16)) & 0x7fffffff;
}

/**
 * The table size a HashMap (default capacity 16, load factor 0.75) or a Properties /
 * ConcurrentHashMap(8) grows to while `n` distinct keys are put one by one: 16, doubled whenever
 * the count passes three quarters of it.
 */
function tableSize(n: number, initialCapacity = 16): number {
  // HashMap(initialCapacity): the first table is tableSizeFor(initialCapacity), a power of two.
  let cap = 1;
  while (cap < initialCapacity) cap *= 2;
  while (n > cap * 0.75) cap *= 2;
  return cap;
}

/**
 * The order a java.util.HashMap, HashSet or Properties iterates these (distinct) String keys in,
 * when they were put in the given order: by bucket, and within a bucket in insertion order (a
 * resize keeps that relative order). Exact below the size at which a bucket turns into a tree (8
 * keys in one bucket), far beyond what one request holds.
 */
export function javaHashOrder(keys: Iterable<string>, mapSize?: number, initialCapacity = 16): string[] {
  const list = [...new Set(keys)];
  // (mapSize: how many keys the map holds when only some of them are asked about;
  // initialCapacity: the map's `new HashMap<>(n)` argument.)
  const mask = tableSize(mapSize ?? list.length, initialCapacity) - 1;
  return list
    .map((k, i) => ({ k, i, b: spread(javaStringHash(k)) & mask }))
    .sort((x, y) => x.b - y.b || x.i - y.i)
    .map((x) => x.k);
}

/**
 * How Scala prints an immutable Set built from these names, in this order: `Set(a, b)` (Set1 to
 * Set4 keep the order they were built in). Larger sets are HashSets, printed `HashSet(...)` in
 * their trie's order, which kmock does not model: it keeps the given order.
 */
export function scalaSetString(names: readonly string[]): string {
  return `${names.length <= 4 ? 'Set' : 'HashSet'}(${names.join(', ')})`;
}

/** How Scala prints a mutable.HashSet (DynamicBrokerConfig's security-config check): `HashSet(a, b)`. */
export function scalaMutableSetString(names: readonly string[]): string {
  return `HashSet(${names.join(', ')})`;
}
