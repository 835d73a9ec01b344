// The broker-wide bound on the bytes of requests being read (KIP-72, `queued.max.request.bytes`):
// Kafka 3.9's SimpleMemoryPool (clients/src/main/java/org/apache/kafka/common/memory/
// SimpleMemoryPool.java, MemoryPool.java), which SocketServer.scala builds once for all its
// processors, plus the waiting line of connections that kmock keeps instead of Selector's
// "unmute every memory-muted channel and let them race" (network/Selector.java, poll).
//
// What a frame does with it (connection.ts): its 4-byte size is read first, then its payload's
// bytes are taken from the pool (NetworkReceive.readFrom -> memoryPool.tryAllocate); a connection
// the pool refuses stops reading (KafkaChannel.read mutes the channel when the size is known and
// the memory is not) and waits here; a connection that got its bytes always finishes its frame
// (KafkaChannel.isInMutableState: a receive whose memory is allocated is never muted), so a
// partial frame cannot be what blocks its own completion. The bytes are released once the request
// has been handled (KafkaRequestHandler: `finally request.releaseBuffer()` after `apis.handle`).
import type { Logger } from 'pino';

/** A connection waiting for `bytes` (it is told by `granted`, with the bytes already taken for it). */
export interface MemoryWaiter {
  readonly bytes: number;
  granted(): void;
}

/** The pool's counters, for the control plane and tests (`kmock.broker.requestMemory.view()`). */
export interface MemoryPoolView {
  /** queued.max.request.bytes; null when unbounded (-1, Kafka's MemoryPool.NONE). */
  size: number | null;
  /** Bytes taken by frames being read, queued or handled now. */
  used: number;
  /** The most `used` has been (non-strict: may pass `size` by less than one frame, see tryAllocate). */
  peakUsed: number;
  /** Connections whose reading is paused now, waiting for memory. */
  pausedConnections: number;
  /** How many times a connection was paused for memory, since the broker started. */
  pauses: number;
  /** Frames whose bytes were taken from the pool, since the broker started. */
  allocations: number;
}

/** Why the pool's waiting line changed: the first connection paused, or the last one resumed. */
export type PressureEvent = { type: 'paused'; view: MemoryPoolView } | { type: 'resumed'; view: MemoryPoolView };

export class MemoryPool {
  /** Infinity when unbounded. */
  readonly size: number;
  /** Bytes taken and not yet released (available = size - used; Infinity - x stays Infinity). */
  private usedBytes = 0;
  private peak = 0;
  private pauseCount = 0;
  private allocationCount = 0;
  /** In the order they were refused: memory goes to the longest waiting first. */
  private readonly waiters: MemoryWaiter[] = [];
  /** Told when the first connection is paused and when the last one resumes (not per frame). */
  onPressure: ((e: PressureEvent) => void) | undefined;

  /**
   * `sizeBytes` <= 0 is unbounded, as SocketServer uses MemoryPool.NONE unless
   * `queued.max.request.bytes > 0`; the bytes are still counted (`used`), never refused.
   * `strict` is SimpleMemoryPool's flag: false (what SocketServer passes) lets an allocation
   * through whenever any memory is left, true only when all of it is.
   */
  constructor(
    sizeBytes: number,
    private readonly maxSingleAllocationBytes: number = Number.MAX_SAFE_INTEGER,
    private readonly strict = false,
  ) {
    // SimpleMemoryPool's constructor refuses a maximum single allocation above the pool's size,
    // and KafkaConfig requires queued.max.request.bytes >= socket.request.max.bytes so that it never
    // is. kmock does not refuse such a setting here: with the non-strict rule below a frame larger
    // than the whole pool is still read, once nothing else holds the pool's last byte.
    this.size = sizeBytes > 0 ? sizeBytes : Infinity;
  }

  get bounded(): boolean {
    return this.size !== Infinity;
  }

  /** Bytes left; negative after a non-strict allocation went past the size (MemoryPool.availableMemory). */
  get available(): number {
    return this.size - this.usedBytes;
  }

  get used(): number {
    return this.usedBytes;
  }

  /** MemoryPool.isOutOfMemory: nothing left to give. */
  get isOutOfMemory(): boolean {
    return this.available <= 0;
  }

  get pausedConnections(): number {
    return this.waiters.length;
  }

  /**
   * SimpleMemoryPool.tryAllocate: takes `bytes` and answers true, or false when the pool cannot
   * give them. Non-strict (Kafka's broker), any memory left is enough: `available >= 1`, so the
   * pool's use can pass its size by at most one frame less a byte (`size + maxSingle - 1`), and
   * a frame larger than the whole pool is not refused forever. kmock adds one rule for fairness:
   * while connections wait, a newcomer does not go before them (non-strict, a waiter exists only
   * while nothing is left, so this changes nothing there; strict, it keeps a large frame from
   * being overtaken forever by small ones).
   */
  tryAllocate(bytes: number): boolean {
    if (!(bytes >= 1)) throw new RangeError(`requested size ${bytes} <= 0`);
    if (bytes > this.maxSingleAllocationBytes) {
      throw new RangeError(`requested size ${bytes} is larger than the largest single allocation ${this.maxSingleAllocationBytes}`);
    }
    if (this.waiters.length > 0 || !this.canGive(bytes)) return false;
    this.take(bytes);
    return true;
  }

