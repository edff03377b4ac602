/**
 * The in-process event bus behind the SSE stream (/api/events) and the alerts WebSocket. Every
 * event gets a growing numeric id; the last `bufferSize` events are kept so a client that
 * reconnects with `Last-Event-ID` receives what it missed.
 */

/** Payloads of the live events, by event name. */
export interface LiveEventMap {
  /** A line was appended to the transcript. */
  'line.appended': { index: number; timestamp: string; text: string };
  /** The last line was rewritten (a local-mode segment extended or merged into it). */
  'line.updated': { index: number; timestamp: string; text: string };
  /** The not-yet-final text changed (empty text: cleared). */
  'partial.changed': { text: string };
  /** A keyword was heard in a newly appended line; same fields as the WebSocket message. */
  'alert.raised': {
    type: 'keyword_alert';
    level: string;
    keywords: string[];
    text: string;
    timestamp: string;
  };
  /** Monitoring started, paused, resumed or stopped. */
  'monitor.changed': MonitorStatusPayload;
  /** Older lines were folded into the history summary. */
  'history.folded': { summary: string; folded_entries: number; remaining_entries: number };
  /** Post-class notes were written. */
  'notes.written': { filename: string; course_name: string };
  /** A material file was uploaded. */
  'material.uploaded': { cite_filename: string; text_length: number };
  /** Something went wrong in the background (recognizer, folding, notes on stop). */
  'error.raised': ErrorRaisedPayload;
}

/** Where a background failure happened; a client matches on it (never on the message). */
export type ErrorSource = 'recognizer' | 'history folding' | 'transcript' | 'notes';

/** An `error.raised` event. */
export interface ErrorRaisedPayload {
  source: ErrorSource;
  code: string;
  message: string;
  /** For `source: 'recognizer'`: the ASR_MODE of the class (local, stream, cloud, mock). */
  mode?: string;
}

/** The monitor status as events and /api/monitor_status report it. */
export interface MonitorStatusPayload {
  state: 'idle' | 'running' | 'paused';
  is_monitoring: boolean;
  is_paused: boolean;
  course_name: string;
  asr_mode: string;
  cite_filename: string;
  started_at: string | null;
  /** How the running class's recognizer is doing; null when idle. */
  recognizer_state: 'running' | 'paused' | 'ended' | 'failed' | null;
}

/** Name of a live event. */
export type LiveEventName = keyof LiveEventMap;

/** One published event. */
export interface LiveEvent<Name extends LiveEventName = LiveEventName> {
  id: number;
  name: Name;
  data: LiveEventMap[Name];
}

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
