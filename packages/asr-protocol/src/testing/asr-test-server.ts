// A WebSocket server on 127.0.0.1 that speaks the streaming ASR protocol the way the real service
// does: the fake at the edge of the machine for tests of anything that streams audio to it. This
// file owns the listening socket and the handshake; each accepted connection is a TestConnection
// (test-connection.ts).
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { WebSocketServer } from 'ws';
import { ASR_ENDPOINTS } from '../endpoints.ts';
import type { AsrFault } from './fault-injection.ts';
import type { ScriptedUtterance } from './response-builder.ts';
import { type AsrTestConnection, type Handshake, TestConnection } from './test-connection.ts';

/** How the test server compresses its responses (see {@link AsrTestServerOptions}). */
export type ReplyCompression = 'client' | 'none' | 'gzip';

const REPLY_COMPRESSIONS: readonly ReplyCompression[] = ['client', 'none', 'gzip'];

/** A handshake refusal: HTTP status, body, extra headers. */
export interface HandshakeRefusal {
  status: number;
  body?: string;
  headers?: Record<string, string>;
}

/** Options of {@link createAsrTestServer}. */
export interface AsrTestServerOptions {
  /** What the "speaker" says, with times in the audio (ms). Default: nothing (empty text). */
  utterances?: ScriptedUtterance[];
  /**
   * Credentials to accept. The three auth headers must always be present (else 401); with this
   * set, wrong keys get 401 and a resource id not listed gets 403.
   */
  auth?: { appKey?: string; accessKey?: string; resourceIds?: string[] };
  /** Decide per handshake: return a refusal to answer with it, or undefined to go on. */
  handshake?: (request: {
    path: string;
    headers: Record<string, string>;
    connection: number;
  }) => HandshakeRefusal | undefined;
  /** Faults to inject (see {@link AsrFault}). */
  faults?: AsrFault[];
  /**
   * Silence after an utterance's end before it turns definite. Default: the request's
   * `end_window_size`, else 800 ms (the service default).
   */
  definiteLagMs?: number;
  /**
   * Number partial results: flags 0b0001 and increasing sequences (2, 3, …, after the request's
   * reply with 1), as the service sends them, so a client that reads the payload size at the
   * fixed offset 8 reads every reply. Default true; false sends partials with flags 0b0000 and
   * no sequence (a client must then decode by the flags).
   */
  sequencedPartials?: boolean;
  /**
   * The compression of the server's responses. `'client'` (default) answers in the compression
   * of the client's full request, as the protocol document says. `'none'` always answers
   * uncompressed and `'gzip'` always gzipped: some clients do not follow the document — the
   * doubao provider of xiaozhi-esp32-server, widely deployed, sends gzip requests yet parses every
   * reply as plain JSON, so it reads no result from replies in its own compression — and a test
   * of such a client needs the replies it expects.
   */
  replyCompression?: ReplyCompression;
  /** Answer 45000081 and close when no packet arrives for this long. Default: never. */
  packetTimeoutMs?: number;
  /** Delay before each reply, in ms. Default 0. */
  responseDelayMs?: number;
  /** Port to listen on; default a free one. Always binds 127.0.0.1. */
  port?: number;
  /**
   * The audio the script's times refer to (PCM in the format clients send). The real service
   * recognises what it hears, so a client that reconnects and resends from the middle of a
   * recording hears the sentences that lie there, timed from the new connection's start. With
   * this set, each connection's first audio packet is looked up in the reference, and the
   * connection's script is the part from there on, shifted to start at 0 (a sentence cut by the
   * join point is left out, as the service would only hear its end). The reference should not
   * repeat itself (digital silence does: give it a noise floor, as any recording has).
   */
  referenceAudio?: Uint8Array;
}

/** A running test server; see {@link createAsrTestServer}. */
export interface AsrTestServer {
  /** Base URL to give the client (`ws://127.0.0.1:PORT`). */
  url: string;
  port: number;
  /** Every connection accepted, in order. */
  connections: AsrTestConnection[];
  /** Handshakes refused, in order, with the status sent. */
  refusals: Array<{ path: string; headers: Record<string, string>; status: number }>;
  /** Replaces the script for connections opened from now on. */
  setUtterances(utterances: ScriptedUtterance[]): void;
  /** Adds faults for connections opened from now on. */
  addFaults(...faults: AsrFault[]): void;
  /** Resolves once `count` connections have been accepted. */
  waitForConnections(count: number): Promise<void>;
  /** Stops listening and drops every connection. */
  close(): Promise<void>;
}

