import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * An open server-sent-events response. `Events` maps each event name the stream may send to its
 * data, so a misspelt name or a wrong field fails the typecheck; by default any name and data.
 */
export interface SseStream<Events extends object = Record<string, unknown>> {
  /** Sends one event; returns false once the stream is closed. */
  send<Name extends keyof Events & string>(event: Name, data: Events[Name], id?: number): boolean;
  /** Sends a comment line (heartbeat). */
  comment(text: string): void;
  /** Ends the response. */
  end(): void;
  readonly closed: boolean;
  /** Aborted when the client goes away or the stream ends. */
  readonly signal: AbortSignal;
}

/** A slow client holding more than this many unsent bytes is cut off instead of growing memory. */
const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;

/**
 * Takes over a fastify reply as a `text/event-stream`. Headers already set on the reply (the
 * CORS headers of the local guard) are kept.
 */
export function openSse<Events extends object = Record<string, unknown>>(
  _request: FastifyRequest,
  reply: FastifyReply,
  options: { retryMs?: number } = {},
): SseStream<Events> {
  const controller = new AbortController();
  let closed = false;
  const raw = reply.raw;
  const headers: Record<string, string | number | string[]> = {};
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (value !== undefined) headers[name] = value as string | number | string[];
  }
  reply.hijack();
  raw.writeHead(200, {
    ...headers,
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  raw.flushHeaders();
  const close = () => {
    if (closed) return;
    closed = true;
    controller.abort();
  };
  // The response's close, not the request's: a request emits 'close' once its body has been
  // read, which for a POST with a JSON body (the follow-up chats) is right at the start.
  raw.on('close', close);
  raw.on('error', close);
  if (options.retryMs) raw.write(`retry: ${options.retryMs}\n\n`);

  const write = (text: string): boolean => {
    if (closed) return false;
    if (raw.writableLength > MAX_BUFFERED_BYTES) {
      close();
      raw.destroy();
      return false;
    }
    raw.write(text);
    return true;
  };

  return {
    send(event, data, id) {
      const payload = JSON.stringify(data)
        .split(/\r\n|\r|\n/)
        .map((line) => `data: ${line}`)
        .join('\n');
      return write(`${id !== undefined ? `id: ${id}\n` : ''}event: ${event}\n${payload}\n\n`);
    },
    comment(text) {
      write(`: ${text.replace(/[\r\n]+/g, ' ')}\n\n`);
    },
    end() {
      if (closed) return;
      close();
      raw.end();
    },
    get closed() {
      return closed;
    },
    signal: controller.signal,
  };
}
