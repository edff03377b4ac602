// The live connection: GET /api/events read as server-sent events, reconnecting by itself with
// the last event id (the server replays what was missed), watching the heartbeats (every 0.4 s;
// `heartbeat_ms` of stream.opened) so that a frozen backend or a cut network shows as offline
// within a second (two and a half heartbeats, never less than a second), and telling the app when its state must be reloaded (first connection, a
// gap in the replay, or a backend that restarted and counts ids from 1 again). A backend that
// dies closes its sockets: that shows at once.
import { readEventStream } from './sse.ts';
import type { Connection } from './store.ts';
import type { LiveEventName, LiveMessage, StreamOpened } from './types.ts';

/** Options of {@link createLiveConnection}. */
export interface LiveOptions {
  /** After `stream.opened`; `reload` says the app must re-read transcript and status. */
  onOpened(data: StreamOpened, reload: boolean): void;
  /** Every other event the UI knows, in order (unknown names, from a newer backend, are skipped). */
  onEvent(message: LiveMessage): void;
  /** Connection changes; `retryAt` is when the next attempt starts (offline only). */
  onConnection(connection: Connection, retryAt: number | null): void;
  /**
   * No byte for this long means the connection is dead. Default: two and a half heartbeats as the
   * backend announces them (`heartbeat_ms`), at least 1 s; 45 s from a backend that does not say.
   */
  silenceTimeoutMs?: number;
  /** How long a connection may take to open its stream (default 5 s). */
  openTimeoutMs?: number;
  /** The events URL (default `/api/events`). */
  url?: string;
}

/** A running live connection. */
export interface LiveConnection {
  start(): void;
  stop(): void;
  /** Skips the wait before the next attempt (the user pressed "retry"). */
  retryNow(): void;
  /** The newest event id seen. */
  readonly lastEventId: number | undefined;
}

/**
 * The live events of the contract this UI was built against (a record over the contract's names:
 * the type check fails when the backend adds or renames one and this list is not updated).
 */
const KNOWN_EVENTS: Readonly<Record<LiveEventName, true>> = {
  'line.appended': true,
  'line.updated': true,
  'line.translated': true,
  'page.changed': true,
  'partial.changed': true,
  'alert.raised': true,
  'monitor.changed': true,
  'history.folded': true,
  'notes.written': true,
  'material.uploaded': true,
  'model.progress': true,
  'model.installed': true,
  'model.failed': true,
  'library.changed': true,
  'mark.added': true,
  'error.raised': true,
  'import.changed': true,
  'capture.changed': true,
};

/** Waits before attempt `attempt` (0-based) after a failed connection: 0.5 s doubling to 5 s. */
export function retryDelay(attempt: number): number {
  return Math.min(5000, 500 * 2 ** attempt);
}

