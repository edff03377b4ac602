import { describe, expect, it } from 'vitest';
import { createEventHub } from './event-hub.ts';

describe('createEventHub', () => {
  it('numbers events, delivers them to subscribers, and replays from an id', () => {
    const hub = createEventHub({ bufferSize: 3 });
    const seen: number[] = [];
    const unsubscribe = hub.subscribe((event) => seen.push(event.id));
    for (let index = 0; index < 5; index++) hub.publish('partial.changed', { text: String(index) });
    expect(seen).toEqual([1, 2, 3, 4, 5]);
    expect(hub.lastId).toBe(5);
    expect(hub.since(3)?.map((event) => event.id)).toEqual([4, 5]);
    expect(hub.since(2)?.map((event) => event.id)).toEqual([3, 4, 5]);
    expect(hub.since(1)).toBeUndefined();
    expect(hub.since(5)).toEqual([]);
    unsubscribe();
    hub.publish('partial.changed', { text: 'x' });
    expect(seen).toHaveLength(5);
    expect(hub.subscriberCount).toBe(0);
  });

  it('keeps delivering when one subscriber throws', () => {
    const hub = createEventHub();
    const seen: string[] = [];
    hub.subscribe(() => {
      throw new Error('closed socket');
    });
    hub.subscribe((event) => seen.push(event.name));
    hub.publish('notes.written', { filename: 'a.md', course_name: '' });
    expect(seen).toEqual(['notes.written']);
  });
});
