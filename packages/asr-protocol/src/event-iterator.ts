// An AsyncIterator over events pushed by listeners: the bridge from `on(type, listener)` to
// `for await`.

/** Where {@link createEventIterator} takes its events from. */
interface EventSource<Event> {
  /** True when the source has already ended: the iterator then finishes at once. */
  ended: boolean;
  /** Starts delivering every event to `push`; returns a function that stops it. */
  subscribe(push: (event: Event) => void): () => void;
  /** True for the event after which nothing follows (it is still yielded). */
  isLast(event: Event): boolean;
}

/**
 * Iterates every event from now on, the last one included; the iteration finishes after it, or
 * when the consumer returns early (which unsubscribes). Each iterator has its own buffer, so a
 * slow consumer loses nothing; concurrent `next()` calls each get the next event, in call order.
 *
 * @example
 * createEventIterator({ ended: false, subscribe: (push) => emitter.onAny(push), isLast: (event) => event.type === 'end' });
 */
export function createEventIterator<Event>(source: EventSource<Event>): AsyncIterator<Event> {
  const buffer: Event[] = [];
  // `next()` calls not yet answered, oldest first: each gets its own event, in order.
  const waiters: Array<(result: IteratorResult<Event>) => void> = [];
  let finished = source.ended;
  let unsubscribe: (() => void) | undefined;
  const stop = () => {
    unsubscribe?.();
    unsubscribe = undefined;
  };
  const answer = () => {
    while (waiters.length > 0) {
      if (buffer.length > 0) waiters.shift()?.({ done: false, value: buffer.shift() as Event });
      else if (finished) waiters.shift()?.({ done: true, value: undefined });
      else return;
    }
  };
  if (!finished) {
    unsubscribe = source.subscribe((event) => {
      buffer.push(event);
      if (source.isLast(event)) {
        finished = true;
        stop();
      }
      answer();
    });
    // An event delivered while subscribing may already have been the last one.
    if (finished) stop();
  }
  return {
    next: () =>
      new Promise((resolve) => {
        waiters.push(resolve);
        answer();
      }),
    return: async () => {
      finished = true;
      buffer.length = 0;
      stop();
      answer();
      return { done: true, value: undefined };
    },
  };
}
