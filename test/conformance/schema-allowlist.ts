// Differences from Apache Kafka 3.9's message specs that kmock keeps on purpose, each with the
// reason. test/conformance/schema.test.ts fails on any other difference in a version kmock serves,
// and on an entry here that no longer matches anything (so the list cannot go stale).
export interface AllowedDifference {
  /** Spec file name, e.g. "FetchRequest.json". */
  file: string;
  /** Field path by spec names ("Topics.Partitions.Foo"), or "(message)". */
  path: string;
  /** The property compared: present, type, nullable, tagged, tag, default, ignorable, mapKey,
   *  flexibleVersions, struct, field order, validVersions, name, apiKey. */
  property: string;
  reason: string;
}

export const ALLOWED_DIFFERENCES: AllowedDifference[] = [];
