// Driving a class through the real HTTP API, as the desktop UI does.
import { type EventStreamClient, openEventStream, type ReceivedEvent } from './sse-client.ts';

/** A class driven over HTTP. */
export interface ClassClient {
  events: EventStreamClient;
  start(body?: object): Promise<{ status: number; body: Record<string, unknown> }>;
  stop(): Promise<{ status: number; body: Record<string, unknown> }>;
  pause(): Promise<Record<string, unknown>>;
  resume(): Promise<Record<string, unknown>>;
  /** The transcript entries as /api/transcript returns them. */
  transcript(): Promise<Array<{ index: number; timestamp: string; text: string }>>;
  /** Resolves when the recognizer reports `state` (ended, failed) in a monitor.changed event. */
  recognizerState(state: string, timeoutMs?: number): Promise<ReceivedEvent>;
  /** Every event of a name received so far. */
  all(name: string): ReceivedEvent[];
  close(): void;
}

async function post(base: string, path: string, body: object = {}) {
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** Opens the live event stream of `base` and returns helpers to drive a class. */
export async function classClient(base: string): Promise<ClassClient> {
  const events = await openEventStream(`${base}/api/events`);
  return {
    events,
    start: (body = {}) => post(base, '/api/start_monitor', body),
    stop: () => post(base, '/api/stop_monitor?with_summary=false'),
    pause: async () => (await post(base, '/api/pause_monitor')).body,
    resume: async () => (await post(base, '/api/resume_monitor')).body,
    async transcript() {
      const response = await fetch(`${base}/api/transcript`);
      const body = (await response.json()) as {
        entries: Array<{ index: number; timestamp: string; text: string }>;
      };
      return body.entries;
    },
    recognizerState: (state, timeoutMs = 60_000) =>
      events.next(
        (event) =>
          event.event === 'monitor.changed' &&
          (event.data as { recognizer_state?: string }).recognizer_state === state,
        timeoutMs,
      ),
    all: (name) => events.events.filter((event) => event.event === name),
    close: () => events.close(),
  };
}
