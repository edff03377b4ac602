// A small server-sent-events client over fetch, parsing the wire format the way EventSource does.

/** One received event. */
export interface ReceivedEvent {
  event: string;
  id: string | undefined;
  data: unknown;
}

/** An open event stream. */
export interface EventStreamClient {
  status: number;
  headers: Headers;
  events: ReceivedEvent[];
  /** Comment lines received (heartbeats). */
  comments: string[];
  /** Resolves with the first event (from the start) matching `predicate`. */
  next(predicate: (event: ReceivedEvent) => boolean, timeoutMs?: number): Promise<ReceivedEvent>;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  close(): void;
}

/** Opens `url` as an event stream (GET, or POST with a JSON body). */
export async function openEventStream(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<EventStreamClient> {
  const controller = new AbortController();
  const response = await fetch(url, {
    method: init.method ?? 'GET',
    headers: {
      accept: 'text/event-stream',
      ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...init.headers,
    },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
    signal: controller.signal,
  });
  const events: ReceivedEvent[] = [];
  const comments: string[] = [];
  const waiters = new Set<() => void>();
  const notify = () => {
    for (const waiter of [...waiters]) waiter();
  };
  const ended = (async () => {
    if (!response.body) return;
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let boundary = buffer.search(/\r?\n\r?\n/);
        while (boundary >= 0) {
          const block = buffer.slice(0, boundary);
          buffer = buffer.slice(boundary).replace(/^\r?\n\r?\n/, '');
          let event = 'message';
          let id: string | undefined;
          const data: string[] = [];
          for (const line of block.split(/\r?\n/)) {
            if (line.startsWith(':')) comments.push(line.slice(1).trim());
            else if (line.startsWith('event:')) event = line.slice(6).trim();
            else if (line.startsWith('id:')) id = line.slice(3).trim();
            else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
          }
          if (data.length > 0) events.push({ event, id, data: JSON.parse(data.join('\n')) });
          notify();
          boundary = buffer.search(/\r?\n\r?\n/);
        }
      }
    } catch {
      // Aborted by close().
    } finally {
      notify();
    }
  })();
  let finished = false;
  void ended.then(() => {
    finished = true;
    notify();
  });
  return {
    status: response.status,
    headers: response.headers,
    events,
    comments,
    next(predicate, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = events.find(predicate);
          if (found) {
            cleanup();
            resolve(found);
          } else if (finished) {
            cleanup();
            reject(
              new Error(
                `stream ended without the expected event; got ${events.map((e) => e.event).join(', ')}`,
              ),
            );
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`timed out; events so far: ${events.map((e) => e.event).join(', ')}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    ended,
    close: () => controller.abort(),
  };
}
