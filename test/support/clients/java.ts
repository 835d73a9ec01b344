// Java kafka-clients programs for the broker tests (e.g. ClockConsumer.java), built on the client
// matrix's machinery: test/conformance/clients/java/build.sh VERSION fetches the kafka-clients
// jars (scripts/kafka-reference, Maven, cached under $KMOCK_CACHE), builds the matrix app and its
// class-data archive, and prints the java command that runs it. That command's JVM options and
// classpath are reused here as they are: the program is compiled against that classpath and its
// jar appended to it (the archive, dumped for the classpath before it, still applies), and only
// the logging config is swapped for one that also lets the group coordinator's INFO lines through
// (stderr), so that a test can read the client's own account of what happened to its member.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { run } from './processes.js';

export type JavaProgram = { argv: string[]; version: string } | { unavailable: string } | { failed: string };

/** The matrix's build script (exit 3: no JDK, or Maven cannot supply the version). */
const MATRIX_BUILD = fileURLToPath(new URL('../../conformance/clients/java/build.sh', import.meta.url));

/** The client's loggers that say what happens to the member (joins, heartbeat errors, losses). */
const COORDINATOR_LOGGERS = ['org.apache.kafka.clients.consumer.internals.ConsumerCoordinator', 'org.apache.kafka.clients.consumer.internals.AbstractCoordinator'];

/**
 * Compiles `source` (a .java file next to this module, class = file name) against kafka-clients
 * `version` and returns the command that runs it (append its arguments). Cached: compiled again
 * only when the source or the classpath changed.
 */
export async function buildJavaProgram(source: string, version: string): Promise<JavaProgram> {
  const className = source.replace(/\.java$/, '');
  const src = fileURLToPath(new URL(`./${source}`, import.meta.url));
  let matrix;
  try {
    // The first run can fetch the jars through Maven: minutes, not seconds.
    matrix = await run('bash', [MATRIX_BUILD, version], { timeoutMs: 600_000 });
  } catch (e) {
    return { failed: `java/build.sh ${version}: ${(e as Error).message}` };
  }
  const why = matrix.stderr.trim().split('\n').slice(-3).join(' / ');
  if (matrix.code === 3) return { unavailable: `Java kafka-clients ${version} unavailable (${why})` };
  const line = matrix.stdout.trim().split('\n').pop() ?? '';
  if (matrix.code !== 0 || line === '') return { failed: `java/build.sh ${version} exited ${matrix.code}: ${why}` };

  // "<java> <jvm options...> -cp <classpath> MatrixApp" (build.sh prints it space-separated).
  const tokens = line.split(/\s+/);
  const cpAt = tokens.indexOf('-cp');
  if (cpAt < 1 || cpAt + 3 !== tokens.length || tokens[tokens.length - 1] !== 'MatrixApp') {
    return { failed: `unexpected java/build.sh output: ${line}` };
  }
  const [java, ...jvm] = tokens.slice(0, cpAt);
  const classpath = tokens[cpAt + 1]!;

  const out = join(process.env.KMOCK_CACHE ?? join(homedir(), '.cache', 'kmock'), 'clients', `java-${version}`);
  mkdirSync(out, { recursive: true });
  const jar = join(out, `${className}.jar`);
  const stampFile = join(out, `${className}.stamp`);
  const stamp = createHash('sha256').update(readFileSync(src)).update('\0').update(classpath).update('\0').update(java!).digest('hex');
  if (!(existsSync(jar) && existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp)) {
    const tmp = join(out, `${className}.tmp-${process.pid}`);
    rmSync(tmp, { recursive: true, force: true });
    mkdirSync(tmp, { recursive: true });
    try {
      const javac = await run('javac', ['--release', '17', '-nowarn', '-encoding', 'UTF-8', '-cp', classpath, '-d', join(tmp, 'classes'), src], { timeoutMs: 180_000 });
      if (javac.code !== 0) return { failed: `javac ${source} failed: ${(javac.stderr + javac.stdout).slice(-3000)}` };
      const packed = await run('jar', ['--create', '--file', join(tmp, 'app.jar'), '-C', join(tmp, 'classes'), '.'], { timeoutMs: 60_000 });
      if (packed.code !== 0) return { failed: `jar failed: ${packed.stderr.slice(-2000)}` };
      renameSync(join(tmp, 'app.jar'), jar); // atomic: a concurrent build writes the same bytes
      writeFileSync(stampFile, stamp);
    } catch (e) {
      return { failed: `building ${source}: ${(e as Error).message}` };
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }

  // Logging: the matrix's config (WARN and above, stderr) plus the coordinator at INFO.
  const log4j2 = join(out, 'log4j2.properties');
  const reload4j = join(out, 'log4j.properties');
  writeIfChanged(
    log4j2,
    [
      '# log4j2 (kafka-clients 4.x): WARN, and the group coordinator at INFO, to stderr. Written by test/support/clients/java.ts.',
      'status = warn',
      'appender.stderr.type = Console',
      'appender.stderr.name = stderr',
      'appender.stderr.target = SYSTEM_ERR',
      'appender.stderr.layout.type = PatternLayout',
      'appender.stderr.layout.pattern = [%d] %p %m (%c)%n',
      'rootLogger.level = warn',
      'rootLogger.appenderRef.stderr.ref = stderr',
      ...COORDINATOR_LOGGERS.flatMap((name, i) => [`logger.c${i}.name = ${name}`, `logger.c${i}.level = info`]),
    ].join('\n') + '\n',
  );
  writeIfChanged(
    reload4j,
    [
      '# reload4j (kafka-clients 3.x): WARN, and the group coordinator at INFO, to stderr. Written by test/support/clients/java.ts.',
      'log4j.rootLogger=WARN, stderr',
      'log4j.appender.stderr=org.apache.log4j.ConsoleAppender',
      'log4j.appender.stderr.Target=System.err',
      'log4j.appender.stderr.layout=org.apache.log4j.PatternLayout',
      'log4j.appender.stderr.layout.ConversionPattern=[%d] %p %m (%c)%n',
      ...COORDINATOR_LOGGERS.map((name) => `log4j.logger.${name}=INFO`),
    ].join('\n') + '\n',
  );
  const options = jvm.map((o) =>
    o.startsWith('-Dlog4j2.configurationFile=') ? `-Dlog4j2.configurationFile=${log4j2}` : o.startsWith('-Dlog4j.configuration=') ? `-Dlog4j.configuration=file:${reload4j}` : o,
  );
  return { argv: [java!, ...options, '-cp', `${classpath}:${jar}`, className], version };
}

function writeIfChanged(file: string, text: string): void {
  if (existsSync(file) && readFileSync(file, 'utf8') === text) return;
  const tmp = `${file}.tmp-${process.pid}`;
  writeFileSync(tmp, text);
  renameSync(tmp, file);
}
