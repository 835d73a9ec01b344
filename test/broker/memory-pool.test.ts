// The request memory pool (src/broker/memory-pool.ts) against Kafka 3.9's SimpleMemoryPool rules
// (clients/.../common/memory/SimpleMemoryPool.java; the allocation checks of GarbageCollectedMemoryPoolTest)
// and kmock's waiting line.
import { describe, expect, it } from 'vitest';
import { MemoryPool, PRESSURE_LOG_INTERVAL_MS, requestMemoryPool, type MemoryWaiter, type PressureEvent } from '../../src/broker/memory-pool.js';
import { recordingLogger, type LogLine } from '../support/fuzz.js';

function waiter(bytes: number, log: string[], name: string): MemoryWaiter {
  return { bytes, granted: () => log.push(name) };
}

describe('SimpleMemoryPool rules', () => {
  it('non-strict: any memory left is enough, so use passes the size by less than one allocation', () => {
    // The threshold in SimpleMemoryPool.tryAllocate is 1 when not strict: 1 byte left lets a whole
    // allocation through, so 1000 + 999 is the most a 1000-byte pool holds.
    const pool = new MemoryPool(1000, 1000);
    expect(pool.tryAllocate(999)).toBe(true);
    expect(pool.available).toBe(1);
    expect(pool.tryAllocate(1000)).toBe(true); // 1 byte left was enough
    expect(pool.available).toBe(-999);
    expect(pool.isOutOfMemory).toBe(true);
    expect(pool.tryAllocate(1)).toBe(false);
    expect(pool.view().peakUsed).toBe(1999);
    pool.release(999);
    expect(pool.available).toBe(0);
    expect(pool.tryAllocate(1)).toBe(false); // available <= 0: out of memory
    pool.release(1000);
    expect(pool.available).toBe(1000);
    expect(pool.used).toBe(0);
  });

  it('strict: only when all the bytes are left', () => {
    const pool = new MemoryPool(1000, 1000, true);
    expect(pool.tryAllocate(600)).toBe(true);
    expect(pool.tryAllocate(500)).toBe(false);
    expect(pool.tryAllocate(400)).toBe(true);
    expect(pool.isOutOfMemory).toBe(true);
  });

  it('refuses sizes below 1 and above the largest single allocation (socket.request.max.bytes)', () => {
    const pool = new MemoryPool(1000, 500);
    expect(() => pool.tryAllocate(0)).toThrow(RangeError);
    expect(() => pool.tryAllocate(-1)).toThrow(RangeError);
    expect(() => pool.tryAllocate(501)).toThrow(RangeError);
  });

  it('a frame larger than the whole pool is given once nothing holds its last byte (kmock allows such a setting)', () => {
    const pool = new MemoryPool(100, 1000);
    expect(pool.tryAllocate(1000)).toBe(true);
    expect(pool.tryAllocate(1)).toBe(false);
    pool.release(1000);
    expect(pool.tryAllocate(50)).toBe(true);
    expect(pool.tryAllocate(1000)).toBe(true); // 50 left
    expect(pool.used).toBe(1050);
  });

  it('-1 (and 0) is unbounded, as MemoryPool.NONE, still counting what is used', () => {
    for (const size of [-1, 0]) {
      const pool = new MemoryPool(size);
      expect(pool.bounded).toBe(false);
      expect(pool.tryAllocate(1e9)).toBe(true);
      expect(pool.tryAllocate(1e9)).toBe(true);
      expect(pool.view()).toMatchObject({ size: null, used: 2e9, pausedConnections: 0 });
      pool.release(2e9);
      expect(pool.used).toBe(0);
    }
  });

  it('a release of bytes never taken is a bug, and the pool does not grow', () => {
    const pool = new MemoryPool(100);
    expect(() => pool.release(1)).toThrow(RangeError);
    expect(pool.available).toBe(100);
    pool.release(0); // nothing taken, nothing given back (an empty frame)
  });
});

