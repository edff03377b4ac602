// The socket the streaming client talks through: the part of a `ws` WebSocket it uses, so another
// constructor with the same shape can be injected.
import type { ClientRequest, IncomingMessage } from 'node:http';
import { AsrProtocolError } from './errors.ts';

/** Options of the WebSocket constructor, as the `ws` package takes them. */
export interface WebSocketLikeOptions {
  headers: Record<string, string>;
  handshakeTimeout: number;
  perMessageDeflate: false;
  maxPayload: number;
}

/**
 * The part of a `ws` WebSocket the client uses. Any constructor with this shape can be injected
 * (a `ws` subclass with a proxy agent, an instrumented socket in tests); note that `send` must
 * call its callback once the data is written, which is what backpressure relies on.
 */
export interface WebSocketLike {
  readonly readyState: number;
  on(event: 'upgrade', listener: (response: IncomingMessage) => void): unknown;
  on(
    event: 'unexpected-response',
    listener: (request: ClientRequest, response: IncomingMessage) => void,
  ): unknown;
  on(event: 'open', listener: () => void): unknown;
  on(
    event: 'message',
    listener: (data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean) => void,
  ): unknown;
  on(event: 'close', listener: (code: number, reason: Buffer) => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  send(data: Uint8Array, callback: (error?: Error) => void): void;
  close(code?: number, reason?: string): void;
  terminate(): void;
}

/** A constructor of {@link WebSocketLike} sockets, like `ws`'s `WebSocket`. */
export type WebSocketConstructor = new (
  url: string,
  options: WebSocketLikeOptions,
) => WebSocketLike;

/**
 * Constructs the socket. The options were checked before, so a constructor that still throws (an
 * injected one, a proxy agent, a future `ws` check) is a connection failure, reported like any
 * other.
 */
export function openWebSocket(
  Socket: WebSocketConstructor,
  url: string,
  options: WebSocketLikeOptions,
): WebSocketLike {
  try {
    return new Socket(url, options);
  } catch (error) {
    throw new AsrProtocolError(
      'ASR_CONNECTION_FAILED',
      `cannot open a WebSocket to ${url}: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}

/** The bytes of a received message, whichever of its three forms `ws` delivered. */
export function messageBytes(data: Buffer | ArrayBuffer | Buffer[]): Uint8Array {
  if (Array.isArray(data)) return Buffer.concat(data);
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  return data;
}

/** The first value of a response header, lower-case `name`. */
export function responseHeader(response: IncomingMessage, name: string): string | undefined {
  const value = response.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** A refused upgrade: the HTTP status, its text, the body (as text) and the `X-Tt-Logid`. */
export interface RefusedUpgrade {
  status: number;
  statusText: string;
  body: string;
  logId: string | undefined;
}

/** At most this much of a refused upgrade's body is kept. */
const REFUSAL_BODY_LIMIT = 64 * 1024;
/** A server that never finishes its error body must not hang the caller: read what came by then. */
const REFUSAL_BODY_WAIT_MS = 5_000;

/**
 * Reads the answer to a refused upgrade (the `unexpected-response` of `ws`): the body up to 64 KiB,
 * for at most 5 s; then drops the request and calls `done` once.
 */
export function readRefusedUpgrade(
  request: ClientRequest,
  response: IncomingMessage,
  done: (refusal: RefusedUpgrade) => void,
): void {
  const chunks: Buffer[] = [];
  let size = 0;
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    clearTimeout(timer);
    request.destroy();
    done({
      status: response.statusCode ?? 0,
      statusText: response.statusMessage ?? '',
      body: Buffer.concat(chunks).toString('utf8'),
      logId: responseHeader(response, 'x-tt-logid'),
    });
  };
  const timer = setTimeout(finish, REFUSAL_BODY_WAIT_MS);
  response.on('data', (chunk: Buffer) => {
    if (size < REFUSAL_BODY_LIMIT) chunks.push(chunk.subarray(0, REFUSAL_BODY_LIMIT - size));
    size += chunk.byteLength;
  });
  response.on('end', finish);
  response.on('error', finish);
}
