// The client matrix on its own (`npm run conformance` runs it too, after the scenarios):
//
//   tsx test/conformance/clients/main.ts [--clients kafkajs,java-3.9.1] [--kafka 3.9.1,4.4.0 | --no-reference]
//                                        [--out /tmp/matrix.md] [--transcripts] [--sasl-ssl]
//
// --sasl-ssl: the SASL_SSL pass instead (matrix.ts SASL_SSL_PASS: fewer steps, the apps on a
// SASL_SSL listener), against kmock and the first --kafka release.
//
// Exit code 1 when a comparison fails (matrix.ts's matrixFails): outcomes that differ unexplained,
// a step failed on both brokers, steps not run after a failure, or no reference Kafka (a version
// that could not start, or --no-reference: kmock's run is then shown but compared with nothing).
import { writeFile } from 'node:fs/promises';
import { CLIENT_APPS } from './apps.js';
import { matrixFails, renderMatrix, runMatrix, SASL_SSL_PASS, startMatrixBrokers, startSaslSslMatrixBrokers } from './matrix.js';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const only = arg('--clients')?.split(',');
const versions = process.argv.includes('--no-reference') ? [] : (arg('--kafka') ?? '3.9.1,4.4.0').split(',');
const apps = CLIENT_APPS.filter((a) => only === undefined || only.includes(a.id));
const sasl = process.argv.includes('--sasl-ssl');
if (sasl && versions.length === 0) throw new Error('--sasl-ssl wants a reference Kafka (--kafka VERSION)');
const { brokers, missing } = sasl ? await startSaslSslMatrixBrokers(versions[0]) : await startMatrixBrokers(versions);
try {
  console.log(`brokers: ${brokers.map((b) => `${b.name} ${b.bootstrap}`).join(', ')}${missing.map((m) => `; no Kafka ${m.version}: ${m.reason}`).join('')}`);
  const r = await runMatrix(apps, brokers, console.log, undefined, sasl ? SASL_SSL_PASS.steps : undefined);
  const md = renderMatrix({ ...r, brokers: brokers.map((b) => b.name), missing }, sasl ? SASL_SSL_PASS : undefined);
  if (arg('--out')) await writeFile(arg('--out')!, md);
  else console.log(md);
  if (process.argv.includes('--transcripts')) {
    for (const c of r.comparisons) console.log(`\n===== ${c.app.id} on kmock\n${c.kmockRun.transcript}\n===== ${c.app.id} on ${c.reference}\n${c.kafkaRun.transcript}`);
  }
  process.exitCode = r.comparisons.some((c) => matrixFails(c, false)) ? 1 : 0;
} finally {
  await Promise.all(brokers.map((b) => b.stop().catch(() => undefined)));
}
process.exit(process.exitCode ?? 0);
