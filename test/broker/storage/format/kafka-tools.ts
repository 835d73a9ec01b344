// Kafka 3.9.1's own readers for the storage-format tests: kafka.tools.DumpLogSegments
// (kafka-dump-log.sh) and KafkaFormatReader.java (Kafka's checkpoint, partition.metadata,
// meta.properties and clean-shutdown readers), both run from the jars scripts/kafka-reference
// caches (found as test/broker/clients/kafka-transactions-tool.test.ts finds them). On CI
// (CI=true or KMOCK_REFERENCE=require) missing jars are an error, elsewhere the tests skip.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { fetchReference } from '../../../conformance/support/reference.js';
import { run } from '../../../support/clients/processes.js';

export const KAFKA_VERSION = '3.9.1';

export async function kafkaLibs(): Promise<string | undefined> {
  const found = await fetchReference(KAFKA_VERSION);
  const libs = found.reason === undefined ? found.libs : undefined;
  const required = process.env.CI === 'true' || process.env.KMOCK_REFERENCE === 'require';
  if (libs === undefined && required) throw new Error(`Kafka ${KAFKA_VERSION}'s jars are required here: ${found.reason}`);
  return libs;
}

/**
 * Why KafkaFormatReader.java cannot run here (Java's source-file mode needs a JDK's compiler), or
 * undefined. On CI a missing JDK is an error (.ci/run installs openjdk-17-jdk-headless).
 */
export function jdkMissing(): string | undefined {
  const r = spawnSync('javac', ['-version'], { encoding: 'utf8' });
  if (r.status === 0) return undefined;
  const why = 'javac is not on PATH (a JDK is needed to run KafkaFormatReader.java; Debian: openjdk-17-jdk-headless)';
  if (process.env.CI === 'true' || process.env.KMOCK_REFERENCE === 'require') throw new Error(why);
  return why;
}

const JVM = ['-Xshare:auto', '-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC', '-Dlog4j.configuration=file:/dev/null'];

/** kafka-dump-log.sh --files f1,f2,... plus `flags`; stdout and stderr (log4j's warnings dropped). */
export async function dumpLogSegments(libs: string, files: readonly string[], flags: readonly string[] = []): Promise<{ stdout: string; stderr: string }> {
  const r = await run('java', [...JVM, '-cp', `${libs}/*`, 'kafka.tools.DumpLogSegments', ...flags, '--files', files.join(',')], { timeoutMs: 120_000 });
  if (r.code !== 0) throw new Error(`DumpLogSegments exited ${r.code}: ${r.stderr.slice(-3000)}`);
  return { stdout: r.stdout, stderr: withoutLog4j(r.stderr) };
}

/** KafkaFormatReader.java on a log dir and one of its partition folders: its "kind k=v ..." lines. */
export async function kafkaFormatReader(libs: string, logDir: string, partitionDir: string): Promise<string[]> {
  const source = fileURLToPath(new URL('./KafkaFormatReader.java', import.meta.url));
  const r = await run('java', [...JVM, '-cp', `${libs}/*`, source, logDir, partitionDir], { timeoutMs: 180_000 });
  if (r.code !== 0) throw new Error(`KafkaFormatReader exited ${r.code}: ${r.stderr.slice(-3000)}${r.stdout.slice(-2000)}`);
  return r.stdout.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('log4j:'));
}

function withoutLog4j(s: string): string {
  return s
    .split('\n')
    .filter((l) => !l.startsWith('log4j:') && !l.startsWith('SLF4J') && l.trim() !== '')
    .join('\n');
}

/** DumpLogSegments' output cut at its "Dumping <path>" lines: the path as given -> the lines after it. */
export function dumpSections(stdout: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const line of stdout.split('\n')) {
    const m = /^Dumping (.+)$/.exec(line);
    if (m !== null) {
      current = [];
      out.set(m[1], current);
    } else if (current !== undefined && line.trim() !== '' && !line.startsWith('log4j:')) current.push(line);
  }
  return out;
}

/** "a: 1 b: x" -> { a: '1', b: 'x' } (DumpLogSegments prints "name: value" pairs; the last value may hold spaces). */
export function fieldsOf(line: string): Record<string, string> {
  const out: Record<string, string> = {};
  const re = /(\w+): (\S+)/g;
  for (let m = re.exec(line); m !== null; m = re.exec(line)) out[m[1]] ??= m[2];
  return out;
}

/** KafkaFormatReader's "kind k=v k=v" lines of one kind, as records. */
export function readerLines(lines: readonly string[], kind: string): Record<string, string>[] {
  return lines
    .filter((l) => l.startsWith(`${kind} `))
    .map((l) => Object.fromEntries(l.slice(kind.length + 1).split(' ').map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)])));
}
