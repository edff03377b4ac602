/**
 * The in-process event bus behind the SSE stream (/api/events) and the alerts WebSocket. Every
 * event gets a growing numeric id; the last `bufferSize` events are kept so a client that
 * reconnects with `Last-Event-ID` receives what it missed. The events themselves are defined in
 * ./live-events.ts.
 */
import type { LiveEventMap, LiveEventName } from './live-events.ts';

/** One published event; a union over the names, so `switch (event.name)` narrows `data`. */
export type LiveEvent<Name extends LiveEventName = LiveEventName> = {
  [N in Name]: { id: number; name: N; data: LiveEventMap[N] };
}[Name];

/** Publish/subscribe with replay from an id. */
export interface EventHub {
  publish<Name extends LiveEventName>(name: Name, data: LiveEventMap[Name]): LiveEvent<Name>;
  /** Calls `listener` for every later event; returns the unsubscribe function. */
  subscribe(listener: (event: LiveEvent) => void): () => void;
  /**
   * Events after `lastId`, or undefined when some of them are no longer buffered (the client
   * should then reload its state).
   */
  since(lastId: number): LiveEvent[] | undefined;
  /** Id of the newest event (0 before the first). */
  readonly lastId: number;
  /** Number of current subscribers. */
  readonly subscriberCount: number;
}

/** Creates an event hub keeping the last `bufferSize` events (default 1000). */
export function createEventHub(options: { bufferSize?: number } = {}): EventHub {
  const bufferSize = options.bufferSize ?? 1000;
  const buffer: LiveEvent[] = [];
  const listeners = new Set<(event: LiveEvent) => void>();
  let lastId = 0;
  return {
    publish(name, data) {
      const event = { id: ++lastId, name, data } as LiveEvent<typeof name>;
      buffer.push(event as LiveEvent);
      if (buffer.length > bufferSize) buffer.shift();
      for (const listener of [...listeners]) {
        try {
          listener(event as LiveEvent);
        } catch {
          // A failing subscriber (a closed socket) must not stop the others.
        }
      }
      return event;
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    since(id) {
      if (id >= lastId) return [];
      const oldest = buffer[0]?.id ?? lastId + 1;
      if (id + 1 < oldest) return undefined;
      return buffer.filter((event) => event.id > id);
    },
    get lastId() {
      return lastId;
    },
    get subscriberCount() {
      return listeners.size;
    },
  };
}
