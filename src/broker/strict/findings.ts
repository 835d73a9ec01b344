// The strict-clients recorder: one per broker (built in Broker's constructor, reached by the
// connections and handlers as `services.clientFindings`). While `enabled` is false nothing is
// checked: every check site reads this one boolean first and allocates nothing before it.
//
// Per kind it keeps a count and the first example (the request that caused it: API, version,
// correlation id, client id, connection, and a short detail), tells listeners of every finding
// (the control plane's events) and logs each one as a warn line.
import type { Logger } from 'pino';
import { systemClock, type Clock } from '../group/clock.js';
import { apiByKey } from '../../codec/index.js';
import type { ConnectionInfo } from '../connection.js';
import { FINDING_KIND_NAMES, FINDING_KINDS, type FindingKind } from './kinds.js';
import { GroupCheckState } from './group-state.js';

/** The request a finding is about: the header fields kmock could read. */
export interface FindingRequest {
  apiKey: number;
  apiVersion: number;
  correlationId: number;
  clientId?: string | null;
}

export interface FindingConnection {
  id: number;
  host: string;
  port: number;
  /** KIP-511's client software, once the connection sent ApiVersions v3+. */
  softwareName: string | null;
  softwareVersion: string | null;
}

export interface ClientFinding {
  kind: FindingKind;
  /** The broker clock's time when it was recorded (so deterministic runs repeat it). */
  at: number;
  /** The API's name ("Produce"), or "apiKey N" for a key kmock does not know. */
  api: string;
  apiKey: number;
  apiVersion: number;
  correlationId: number;
  clientId: string | null;
  connection: FindingConnection;
  /** What exactly was wrong, in one line. */
  detail: string;
}

export interface FindingKindSummary {
  kind: FindingKind;
  description: string;
  kafka: string;
  count: number;
  first: ClientFinding;
}

export interface FindingsSummary {
  /** Findings of every kind since the start (or the last reset). */
  total: number;
  /** Only the kinds found, in FINDING_KINDS' order. */
  kinds: FindingKindSummary[];
}

export type FindingListener = (finding: ClientFinding) => void;

export class ClientFindings {
  /** Strict-clients mode: checks run (and findings are recorded) only while this is true. */
  enabled: boolean;
  /** What the group checks remember between requests (checks.ts). */
  readonly groups = new GroupCheckState();
  private readonly counts = new Map<FindingKind, { count: number; first: ClientFinding }>();
  private readonly listeners = new Set<FindingListener>();

  constructor(
    enabled: boolean,
    private readonly log: Logger,
    private readonly clock: Clock = systemClock,
  ) {
    this.enabled = enabled;
  }

  /** Records one finding about `request` on `connection` (callers check `enabled` first). */
  record(kind: FindingKind, connection: ConnectionInfo, request: FindingRequest, detail: string): ClientFinding {
    const finding: ClientFinding = {
      kind,
      at: this.clock.now(),
      api: apiByKey(request.apiKey)?.name ?? `apiKey ${request.apiKey}`,
      apiKey: request.apiKey,
      apiVersion: request.apiVersion,
      correlationId: request.correlationId,
      clientId: request.clientId !== undefined ? request.clientId : (connection.clientId ?? null),
      connection: {
        id: connection.id,
        host: connection.clientHost,
        port: connection.clientPort,
        softwareName: connection.clientSoftwareName ?? null,
        softwareVersion: connection.clientSoftwareVersion ?? null,
      },
      detail,
    };
    const seen = this.counts.get(kind);
    if (seen === undefined) this.counts.set(kind, { count: 1, first: finding });
    else seen.count++;
    this.log.warn({ strictClients: finding }, `strict-clients: ${kind}`);
    for (const l of this.listeners) {
      // A failing listener must not disturb the request being handled.
      try {
        l(finding);
      } catch (err) {
        this.log.error({ err: String((err as Error)?.stack ?? err) }, 'strict-clients listener failed');
      }
    }
    return finding;
  }

  /** Calls `listener` with every finding from now on; returns the unsubscribe. */
  subscribe(listener: FindingListener): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  summary(): FindingsSummary {
    const kinds: FindingKindSummary[] = [];
    let total = 0;
    for (const kind of FINDING_KIND_NAMES) {
      const seen = this.counts.get(kind);
      if (seen === undefined) continue;
      total += seen.count;
      kinds.push({ kind, ...FINDING_KINDS[kind], count: seen.count, first: seen.first });
    }
    return { total, kinds };
  }

  /** Forgets the counts and examples (not what the group checks remember of live connections). */
  reset(): void {
    this.counts.clear();
  }

  /** One warn line per kind found (Broker.shutdown): nothing when there were none. */
  logSummary(): void {
    for (const k of this.summary().kinds) {
      this.log.warn({ kind: k.kind, count: k.count, first: k.first }, `strict-clients summary: ${k.kind} x${k.count}`);
    }
  }
}
