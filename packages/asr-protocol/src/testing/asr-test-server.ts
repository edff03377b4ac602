// A WebSocket server on 127.0.0.1 that speaks the streaming ASR protocol the way the real service
// does: the fake at the edge of the machine for tests of anything that streams audio to it.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';
import { ASR_ENDPOINTS, type AsrEndpoint } from '../endpoints.ts';
import { isAsrProtocolError } from '../errors.ts';
import {
  type AsrFrame,
  type Compression,
  decodeFrame,
  encodeFrame,
  FRAME_FLAGS,
  type FrameFlags,
  flagsAreLast,
  type JsonObject,
  type Serialization,
} from '../frame-codec.ts';
import { createAsrRequestSchema, toAsrIssues } from '../request-schema.ts';
import { ASR_SERVICE_CODES } from '../service-codes.ts';
import {
  buildAsrResponsePayload,
  recogniseScript,
  type ScriptedUtterance,
} from './response-builder.ts';

/**
 * When a fault fires, per connection, once:
 * - `{ afterRequest: true }`: right after the reply to the full client request;
 * - `{ afterPackets: n }`: on the n-th audio packet (1-based), before its reply;
 * - `{ afterAudioMs: ms }`: on the first audio packet that brings the audio received to `ms`;
 * - `{ onLastPacket: true }`: on the last packet, before (or instead of) the final response.
 */
export type AsrFaultPoint =
  | { afterRequest: true }
  | { afterPackets: number }
  | { afterAudioMs: number }
  | { onLastPacket: true };

interface FaultCommon {
  at: AsrFaultPoint;
  /** Only on this connection (1-based, in order of arrival); default every connection. */
  connection?: number;
}

/**
 * A fault to inject:
 * - `error`: an error frame with `code` (and `message`), then the connection is closed;
 * - `empty-payload` / `non-json-payload`: an extra full server response whose payload is empty or
 *   `body` (default `'<html>oops</html>'`); with `final: true` it is sent with the final flags
 *   INSTEAD of the real final response (use with `onLastPacket`);
 * - `response`: an extra response with this payload (and flags/sequence) — any shape you need;
 * - `raw`: these bytes as a binary message (malformed frames);
 * - `silence`: from then on nothing is answered, not even the final response;
 * - `stop-reading`: the server stops reading the socket (for `resumeAfterMs`, default for good),
 *   so the client's writes back up: for backpressure tests;
 * - `close`: the TCP connection is dropped without a close frame (the client sees 1006).
 */
export type AsrFault =
  | (FaultCommon & { type: 'error'; code: number; message?: string })
  | (FaultCommon & { type: 'empty-payload'; final?: boolean })
  | (FaultCommon & { type: 'non-json-payload'; body?: string; final?: boolean })
  | (FaultCommon & { type: 'response'; payload: JsonObject; flags?: FrameFlags; sequence?: number })
  | (FaultCommon & { type: 'raw'; bytes: Uint8Array })
  | (FaultCommon & { type: 'silence' })
  | (FaultCommon & { type: 'stop-reading'; resumeAfterMs?: number })
  | (FaultCommon & { type: 'close' });

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
  /** Send partial responses with flags 0b0001 and increasing sequences instead of flags 0b0000. */
  sequencedPartials?: boolean;
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

