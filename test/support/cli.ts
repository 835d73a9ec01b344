// Runs the kmock CLI in-process with a fake io: no subprocess, captured stdout/stderr.
import { main } from '../../src/cli/main.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runCli(argv: string[], stdin = ''): Promise<CliResult> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, {
    stdout: (s) => out.push(s),
    stderr: (s) => err.push(s),
    readStdin: async () => stdin,
  });
  return { code, stdout: out.join(''), stderr: err.join('') };
}