describe('the waiting line', () => {
  it('gives released memory to the connections in the order they were refused, taking it for them', () => {
    const pool = new MemoryPool(1000, 1000);
    const granted: string[] = [];
    expect(pool.tryAllocate(1000)).toBe(true);
    for (const name of ['a', 'b', 'c']) {
      expect(pool.tryAllocate(400)).toBe(false);
      pool.wait(waiter(400, granted, name));
    }
    expect(pool.pausedConnections).toBe(3);
    pool.release(300); // 300 left: a gets its 400 (non-strict), then nothing is left
    expect(granted).toEqual(['a']);
    expect(pool.available).toBe(-100);
    pool.release(1); // still out of memory
    expect(granted).toEqual(['a']);
    pool.release(699); // 600 left: b (200 left), c (-200)
    expect(granted).toEqual(['a', 'b', 'c']);
    expect(pool.used).toBe(1200);
    expect(pool.view()).toMatchObject({ pausedConnections: 0, pauses: 3, allocations: 4, peakUsed: 1200 });
  });

  it('a newcomer does not go before those waiting (strict pool: a large frame is not starved by small ones)', () => {
    const pool = new MemoryPool(1000, 1000, true);
    const granted: string[] = [];
    expect(pool.tryAllocate(600)).toBe(true);
    expect(pool.tryAllocate(900)).toBe(false);
    pool.wait(waiter(900, granted, 'big'));
    expect(pool.tryAllocate(100)).toBe(false); // 400 left, but 'big' is first
    pool.wait(waiter(100, granted, 'small'));
    pool.release(600);
    expect(granted).toEqual(['big', 'small']);
    expect(pool.used).toBe(1000);
  });

  it('a connection that leaves the line gets nothing; the next one is served', () => {
    const pool = new MemoryPool(1000, 1000, true);
    const granted: string[] = [];
    pool.tryAllocate(800);
    const big = waiter(900, granted, 'big');
    pool.wait(big);
    pool.wait(waiter(100, granted, 'small'));
    expect(granted).toEqual([]);
    expect(pool.cancel(big)).toBe(true);
    expect(granted).toEqual(['small']);
    expect(pool.cancel(big)).toBe(false);
  });

  it('tells when the first connection pauses and when the last resumes, not per frame', () => {
    const pool = new MemoryPool(100, 100);
    const events: PressureEvent['type'][] = [];
    pool.onPressure = (e) => events.push(e.type);
    pool.tryAllocate(100);
    pool.wait(waiter(50, [], 'a'));
    pool.wait(waiter(50, [], 'b'));
    expect(events).toEqual(['paused']);
    pool.release(100); // a (50 left), b (0 left)
    expect(events).toEqual(['paused', 'resumed']);
  });
});

describe('requestMemoryPool logging', () => {
  it('one line when reads pause and one when they resume, at most once per interval, counting the rest', () => {
    const lines: LogLine[] = [];
    const info: Array<{ msg: string; obj: Record<string, unknown> }> = [];
    const logger = recordingLogger(lines);
    logger.info = ((obj: Record<string, unknown>, msg: string) => void info.push({ obj, msg })) as unknown as typeof logger.info;
    let now = 0;
    const pool = requestMemoryPool({ queuedMaxRequestBytes: 100, socketRequestMaxBytes: 100 }, logger, () => now);
    const episode = (): void => {
      pool.tryAllocate(100);
      pool.wait(waiter(10, [], 'x'));
      pool.wait(waiter(10, [], 'y'));
      now += 5;
      pool.release(100);
      pool.release(20);
    };
    episode();
    expect(info.map((l) => l.msg)).toEqual([
      'request memory full (queued.max.request.bytes): pausing reads until requests are handled',
      'request memory freed: reads resumed',
    ]);
    expect(info[1].obj.requestMemory).toMatchObject({ pausedMs: 5, connectionsPaused: 2 });
    for (let i = 0; i < 20; i++) episode(); // within the interval: not logged
    expect(info).toHaveLength(2);
    now += PRESSURE_LOG_INTERVAL_MS;
    episode();
    expect(info).toHaveLength(4);
    expect(info[2].obj.requestMemory).toMatchObject({ earlierPausesNotLogged: 20 });
    expect(pool.used).toBe(0);
  });
});