  /** SimpleMemoryPool.release, then memory for those waiting, the longest waiting first. */
  release(bytes: number): void {
    if (bytes <= 0) return;
    if (bytes > this.usedBytes) {
      // A release of bytes never taken: a kmock bug, but the pool must not grow past its size.
      this.usedBytes = 0;
      throw new RangeError(`released ${bytes} bytes more than were taken`);
    }
    this.usedBytes -= bytes;
    this.grantWaiters();
  }

  /** Joins the line after `tryAllocate` refused `waiter.bytes`. */
  wait(waiter: MemoryWaiter): void {
    this.waiters.push(waiter);
    this.pauseCount++;
    if (this.waiters.length === 1) this.onPressure?.({ type: 'paused', view: this.view() });
    // A strict pool may refuse with memory left and nothing to release it later: try at once.
    this.grantWaiters();
  }

  /** Leaves the line (the connection closed while waiting); false when it was not in it. */
  cancel(waiter: MemoryWaiter): boolean {
    const i = this.waiters.indexOf(waiter);
    if (i < 0) return false;
    this.waiters.splice(i, 1);
    if (this.waiters.length === 0) this.onPressure?.({ type: 'resumed', view: this.view() });
    else if (i === 0) this.grantWaiters();
    return true;
  }

  view(): MemoryPoolView {
    return {
      size: this.bounded ? this.size : null,
      used: this.used,
      peakUsed: this.peak,
      pausedConnections: this.waiters.length,
      pauses: this.pauseCount,
      allocations: this.allocationCount,
    };
  }

  private canGive(bytes: number): boolean {
    return this.available >= (this.strict ? bytes : 1);
  }

  private take(bytes: number): void {
    this.usedBytes += bytes;
    this.allocationCount++;
    if (this.usedBytes > this.peak) this.peak = this.usedBytes;
  }

  /**
   * Kafka's Selector.poll unmutes every channel muted for memory once the pool is no longer out of
   * memory, and they race for it in selection order (shuffled when memory is low, against
   * starvation: determineHandlingOrder). kmock gives it in the order the connections were
   * refused, taking each one's bytes for it before telling it: the same rule, in a fair order.
   */
  private grantWaiters(): void {
    if (this.waiters.length === 0) return;
    while (this.waiters.length > 0 && this.canGive(this.waiters[0].bytes)) {
      const w = this.waiters.shift()!;
      this.take(w.bytes);
      w.granted();
    }
    if (this.waiters.length === 0) this.onPressure?.({ type: 'resumed', view: this.view() });
  }
}

/** At most one "paused" line (and its "resumed" line) per this many ms; the others are counted. */
export const PRESSURE_LOG_INTERVAL_MS = 10_000;

/**
 * The broker's pool for `queued.max.request.bytes` (one for all connections, as SocketServer's),
 * logging when reading first pauses for memory and when it resumes: one line each per episode, at
 * most one episode's lines per PRESSURE_LOG_INTERVAL_MS, the next logged one counting those left
 * out. (Kafka logs these at trace level only: "Broker low on memory" in NetworkReceive, "Broker no
 * longer low on memory - unmuting incoming sockets" in Selector.)
 */
export function requestMemoryPool(
  config: { queuedMaxRequestBytes: number; socketRequestMaxBytes: number },
  log: Logger,
  now: () => number,
): MemoryPool {
  const pool = new MemoryPool(config.queuedMaxRequestBytes, config.socketRequestMaxBytes);
  let lastLoggedAt = -Infinity;
  let episodeLogged = false;
  let episodeStart = 0;
  let episodePauses = 0;
  let unlogged = 0;
  pool.onPressure = (e) => {
    if (e.type === 'paused') {
      episodeStart = now();
      episodePauses = e.view.pauses;
      episodeLogged = episodeStart - lastLoggedAt >= PRESSURE_LOG_INTERVAL_MS;
      if (!episodeLogged) {
        unlogged++;
        return;
      }
      lastLoggedAt = episodeStart;
      log.info(
        { requestMemory: { used: e.view.used, size: e.view.size, earlierPausesNotLogged: unlogged } },
        'request memory full (queued.max.request.bytes): pausing reads until requests are handled',
      );
      unlogged = 0;
    } else if (episodeLogged) {
      episodeLogged = false;
      log.info(
        { requestMemory: { used: e.view.used, size: e.view.size, pausedMs: now() - episodeStart, connectionsPaused: e.view.pauses - episodePauses + 1 } },
        'request memory freed: reads resumed',
      );
    }
  };
  return pool;
}
