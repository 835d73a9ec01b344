// Deliberately broken kmocks, to prove the conformance gate fails when kmock is wrong. A mutation
// is a proxy in front of a real kmock that rewrites one kind of answer (decoded with kmock's
// codec, changed, encoded again); kmock itself is untouched, so the gate check needs no special
// build. main.ts plays each mutation's scenario against the mutated kmock and the reference and
// counts the check as passed only if the scenario fails at the mutated field.
//
// A clock mutation (CLOCK_MUTATIONS) breaks a manual-clock kmock's clock instead, the way a bug in
// time/broker-clock.ts would (the broker's clock object is patched in place, nothing in src/
// changes); its check plays a scenario's "[manual clock]" variant (suite.ts clockVariant), which
// must fail at the named field.
import { createServer, connect, type Server, type Socket } from 'node:net';
import { decodeResponse, encodeResponse, peekRequestHeader, type ApiTypes } from '../../../src/codec/index.js';
import { startKmock, type Kmock } from '../../../src/broker/server.js';
import type { Settings } from '../runner.js';
import { kmockOptions, type TargetProvider } from '../suite.js';
import { manualClockKmockProvider, TICK_MS } from './manual-clock.js';

export interface Mutation {
  id: string;
  /** What the broken kmock does wrong. */
  describe: string;
  apiKey: keyof ApiTypes;
  /** Versions of the answer that are changed (inclusive). */
  minVersion: number;
  mutate(body: any): void;
  /** The scenario that must fail, and the field path its failure must name. */
  scenario: string;
  path: RegExp;
}

export const MUTATIONS: Mutation[] = [
  {
    id: 'fetch-v12-records-null',
    describe: 'every Fetch answer at v12+ carries records: null',
    apiKey: 1,
    minVersion: 12,
    mutate: (b: ApiTypes[1]['response']) => {
      for (const t of b.responses) for (const p of t.partitions) p.records = null;
    },
    scenario: 'testFetchSessions',
    path: /\.records$/,
  },
  {
    id: 'api-versions-no-features',
    describe: 'ApiVersions sends no supported features',
    apiKey: 18,
    minVersion: 3,
    mutate: (b: ApiTypes[18]['response']) => {
      b.supportedFeatures = [];
    },
    scenario: 'testApiVersionsNegotiation',
    path: /supportedFeatures/,
  },
];

export interface ClockMutation {
  id: string;
  /** What the broken clock does wrong. */
  describe: string;
  /** Breaks the clock of a kmock started with `clock: 'manual'`, before it serves anything. */
  break(k: Kmock): void;
  /** The scenario whose "[manual clock]" variant must fail, and the field path its failure must name. */
  scenario: string;
  path: RegExp;
}

/**
 * Moves at least this long are a test's jumps (a wait step); the real-time follower's moves
 * (support/manual-clock.ts) are a tick or a few, so the broken clock below still follows real time
 * and only its jumps go wrong: the variant must catch the jump itself.
 */
const JUMP_MS = 10 * TICK_MS;

export const CLOCK_MUTATIONS: ClockMutation[] = [
  {
    id: 'clock-advance-leaves-now-behind',
    describe: `clock.advance(ms) (${JUMP_MS} ms or more) fires the timers that fall due but leaves now() where it was`,
    break(k) {
      const clock = k.broker.clock;
      // In manual mode now() is the clock's anchor; the bug is an advance that forgets to move it.
      const internals = clock as unknown as { anchorClock: unknown };
      if (typeof internals.anchorClock !== 'number') throw new Error('BrokerClock has no anchorClock any more: update the clock-advance-leaves-now-behind mutation');
      const advance = clock.advance.bind(clock);
      clock.advance = (ms) => {
        if (ms < JUMP_MS) return advance(ms);
        const at = clock.now();
        const r = advance(ms);
        (internals as { anchorClock: number }).anchorClock -= clock.now() - at;
        return r;
      };
    },
    // The initial delay's extension (due 300 ms after the first join) fires during the jumps on
    // Kafka's timeline; on a clock the lost jumps (25 + 100 + 100 ms) left behind it is still
    // ahead at the final collects (10 ms each): answers on Kafka, no-response here.
    scenario: 'shouldDelayRebalanceUptoRebalanceTimeout',
    path: /^kind$/,
  },
];

/** A manual-clock kmock (support/manual-clock.ts) whose clock `m` breaks. */
export function brokenClockKmockProvider(m: ClockMutation, name = `kmock[manual clock]+${m.id}`): TargetProvider {
  return manualClockKmockProvider(name, (k) => m.break(k));
}

/** Frames out of a byte stream: each whole size-prefixed frame (prefix excluded) as it completes. */
function framer(onFrame: (frame: Buffer) => void): (chunk: Buffer) => void {
  let buf: Buffer = Buffer.alloc(0);
  return (chunk) => {
    buf = buf.length === 0 ? chunk : Buffer.concat([buf, chunk]);
    while (buf.length >= 4) {
      const size = buf.readInt32BE(0);
      if (buf.length < 4 + size) break;
      onFrame(buf.subarray(4, 4 + size));
      buf = buf.subarray(4 + size);
    }
  };
}

function withPrefix(frame: Buffer): Buffer {
  const out = Buffer.allocUnsafe(4 + frame.length);
  out.writeInt32BE(frame.length, 0);
  frame.copy(out, 4);
  return out;
}

/** A kmock behind a proxy that applies `m` to its answers (and advertises the proxy's port). */
export function mutatedKmockProvider(m: Mutation, name = `kmock+${m.id}`): TargetProvider {
  return {
    name,
    kind: 'kmock',
    async start(settings: Settings) {
      const sockets = new Set<Socket>();
      let upstream = '';
      const proxy: Server = createServer((client) => {
        const i = upstream.lastIndexOf(':');
        const server = connect({ host: upstream.slice(0, i), port: Number(upstream.slice(i + 1)) });
        sockets.add(client).add(server);
        const asked = new Map<number, { apiKey: number; apiVersion: number }>();
        client.on(
          'data',
          framer((frame) => {
            const h = peekRequestHeader(frame);
            asked.set(h.correlationId, { apiKey: h.apiKey, apiVersion: h.apiVersion });
            server.write(withPrefix(frame));
          }),
        );
        server.on(
          'data',
          framer((frame) => {
            const req = asked.get(frame.readInt32BE(0));
            if (req !== undefined && req.apiKey === m.apiKey && req.apiVersion >= m.minVersion) {
              try {
                const d = decodeResponse(frame, req.apiKey, req.apiVersion);
                m.mutate(d.body);
                client.write(encodeResponse(m.apiKey, req.apiVersion, d.correlationId, d.body as never));
                return;
              } catch {
                // Not decodable at that version (e.g. ApiVersions' v0 error layout): as it came.
              }
            }
            client.write(withPrefix(frame));
          }),
        );
        const end = () => {
          client.destroy();
          server.destroy();
        };
        client.on('close', end).on('error', end);
        server.on('close', end).on('error', end);
      });
      await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
      const port = (proxy.address() as { port: number }).port;
      const k = await startKmock({ ...kmockOptions(settings).options, advertisedPort: port });
      upstream = `${k.host}:${k.port}`;
      return {
        target: { name, bootstrapServers: `127.0.0.1:${port}`, nodeId: k.broker.config.nodeId },
        async stop() {
          for (const s of sockets) s.destroy();
          await new Promise<void>((resolve) => proxy.close(() => resolve()));
          await k.close();
        },
      };
    },
  };
}
