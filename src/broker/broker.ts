// The broker: settings, the topic store, the group coordinator, the API handlers and the open
// connections. It owns no socket of its own; server.ts accepts connections and hands them here.
import type { Socket } from 'node:net';
import pino, { type Logger } from 'pino';
import type { ApiVersionsResponse } from '../codec/index.js';
import type { BrokerConfig } from './config.js';
import { Connection } from './connection.js';
import { HANDLERS } from './handlers/index.js';
import type { ApiHandler } from './handlers/types.js';
import { TopicStore } from './log/topics.js';
import { FetchWaiters } from './log/fetch-waiters.js';
import { GroupCoordinator, isPolicyEvent, type GroupEvent } from './group/index.js';

export interface BrokerStats {
  connectionsOpened: number;
  requests: number;
}

export class Broker {
  readonly handlers = new Map<number, ApiHandler>();
  readonly topics = new TopicStore();
  readonly fetchWaiters = new FetchWaiters();
  readonly connections = new Set<Connection>();
  readonly stats: BrokerStats = { connectionsOpened: 0, requests: 0 };
  readonly log: Logger;
  /** The classic group coordinator (a pure state machine; timers are real here). */
  readonly groups: GroupCoordinator;
  /** Listeners of group events (the control plane and tests subscribe here). */
  readonly groupEventListeners = new Set<(e: GroupEvent) => void>();
  /** Where Metadata and FindCoordinator tell clients to connect. */
  advertisedHost: string;
  advertisedPort: number;
  private nextConnectionId = 1;

  constructor(
    readonly config: BrokerConfig,
    logger?: Logger,
  ) {
    this.log = logger ?? pino({ level: config.logLevel, base: undefined });
    for (const h of HANDLERS) this.handlers.set(h.apiKey, h as ApiHandler);
    this.groups = new GroupCoordinator({
      groupMinSessionTimeoutMs: config.groupMinSessionTimeoutMs,
      groupMaxSessionTimeoutMs: config.groupMaxSessionTimeoutMs,
      groupMaxSize: config.groupMaxSize,
      groupInitialRebalanceDelayMs: config.groupInitialRebalanceDelayMs,
      offsetsRetentionMs: config.offsetsRetentionMinutes * 60_000,
      policies: config.policies,
      onEvent: (e) => this.onGroupEvent(e),
    });
    this.advertisedHost = config.advertisedHost ?? config.host;
    this.advertisedPort = config.advertisedPort ?? config.port;
  }

  /** The ApiVersions list: exactly the APIs with a handler, at the versions they serve. */
  advertisedApis(): ApiVersionsResponse.ApiVersion[] {
    return [...this.handlers.values()]
      .sort((a, b) => a.apiKey - b.apiKey)
      .map((h) => ({ apiKey: h.apiKey, minVersion: h.minVersion, maxVersion: h.maxVersion }));
  }

  accept(socket: Socket): Connection {
    const c = new Connection(this, socket, this.nextConnectionId++);
    this.connections.add(c);
    this.stats.connectionsOpened++;
    this.log.debug({ connection: c.info.id, host: c.info.clientHost, port: c.info.clientPort }, 'connection opened');
    return c;
  }

  onConnectionClosed(c: Connection, why: string): void {
    this.connections.delete(c);
    this.log.debug({ connection: c.info.id, why }, 'connection closed');
  }

  traceLine(line: Record<string, unknown>): void {
    this.log.info(line, 'trace');
  }

  /** Stops timers and closes every connection; the server stops accepting in server.ts. */
  shutdown(): void {
    this.groups.close();
    this.closeConnections();
  }

  private onGroupEvent(e: GroupEvent): void {
    if (this.log.isLevelEnabled('debug') || e.type === 'rebalance-started' || e.type === 'member-fenced' || isPolicyEvent(e)) {
      this.log.info({ group: e }, 'group event');
    }
    for (const l of this.groupEventListeners) l(e);
  }

  /** Closes every client connection (shutdown, or the control plane's "drop connections"). */
  closeConnections(filter: (c: Connection) => boolean = () => true): number {
    let n = 0;
    for (const c of [...this.connections]) {
      if (filter(c)) {
        c.close('closed by broker');
        n++;
      }
    }
    return n;
  }
}
