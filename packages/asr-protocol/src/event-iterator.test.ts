import { describe, expect, it } from 'vitest';
import { createEventIterator } from './event-iterator.ts';

type Event = { type: 'data'; value: number } | { type: 'end' };

/** A bare emitter: whatever is pushed goes to every current listener. */
function emitter() {
  const listeners = new Set<(event: Event) => void>();
  return {
    listeners,
    emit(event: Event) {
      for (const listener of [...listeners]) listener(event);
    },
    iterate(ended = false) {
      return createEventIterator<Event>({
        ended,
        subscribe: (push) => {
          listeners.add(push);
          return () => listeners.delete(push);
        },
        isLast: (event) => event.type === 'end',
      });
    },
  };
}

describe('createEventIterator', () => {
  it('yields events pushed before and after next(), the last one included, then finishes', async () => {
    const source = emitter();
    const iterator = source.iterate();
    source.emit({ type: 'data', value: 1 });
    const pending = iterator.next();
    source.emit({ type: 'data', value: 2 });
    source.emit({ type: 'end' });
    source.emit({ type: 'data', value: 3 });
    expect(await pending).toEqual({ done: false, value: { type: 'data', value: 1 } });
    expect(await iterator.next()).toEqual({ done: false, value: { type: 'data', value: 2 } });
    expect(await iterator.next()).toEqual({ done: false, value: { type: 'end' } });
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
    expect(source.listeners.size).toBe(0);
  });

  it('answers concurrent next() calls in call order', async () => {
    const source = emitter();
    const iterator = source.iterate();
    const calls = [iterator.next(), iterator.next(), iterator.next()];
    source.emit({ type: 'data', value: 1 });
    source.emit({ type: 'data', value: 2 });
    source.emit({ type: 'end' });
    expect(await Promise.all(calls)).toEqual([
      { done: false, value: { type: 'data', value: 1 } },
      { done: false, value: { type: 'data', value: 2 } },
      { done: false, value: { type: 'end' } },
    ]);
  });

  it('return() finishes every pending call, drops the buffer and unsubscribes', async () => {
    const source = emitter();
    const iterator = source.iterate();
    source.emit({ type: 'data', value: 1 });
    await iterator.next();
    source.emit({ type: 'data', value: 2 });
    const pending = [iterator.next(), iterator.next()];
    await iterator.return?.();
    expect(await Promise.all(pending)).toEqual([
      { done: false, value: { type: 'data', value: 2 } },
      { done: true, value: undefined },
    ]);
    expect(source.listeners.size).toBe(0);
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
  });

  it('finishes at once over a source that has already ended, without subscribing', async () => {
    const source = emitter();
    const iterator = source.iterate(true);
    expect(source.listeners.size).toBe(0);
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
  });

  it('keeps a separate buffer per iterator', async () => {
    const source = emitter();
    const fast = source.iterate();
    const slow = source.iterate();
    source.emit({ type: 'data', value: 1 });
    source.emit({ type: 'end' });
    expect((await fast.next()).value).toEqual({ type: 'data', value: 1 });
    expect((await fast.next()).value).toEqual({ type: 'end' });
    expect((await slow.next()).value).toEqual({ type: 'data', value: 1 });
    expect((await slow.next()).value).toEqual({ type: 'end' });
  });
});