/** One connection as the test server saw it. */
export interface AsrTestConnection {
  /** 1-based, in order of arrival. */
  index: number;
  endpoint: AsrEndpoint;
  /** Handshake request headers, lower-case names. */
  headers: Record<string, string>;
  /** The `X-Tt-Logid` sent back. */
  logId: string;
  /** The full client request payload, once received. */
  request: JsonObject | undefined;
  /** Every client frame, decoded, in order. */
  frames: AsrFrame[];
  /** All audio received so far, concatenated and uncompressed. */
  readonly audio: Uint8Array;
  /** Audio packets received (the last one included). */
  packets: number;
  /** Whether the last packet arrived. */
  lastPacketReceived: boolean;
  /** ms of audio received (PCM s16le at 16 kHz with the request's channel count). */
  audioMs: number;
  /** Frames sent to the client. */
  framesSent: number;
  /** Resolves when the connection has closed. */
  closed: Promise<void>;
  /**
   * Where this connection's audio starts in `referenceAudio`, in ms (undefined without a
   * reference, before audio arrived, or when the first packet is not found in it).
   */
  referenceOffsetMs: number | undefined;
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

function lowerHeaders(request: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

function refuse(socket: Socket, refusal: HandshakeRefusal, logId: string): void {
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

function errorBody(message: string): string {
  return JSON.stringify({ error: message });
}

/**
 * Starts a WebSocket server on 127.0.0.1 speaking the streaming ASR protocol like the real
 * service, for tests of clients (this package's, or a backend using it):
 * - handshake: the three auth headers are required (401), checked against `auth` (401/403),
 *   unknown paths get 404; success answers with `X-Api-Connect-Id` and `X-Tt-Logid`;
 * - client frames are decoded strictly; bad frames, audio before the request, a repeated request
 *   or an invalid request get an error frame (45000001, or 45000151 for audio format problems),
 *   then the connection closes; a last packet with no audio gets 45000002;
 * - replies follow the endpoint: `bigmodel` one per audio packet, `bigmodel_async` only when the
 *   result changed, `bigmodel_nostream` one per packet but with results only past each 15 s of
 *   audio and at the last packet;
 * - the scripted utterances come out as partials, then definite, timed by the AUDIO received
 *   (not the wall clock); the reply to the request has flags 0b0001 and sequence 1, partials flags
 *   0b0000 and no sequence, and the final response flags 0b0011 with a POSITIVE sequence, as the
 *   real service sends them;
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
  const handshakeHeaders = new WeakMap<IncomingMessage, string[]>();
  wss.on('headers', (responseHeaders, request) => {
    responseHeaders.push(...(handshakeHeaders.get(request) ?? []));
  });

  httpServer.on('upgrade', (request, socket: Socket, head) => {
    connectionCount += 1;
    const index = connectionCount;
    const logId = `test-log-${index}-${randomUUID().slice(0, 8)}`;
    const headers = lowerHeaders(request);
    const path = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
    const decline = (refusal: HandshakeRefusal) => {
      refusals.push({ path, headers, status: refusal.status });
      refuse(socket, refusal, logId);
    };
    const endpoint = ASR_ENDPOINTS.find((name) => path === `/api/v3/sauc/${name}`);
    if (endpoint === undefined) {
      decline({ status: 404, body: errorBody(`no such endpoint: ${path}`) });
      return;
    }
    const custom = options.handshake?.({ path, headers, connection: index });
    if (custom !== undefined) {
      decline(custom);
      return;
    }
    for (const name of ['x-api-app-key', 'x-api-access-key', 'x-api-resource-id']) {
      if (!headers[name]) {
        decline({ status: 401, body: errorBody(`missing header ${name}`) });
        return;
      }
    }
    const auth = options.auth;
    if (
      (auth?.appKey !== undefined && headers['x-api-app-key'] !== auth.appKey) ||
      (auth?.accessKey !== undefined && headers['x-api-access-key'] !== auth.accessKey)
    ) {
      decline({ status: 401, body: errorBody('invalid X-Api-App-Key or X-Api-Access-Key') });
      return;
    }
    if (
      auth?.resourceIds !== undefined &&
      !auth.resourceIds.includes(headers['x-api-resource-id'] ?? '')
    ) {
      decline({
        status: 403,
        body: errorBody(`requested resource not granted: ${headers['x-api-resource-id']}`),
      });
      return;
    }
    handshakeHeaders.set(request, [
      `X-Api-Connect-Id: ${headers['x-api-connect-id'] ?? randomUUID()}`,
      `X-Tt-Logid: ${logId}`,
    ]);
    wss.handleUpgrade(request, socket, head, (ws) => {
      const mine = faults.filter(
        (fault) => fault.connection === undefined || fault.connection === index,
      );
      const connection = serveConnection(ws, socket, {
        index,
        endpoint,
        headers,
        logId,
        script,
        faults: mine,
        options,
      });
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

interface ConnectionSetup {
  index: number;
  endpoint: AsrEndpoint;
  headers: Record<string, string>;
  logId: string;
  script: readonly ScriptedUtterance[];
  faults: AsrFault[];
  options: AsrTestServerOptions;
}

const NOSTREAM_WINDOW_MS = 15_000;

function serveConnection(ws: WebSocket, socket: Socket, setup: ConnectionSetup): AsrTestConnection {
  const { endpoint, options } = setup;
  const audioChunks: Uint8Array[] = [];
  let audioBytes = 0;
  let serialization: Serialization = 'json';
  let compression: Compression = 'gzip';
  let sequence = 0;
  let silent = false;
  let ended = false;
  let bytesPerMs = 32;
  let resultType: 'full' | 'single' = 'full';
  let showUtterances = false;
  let definiteLagMs = options.definiteLagMs ?? 800;
  let lastSentKey: string | undefined;
  let nostreamHeardMs = 0;
  let script = setup.script;
  const sentDefinite = new Set<string>();
  const pendingFaults = [...setup.faults];
  let packetTimer: ReturnType<typeof setTimeout> | undefined;
  let resolveClosed!: () => void;

  const connection: AsrTestConnection = {
    index: setup.index,
    endpoint,
    headers: setup.headers,
    logId: setup.logId,
    request: undefined,
    frames: [],
    get audio() {
      return Buffer.concat(audioChunks, audioBytes);
    },
    packets: 0,
    lastPacketReceived: false,
    audioMs: 0,
    framesSent: 0,
    closed: new Promise<void>((resolve) => {
      resolveClosed = resolve;
    }),
    referenceOffsetMs: undefined,
  };

  /** Aligns the script with the reference audio from the first packet on (see `referenceAudio`). */
  const locateInReference = (payload: Uint8Array) => {
    const reference = options.referenceAudio;
    if (reference === undefined || payload.byteLength === 0) return;
    const haystack = Buffer.from(reference.buffer, reference.byteOffset, reference.byteLength);
    const needle = payload.subarray(0, Math.min(payload.byteLength, 6400));
    const frame = (bytesPerMs / 32) * 2;
    let at = haystack.indexOf(needle);
    while (at >= 0 && at % frame !== 0) at = haystack.indexOf(needle, at + 1);
    if (at < 0) return;
    const offsetMs = at / bytesPerMs;
    connection.referenceOffsetMs = offsetMs;
    script = setup.script
      .filter((utterance) => utterance.start_time >= offsetMs)
      .map((utterance) => ({
        ...utterance,
        start_time: Math.round(utterance.start_time - offsetMs),
        end_time: Math.round(utterance.end_time - offsetMs),
      }));
  };

  const send = (frame: AsrFrame | Uint8Array) => {
    const bytes = frame instanceof Uint8Array ? frame : encodeFrame(frame);
    const write = () => {
      if (ws.readyState !== WebSocket.OPEN) return;
      connection.framesSent += 1;
      ws.send(bytes);
    };
    if (options.responseDelayMs) setTimeout(write, options.responseDelayMs);
    else write();
  };

  const later = (action: () => void) => {
    if (options.responseDelayMs) setTimeout(action, options.responseDelayMs);
    else action();
  };

  const sendError = (code: number, message: string) => {
    ended = true;
    send({
      type: 'error',
      flags: FRAME_FLAGS.NONE,
      serialization,
      compression: 'none',
      payload: { code, message },
    });
    later(() => ws.close(1000));
  };

  const sendResponse = (
    payload: JsonObject | Uint8Array,
    flags: FrameFlags,
    sequenceValue?: number,
  ) => {
    const common = sequenceValue === undefined ? { flags } : { flags, sequence: sequenceValue };
    if (payload instanceof Uint8Array) {
      // Bytes where JSON is declared, as a misbehaving service sends them; an empty payload has
      // size 0 even when the stream is gzipped.
      const bytes = encodeFrame({
        type: 'full-server-response',
        ...common,
        serialization: 'none',
        compression: payload.byteLength === 0 ? 'none' : compression,
        payload,
      });
      bytes[2] = 0x10 | (compression === 'gzip' ? 1 : 0);
      send(bytes);
    } else {
      send({
        type: 'full-server-response',
        ...common,
        serialization: 'json',
        compression,
        payload,
      });
    }
  };

  const sendPartial = (payload: JsonObject | Uint8Array) => {
    if (options.sequencedPartials) {
      sequence += 1;
      sendResponse(payload, FRAME_FLAGS.SEQUENCE, sequence);
    } else {
      sendResponse(payload, FRAME_FLAGS.NONE);
    }
  };

  const sendFinal = (payload: JsonObject | Uint8Array) => {
    sequence += 1;
    // Real servers mark the final result with flags 0b0011 and a POSITIVE sequence.
    sendResponse(payload, FRAME_FLAGS.LAST_WITH_SEQUENCE, sequence);
  };

  const resultPayload = (final: boolean, heardMs = connection.audioMs) => {
    let utterances = recogniseScript(script, heardMs, { definiteLagMs, final });
    if (resultType === 'single')
      utterances = utterances.filter((u) => !sentDefinite.has(`${u.start_time}/${u.end_time}`));
    for (const utterance of utterances) {
      if (utterance.definite) sentDefinite.add(`${utterance.start_time}/${utterance.end_time}`);
    }
    return buildAsrResponsePayload({ utterances, audioMs: connection.audioMs, showUtterances });
  };

  const armPacketTimer = () => {
    if (options.packetTimeoutMs === undefined) return;
    clearTimeout(packetTimer);
    packetTimer = setTimeout(() => {
      if (!ended)
        sendError(
          ASR_SERVICE_CODES.PACKET_TIMEOUT,
          `no audio packet for ${options.packetTimeoutMs} ms`,
        );
    }, options.packetTimeoutMs);
  };

  /** Runs the faults due at this point; returns false when the connection is gone. */
  const runFaults = (
    due: (point: AsrFaultPoint) => boolean,
    isLast: boolean,
  ): { alive: boolean; finalSent: boolean } => {
    let finalSent = false;
    for (const fault of [...pendingFaults]) {
      if (!due(fault.at)) continue;
      pendingFaults.splice(pendingFaults.indexOf(fault), 1);
      switch (fault.type) {
        case 'error':
          sendError(fault.code, fault.message ?? `injected error ${fault.code}`);
          return { alive: false, finalSent };
        case 'close':
          ended = true;
          later(() => ws.terminate());
          return { alive: false, finalSent };
        case 'silence':
          silent = true;
          break;
        case 'stop-reading':
          socket.pause();
          if (fault.resumeAfterMs !== undefined)
            setTimeout(() => socket.resume(), fault.resumeAfterMs);
          break;
        case 'raw':
          send(fault.bytes);
          break;
        case 'response':
          if (fault.flags !== undefined && (fault.flags & 1) === 1) {
            sendResponse(fault.payload, fault.flags, fault.sequence ?? sequence + 1);
          } else {
            sendResponse(fault.payload, fault.flags ?? FRAME_FLAGS.NONE);
          }
          break;
        case 'empty-payload':
        case 'non-json-payload': {
          const body =
            fault.type === 'empty-payload'
              ? new Uint8Array(0)
              : new TextEncoder().encode(fault.body ?? '<html>oops</html>');
          if (fault.final === true && isLast) {
            sendFinal(body);
            finalSent = true;
          } else {
            sendPartial(body);
          }
          break;
        }
      }
    }
    return { alive: true, finalSent };
  };

  const onRequest = (frame: AsrFrame) => {
    if (frame.type !== 'full-client-request' || frame.serialization !== 'json') {
      sendError(ASR_SERVICE_CODES.INVALID_REQUEST, 'the full client request must be JSON');
      return;
    }
    serialization = frame.serialization;
    compression = frame.compression;
    const parsed = createAsrRequestSchema(endpoint).safeParse(frame.payload);
    if (!parsed.success) {
      const issues = toAsrIssues(parsed.error.issues);
      const audioProblem = issues.some((issue) => issue.path.startsWith('audio.'));
      sendError(
        audioProblem ? ASR_SERVICE_CODES.AUDIO_FORMAT : ASR_SERVICE_CODES.INVALID_REQUEST,
        issues.map((issue) => `${issue.path}: ${issue.message}`).join('; '),
      );
      return;
    }
    connection.request = frame.payload;
    const request = parsed.data;
    bytesPerMs = 32 * (request.audio.channel ?? 1);
    resultType = request.request.result_type ?? 'full';
    showUtterances = request.request.show_utterances === true;
    definiteLagMs = options.definiteLagMs ?? request.request.end_window_size ?? 800;
    sequence += 1;
    sendResponse(
      buildAsrResponsePayload({ utterances: [], audioMs: 0, showUtterances: false }),
      FRAME_FLAGS.SEQUENCE,
      sequence,
    );
    runFaults((point) => 'afterRequest' in point, false);
    armPacketTimer();
  };

  const onAudio = (frame: Extract<AsrFrame, { type: 'audio-only-request' }>) => {
    const previousMs = connection.audioMs;
    if (audioBytes === 0) locateInReference(frame.payload);
    audioChunks.push(frame.payload);
    audioBytes += frame.payload.byteLength;
    connection.packets += 1;
    connection.audioMs = audioBytes / bytesPerMs;
    const isLast = flagsAreLast(frame.flags);
    if (isLast) connection.lastPacketReceived = true;
    const { alive, finalSent } = runFaults(
      (point) =>
        ('afterPackets' in point && point.afterPackets === connection.packets) ||
        ('afterAudioMs' in point &&
          previousMs < point.afterAudioMs &&
          connection.audioMs >= point.afterAudioMs) ||
        ('onLastPacket' in point && isLast),
      isLast,
    );
    if (!alive) return;
    if (isLast) {
      clearTimeout(packetTimer);
      if (audioBytes === 0) {
        sendError(ASR_SERVICE_CODES.EMPTY_AUDIO, 'no audio was received before the last packet');
        return;
      }
      ended = true;
      if (!silent && !finalSent) sendFinal(resultPayload(true));
      if (!silent) later(() => ws.close(1000));
      return;
    }
    armPacketTimer();
    if (silent) return;
    if (endpoint === 'bigmodel_nostream') {
      // Results only once the audio passes each 15 s mark; in between, the same result is repeated.
      const boundary = Math.floor(connection.audioMs / NOSTREAM_WINDOW_MS) * NOSTREAM_WINDOW_MS;
      if (boundary > nostreamHeardMs) nostreamHeardMs = boundary;
      const payload = buildAsrResponsePayload({
        utterances: recogniseScript(script, nostreamHeardMs, {
          definiteLagMs: 0,
          final: true,
        }),
        audioMs: connection.audioMs,
        showUtterances,
      });
      sendPartial(payload);
      return;
    }
    const payload = resultPayload(false);
    if (endpoint === 'bigmodel_async') {
      const key = JSON.stringify(payload.result);
      if (key === lastSentKey) return;
      lastSentKey = key;
    }
    sendPartial(payload);
  };

  ws.on('message', (data, isBinary) => {
    if (ended) return;
    if (!isBinary) {
      sendError(
        ASR_SERVICE_CODES.INVALID_REQUEST,
        'text messages are not part of the protocol; send binary frames',
      );
      return;
    }
    const bytes = Array.isArray(data)
      ? Buffer.concat(data)
      : Buffer.isBuffer(data)
        ? data
        : new Uint8Array(data);
    let frame: AsrFrame;
    try {
      frame = decodeFrame(bytes);
    } catch (error) {
      const message = isAsrProtocolError(error) ? `${error.code}: ${error.message}` : String(error);
      sendError(ASR_SERVICE_CODES.INVALID_REQUEST, `malformed frame: ${message}`);
      return;
    }
    connection.frames.push(frame);
    if (frame.type === 'full-server-response' || frame.type === 'error') {
      sendError(ASR_SERVICE_CODES.INVALID_REQUEST, `a client may not send a ${frame.type} frame`);
    } else if (connection.request === undefined) {
      if (frame.type === 'audio-only-request') {
        sendError(
          ASR_SERVICE_CODES.INVALID_REQUEST,
          'audio arrived before the full client request',
        );
      } else {
        onRequest(frame);
      }
    } else if (frame.type === 'full-client-request') {
      sendError(ASR_SERVICE_CODES.INVALID_REQUEST, 'repeated full client request');
    } else {
      onAudio(frame);
    }
  });
  ws.on('close', () => {
    clearTimeout(packetTimer);
    resolveClosed();
  });
  ws.on('error', () => {
    // A client dropping mid-frame: the close handler does the bookkeeping.
  });
  return connection;
}
