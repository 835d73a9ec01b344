// Fetch long polls waiting for data. A Fetch that finds fewer than min_bytes registers here with
// the partitions it reads; an append to one of them wakes it (it then re-reads and answers or
// goes on waiting until max_wait_ms).

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

  add(w: FetchWaiter): void {
    this.waiters.add(w);
  }

  remove(w: FetchWaiter): void {
    this.waiters.delete(w);
  }

  get size(): number {
    return this.waiters.size;
  }

  /** Called after an append to topic/partition. */
  notify(topic: string, partition: number): void {
    if (this.waiters.size === 0) return;
    const key = partitionKey(topic, partition);
    for (const w of [...this.waiters]) if (w.interest.has(key)) w.wake();
  }
}