/** Creates the live connection (call `start()`). */
export function createLiveConnection(options: LiveOptions): LiveConnection {
  const url = options.url ?? '/api/events';
  const openTimeoutMs = options.openTimeoutMs ?? 5000;
  let silenceTimeoutMs = options.silenceTimeoutMs ?? 45_000;
  let lastEventId: number | undefined;
  let stopped = true;
  let first = true;
  /** Set when the state seen so far belongs to a backend that is gone. */
  let mustReload = false;
  let controller: AbortController | undefined;
  let wakeUp: (() => void) | undefined;
  let silence: ReturnType<typeof setTimeout> | undefined;

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wakeUp = undefined;
        resolve();
      }
      wakeUp = done;
    });

  /** Set when the silence timer cut the connection: the backend stopped answering. */
  let wentSilent = false;
  const armSilenceTimer = (ms = silenceTimeoutMs) => {
    clearTimeout(silence);
    const current = controller;
    silence = setTimeout(() => {
      wentSilent = true;
      current?.abort();
    }, ms);
  };

  /**
   * One connection, until it ends: was it open, did it fail, must it start over at once, or did
   * an open stream fall silent (a frozen backend, a cut network)?
   */
  const connectOnce = async (): Promise<'opened' | 'failed' | 'reset' | 'silent'> => {
    controller = new AbortController();
    const current = controller;
    // (Set from the reader's callback: typed wide so the check below is not narrowed away.)
    let outcome = 'failed' as 'opened' | 'failed' | 'reset' | 'silent';
    wentSilent = false;
    const headers: Record<string, string> = { accept: 'text/event-stream' };
    if (lastEventId !== undefined) headers['last-event-id'] = String(lastEventId);
    // A backend that accepts the connection but never answers counts as unreachable.
    armSilenceTimer(openTimeoutMs);
    try {
      const response = await fetch(url, { headers, signal: current.signal, cache: 'no-store' });
      if (!response.ok) return 'failed';
      // Until stream.opened arrives, the opening timeout still runs.
      armSilenceTimer(openTimeoutMs);
      await readEventStream(
        response,
        (message) => {
          armSilenceTimer();
          if (message.event === 'stream.opened') {
            const data = JSON.parse(message.data) as StreamOpened;
            const restarted = lastEventId !== undefined && data.last_event_id < lastEventId;
            if (restarted && !data.gap) {
              // A backend that does not report this as a gap would hold new events back until
              // its ids pass ours: start over without an id.
              lastEventId = undefined;
              mustReload = true;
              outcome = 'reset';
              current.abort();
              return;
            }
            const reload = first || mustReload || data.gap || restarted;
            mustReload = false;
            const heartbeat = data.heartbeat_ms;
            silenceTimeoutMs =
              options.silenceTimeoutMs ??
              (heartbeat && heartbeat > 0 ? Math.max(1000, Math.round(2.5 * heartbeat)) : 45_000);
            armSilenceTimer();
            if (reload || lastEventId === undefined) lastEventId = data.last_event_id;
            first = false;
            outcome = 'opened';
            options.onConnection('online', null);
            options.onOpened(data, reload);
            return;
          }
          if (message.id !== undefined) {
            const id = Number(message.id);
            if (Number.isFinite(id)) lastEventId = Math.max(lastEventId ?? 0, id);
          }
          if (!Object.hasOwn(KNOWN_EVENTS, message.event)) return;
          let data: unknown;
          try {
            data = JSON.parse(message.data);
          } catch {
            return;
          }
          // The wire boundary: the backend's event contract says what `data` is for this name.
          options.onEvent({ name: message.event, data } as LiveMessage);
        },
        () => armSilenceTimer(),
      );
    } catch {
      // A refused connection, a cut stream, the silence timer or stop(): try again below.
    } finally {
      clearTimeout(silence);
    }
    return outcome === 'opened' && wentSilent ? 'silent' : outcome;
  };

  const run = async () => {
    let failures = 0;
    while (!stopped) {
      const outcome = await connectOnce();
      if (stopped) return;
      if (outcome === 'reset') continue;
      if (outcome === 'silent') {
        // Heartbeats stopped: the backend is gone (frozen, or the network): say so now.
        failures = 0;
        const delay = retryDelay(failures);
        failures++;
        options.onConnection('offline', Date.now() + delay);
        await sleep(delay);
        continue;
      }
      if (outcome === 'opened') {
        // The stream was open and ended (backend stopping, network cut): try again at once,
        // quietly; only a failing attempt shows the backend as offline.
        failures = 0;
        options.onConnection('connecting', null);
        await sleep(250);
        continue;
      }
      const delay = retryDelay(failures);
      failures++;
      options.onConnection(first && failures === 1 ? 'connecting' : 'offline', Date.now() + delay);
      await sleep(delay);
    }
  };

  return {
    start() {
      if (!stopped) return;
      stopped = false;
      options.onConnection('connecting', null);
      void run();
    },
    stop() {
      stopped = true;
      controller?.abort();
      wakeUp?.();
    },
    retryNow() {
      wakeUp?.();
    },
    get lastEventId() {
      return lastEventId;
    },
  };
}
