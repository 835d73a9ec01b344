// The `kmock` command line: dispatches to the sub-commands.
import { codecCommand, UsageError, type Io } from './codec.js';
import { adminCommand } from './admin.js';
import { startCommand } from './start.js';

const USAGE = `kmock: a Kafka mock broker and wire-protocol codec

usage:
  kmock start [--host H] [--port P] [--config FILE] [--set KEY=VALUE]... [--policy TEXT]... [--trace] [--admin-port P]
                                             (kmock start --help lists every option and the policies)
  kmock admin [--url http://127.0.0.1:PORT] COMMAND ...   (kmock admin --help lists the commands)
  kmock codec decode [--response --api-key K --api-version V] HEX|-
  kmock codec encode [--response] < frame.json`;

export function processIo(): Io {
  return {
    stdout: (s) => process.stdout.write(s),
    stderr: (s) => process.stderr.write(s),
    readStdin: async () => {
      const chunks: Buffer[] = [];
      for await (const c of process.stdin) chunks.push(c as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    },
  };
}

/** Runs one command; resolves to the exit code. Errors print one line on stderr. */
export async function main(argv: string[], io: Io = processIo()): Promise<number> {
  const [cmd, ...rest] = argv;
  try {
    switch (cmd) {
      case 'start':
        return await startCommand(rest, io);
      case 'codec':
        return await codecCommand(rest, io);
      case 'admin':
        return await adminCommand(rest, io);
      case undefined:
      case '-h':
      case '--help':
      case 'help':
        io.stdout(USAGE + '\n');
        return cmd === undefined ? 2 : 0;
      default:
        throw new UsageError(`unknown command "${cmd}" (kmock --help lists the commands)`);
    }
  } catch (e) {
    const msg = (e as Error).message ?? String(e);
    io.stderr(`kmock: ${msg.split('\n')[0]}\n`);
    return 2;
  }
}
