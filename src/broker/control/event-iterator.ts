// Events as an async iterator, for the control plane's `events()` doors (group events, transaction
// events): subscribed from the call on, ended by `return()` (e.g. `break` in a for-await) or the
// signal. Events wait in a buffer of at most `bufferSize` (the oldest dropped) while the consumer
// is busy.

export interface EventIteratorOptions {
  /** Ends the iterator when aborted. */
  signal?: AbortSignal;
  /** Events kept while nobody reads (default 10,000; the oldest go first). */
  bufferSize?: number;
}

/** `subscribe` registers the push function and returns the unsubscribe. */
export function eventIterator<E>(subscribe: (push: (e: E) => void) => () => void, options: EventIteratorOptions = {}): AsyncIterableIterator<E> {
  const limit = options.bufferSize ?? 10_000;
  const buffered: E[] = [];
  const waiting: Array<(r: IteratorResult<E>) => void> = [];
  let done = false;
  const finish = (): void => {
    if (done) return;
    done = true;
    unsubscribe();
    options.signal?.removeEventListener('abort', finish);
    for (const w of waiting.splice(0)) w({ value: undefined, done: true });
  };
  const unsubscribe = subscribe((e) => {
    const w = waiting.shift();
    if (w) w({ value: e, done: false });
    else {
      buffered.push(e);
      if (buffered.length > limit) buffered.shift();
    }
  });
  if (options.signal?.aborted) finish();
  else options.signal?.addEventListener('abort', finish, { once: true });
  const it: AsyncIterableIterator<E> = {
    next: () => {
      if (buffered.length > 0) return Promise.resolve({ value: buffered.shift()!, done: false });
      if (done) return Promise.resolve({ value: undefined, done: true });
      return new Promise((resolve) => waiting.push(resolve));
    },
    return: () => {
      finish();
      return Promise.resolve({ value: undefined, done: true });
    },
    [Symbol.asyncIterator]: () => it,
  };
  return it;
}
