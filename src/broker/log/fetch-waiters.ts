// Fetch long polls waiting for data. A Fetch that finds fewer than min_bytes registers here with
// the partitions it reads; an append to one of them wakes it (it then re-reads and answers or
// goes on waiting until max_wait_ms).
//
// Wakes are deferred until the request that appended has done all its appends (a microtask: the
// Produce handler and the marker writer append synchronously). Kafka completes delayed fetches from
// the request's action queue after the whole Produce (ReplicaManager.appendRecords ->
// actionQueue), so a long poll on two partitions that one Produce writes sees both; waking at the
// first append would answer with one partition's records and the other's old high watermark.

export interface FetchWaiter {
  /** "topic\0partition" keys this fetch reads. */
  readonly interest: ReadonlySet<string>;
  wake(): void;
}

export function partitionKey(topic: string, partition: number): string {
  return `${topic}\0${partition}`;
}

export class FetchWaiters {
  private readonly waiters = new Set<FetchWaiter>();
  /** Waiters woken by appends of the request now running, woken together once it is done. */
  private readonly due = new Set<FetchWaiter>();
  private flushQueued = false;

  add(w: FetchWaiter): void {
    this.waiters.add(w);
  }

  remove(w: FetchWaiter): void {
    this.waiters.delete(w);
  }

  get size(): number {
    return this.waiters.size;
  }

  /** Called after an append to topic/partition (or a move of its last stable offset). */
  notify(topic: string, partition: number): void {
    if (this.waiters.size === 0) return;
    const key = partitionKey(topic, partition);
    for (const w of this.waiters) if (w.interest.has(key)) this.due.add(w);
    if (this.due.size > 0 && !this.flushQueued) {
      this.flushQueued = true;
      queueMicrotask(() => this.flush());
    }
  }

  private flush(): void {
    this.flushQueued = false;
    const woken = [...this.due];
    this.due.clear();
    // A waiter that ended meanwhile (its max wait, a closed connection) is no longer registered.
    for (const w of woken) if (this.waiters.has(w)) w.wake();
  }
}