function lowerCaseHeaders(request: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

function writeRefusal(socket: Socket, refusal: HandshakeRefusal, logId: string): void {
  const body = refusal.body ?? '';
  const reason =
    { 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found' }[
      refusal.status
    ] ?? 'Error';
  const headers = {
    'Content-Type': 'application/json',
    'Content-Length': String(Buffer.byteLength(body)),
    'X-Tt-Logid': logId,
    Connection: 'close',
    ...refusal.headers,
  };
  const head = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}`)
    .join('\r\n');
  socket.end(`HTTP/1.1 ${refusal.status} ${reason}\r\n${head}\r\n\r\n${body}`);
}

function jsonErrorBody(message: string): string {
  return JSON.stringify({ error: message });
}

/**
 * Starts a WebSocket server on 127.0.0.1 speaking the streaming ASR protocol like the real
 * service, for tests of clients (this package's, or a backend using it):
 * - handshake: the three auth headers are required (401), checked against `auth` (401/403),
 *   unknown paths get 404; success answers with `X-Api-Connect-Id` and `X-Tt-Logid`;
 * - client frames are decoded strictly; bad frames, audio before the request or a repeated
 *   request get an error frame (45000001), then the connection closes; a last packet with no
 *   audio gets 45000002;
 * - the full client request is read like the service reads it: unknown and legacy fields, a
 *   missing `model_name` and options the endpoint does not support are accepted and listed in
 *   `connection.warnings`; a bad audio format is refused with 45000151, a missing group or a
 *   wrong value with 45000001;
 * - replies follow the endpoint: `bigmodel` one per audio packet, `bigmodel_async` only when the
 *   result changed, `bigmodel_nostream` one per packet but with results only past each 15 s of
 *   audio and at the last packet;
 * - the scripted utterances come out as partials, then definite, timed by the AUDIO received
 *   (not the wall clock); every reply carries its sequence, as the real service sends them: the
 *   reply to the request flags 0b0001 and sequence 1, partials flags 0b0001 and 2, 3, … (flags
 *   0b0000 and no sequence with `sequencedPartials: false`), the final response flags 0b0011
 *   with a POSITIVE sequence;
 * - replies are compressed as the client's request is, or as `replyCompression` says;
 * - faults can be injected per connection (see {@link AsrFault}).
 *
 * @example
 * const server = await createAsrTestServer({
 *   utterances: [{ text: 'Good morning, class.', start_time: 300, end_time: 1500 }],
 *   faults: [{ type: 'close', at: { afterAudioMs: 1000 }, connection: 1 }],
 * });
 * const stream = await connectAsrStream({ url: server.url, appKey: 'a', accessKey: 'b', resourceId: 'r' });
 * // ... stream audio; the first connection drops after 1 s of audio, the next one does not.
 * await server.close();
 */
export async function createAsrTestServer(
  options: AsrTestServerOptions = {},
): Promise<AsrTestServer> {
  if (
    options.replyCompression !== undefined &&
    !REPLY_COMPRESSIONS.includes(options.replyCompression)
  ) {
    throw new TypeError(
      `replyCompression must be one of ${REPLY_COMPRESSIONS.map((value) => `'${value}'`).join(', ')}, got ${JSON.stringify(options.replyCompression)}`,
    );
  }
  let script = options.utterances ?? [];
  const faults = [...(options.faults ?? [])];
  const connections: AsrTestConnection[] = [];
  const refusals: AsrTestServer['refusals'] = [];
  const sockets = new Set<Socket>();
  const waiters: Array<{ count: number; resolve(): void }> = [];
  let connectionCount = 0;

  const httpServer = createServer((_request, response) => {
    response.writeHead(426, { 'Content-Type': 'text/plain' });
    response.end('WebSocket upgrade required');
  });
  httpServer.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  // The handshake of each upgrade under way, until `ws` asks for the response headers.
  const handshakes = new WeakMap<IncomingMessage, Handshake>();
  wss.on('headers', (responseHeaders, request) => {
    const handshake = handshakes.get(request);
    if (handshake === undefined) return;
    responseHeaders.push(
      `X-Api-Connect-Id: ${handshake.headers['x-api-connect-id'] ?? randomUUID()}`,
      `X-Tt-Logid: ${handshake.logId}`,
    );
  });

  httpServer.on('upgrade', (request, socket: Socket, head) => {
    connectionCount += 1;
    const index = connectionCount;
    const logId = `test-log-${index}-${randomUUID().slice(0, 8)}`;
    const headers = lowerCaseHeaders(request);
    const path = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
    const decline = (refusal: HandshakeRefusal) => {
      refusals.push({ path, headers, status: refusal.status });
      writeRefusal(socket, refusal, logId);
    };
    const endpoint = ASR_ENDPOINTS.find((name) => path === `/api/v3/sauc/${name}`);
    if (endpoint === undefined) {
      decline({ status: 404, body: jsonErrorBody(`no such endpoint: ${path}`) });
      return;
    }
    const custom = options.handshake?.({ path, headers, connection: index });
    if (custom !== undefined) {
      decline(custom);
      return;
    }
    for (const name of ['x-api-app-key', 'x-api-access-key', 'x-api-resource-id']) {
      if (!headers[name]) {
        decline({ status: 401, body: jsonErrorBody(`missing header ${name}`) });
        return;
      }
    }
    const auth = options.auth;
    if (
      (auth?.appKey !== undefined && headers['x-api-app-key'] !== auth.appKey) ||
      (auth?.accessKey !== undefined && headers['x-api-access-key'] !== auth.accessKey)
    ) {
      decline({ status: 401, body: jsonErrorBody('invalid X-Api-App-Key or X-Api-Access-Key') });
      return;
    }
    if (
      auth?.resourceIds !== undefined &&
      !auth.resourceIds.includes(headers['x-api-resource-id'] ?? '')
    ) {
      decline({
        status: 403,
        body: jsonErrorBody(`requested resource not granted: ${headers['x-api-resource-id']}`),
      });
      return;
    }
    const handshake: Handshake = { index, endpoint, headers, logId };
    handshakes.set(request, handshake);
    wss.handleUpgrade(request, socket, head, (ws) => {
      const connection = new TestConnection(ws, socket, handshake, script, faults, options);
      connections.push(connection);
      for (const waiter of waiters.splice(0)) {
        if (connections.length >= waiter.count) waiter.resolve();
        else waiters.push(waiter);
      }
    });
  });

  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (httpServer.address() as AddressInfo).port;

  return {
    url: `ws://127.0.0.1:${port}`,
    port,
    connections,
    refusals,
    setUtterances(utterances) {
      script = utterances;
    },
    addFaults(...added) {
      faults.push(...added);
    },
    waitForConnections(count) {
      if (connections.length >= count) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ count, resolve }));
    },
    async close() {
      for (const client of wss.clients) client.terminate();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
}
