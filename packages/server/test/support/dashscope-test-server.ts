// A DashScope real-time recognition service for tests: a WebSocket server on 127.0.0.1 that
// speaks the documented duplex protocol (bearer key in the handshake; run-task / finish-task JSON
// instructions; binary PCM; task-started / result-generated / task-finished / task-failed events)
// and "recognises" scripted sentences where they lie in a reference recording, the way the real
// service hears what it is sent: a connection that resends from the middle of the lecture hears
// the sentences that lie there, timed from its own first audio. Faults: a dropped connection, a
// task-failed event, a refused key (at the handshake, as the service does, or as a task-failed).
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { recogniseScript, type ScriptedUtterance } from '@class-assistant/asr-protocol/testing';
import { WebSocket, WebSocketServer } from 'ws';

/** 16 kHz mono 16-bit PCM. */
const BYTES_PER_MS = 32;

/** A fault of one connection, after that much of its audio. */
export type DashscopeFault =
  | { type: 'close'; afterAudioMs: number; connection: number }
  | {
      type: 'task-failed';
      code: string;
      message: string;
      afterAudioMs: number;
      connection: number;
    };

/** Options of {@link createDashscopeTestServer}. */
export interface DashscopeTestServerOptions {
  /** The key the service accepts (`Authorization: bearer <key>`). */
  apiKey: string;
  /** How a wrong key is refused: an HTTP 401 handshake (default) or a task-failed InvalidApiKey. */
  keyRefusal?: 'handshake' | 'task-failed';
  /** The models it knows. Default fun-asr-realtime. */
  models?: string[];
  /** The audio the sentences' times refer to (PCM as clients send it). */
  referenceAudio: Uint8Array;
  /** What is said, in ms of the reference audio. */
  sentences: Array<{ text: string; begin_time: number; end_time: number }>;
  /** Silence after a sentence before it is final (the service's VAD). Default 400 ms. */
  finalLagMs?: number;
  faults?: DashscopeFault[];
}

/** One connection as the test server saw it. */
interface DashscopeTestConnection {
  index: number;
  /** Handshake headers, lower-case names. */
  headers: Record<string, string>;
  /** The run-task instruction as received. */
  runTask: Record<string, unknown> | undefined;
  /** Every instruction (text frame) received, parsed. */
  instructions: Array<Record<string, unknown>>;
  /** Every event sent, parsed. */
  events: Array<{ header: Record<string, unknown>; payload: Record<string, unknown> }>;
  /** The audio received. */
  audio: Buffer;
  /** Where its first audio lies in the reference, in ms. */
  referenceOffsetMs: number | undefined;
}

/** A running test service. */
export interface DashscopeTestServer {
  /** `ws://127.0.0.1:<port>/api-ws/v1/inference` */
  url: string;
  connections: DashscopeTestConnection[];
  /** Handshakes refused (wrong key). */
  refusals: number;
  close(): Promise<void>;
}

/** Starts the service. */
export async function createDashscopeTestServer(
  options: DashscopeTestServerOptions,
): Promise<DashscopeTestServer> {
  const models = options.models ?? ['fun-asr-realtime'];
  const finalLagMs = options.finalLagMs ?? 400;
  const connections: DashscopeTestConnection[] = [];
  const sockets = new Set<Socket>();
  let refusals = 0;
  const http = createServer((_request, response) => response.writeHead(404).end());
  http.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const wss = new WebSocketServer({ noServer: true });
  const keyOf = (request: IncomingMessage) =>
    /^bearer\s+(.+)$/i.exec(request.headers.authorization ?? '')?.[1]?.trim();

  http.on('upgrade', (request, socket, head) => {
    if (options.keyRefusal !== 'task-failed' && keyOf(request) !== options.apiKey) {
      refusals += 1;
      const body = JSON.stringify({
        code: 'InvalidApiKey',
        message: 'Invalid API-key provided.',
        request_id: randomUUID(),
      });
      socket.end(
        `HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
      );
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => serve(ws, request));
  });

  function serve(ws: WebSocket, request: IncomingMessage) {
    const connection: DashscopeTestConnection = {
      index: connections.length + 1,
      headers: Object.fromEntries(
        Object.entries(request.headers).map(([name, value]) => [name, String(value)]),
      ),
      runTask: undefined,
      instructions: [],
      events: [],
      audio: Buffer.alloc(0),
      referenceOffsetMs: undefined,
    };
    connections.push(connection);
    let taskId = '';
    let started = false;
    let over = false;
    let script: ScriptedUtterance[] = [];
    let finals = 0;
    let lastPartial = '';

    const send = (event: string, payload: Record<string, unknown>, extra: object = {}) => {
      if (ws.readyState !== WebSocket.OPEN) return;
      const message = { header: { task_id: taskId, event, attributes: {}, ...extra }, payload };
      connection.events.push(message as DashscopeTestConnection['events'][number]);
      ws.send(JSON.stringify(message));
    };
    const failTask = (code: string, message: string) => {
      send('task-failed', {}, { error_code: code, error_message: message });
      over = true;
      ws.close(1000);
    };
    const sentence = (text: string, begin: number, end: number, final: boolean) => ({
      output: {
        sentence: {
          begin_time: begin,
          end_time: final ? end : null,
          text,
          heartbeat: false,
          sentence_end: final,
          sentence_id: finals + 1,
          words: [],
        },
      },
      ...(final ? { usage: { duration: Math.ceil(end / 1000) } } : { usage: null }),
    });

    /** Reports what the audio so far makes of the script: new finals, then the partial. */
    const recognise = (final: boolean) => {
      const heard = recogniseScript(script, connection.audio.byteLength / BYTES_PER_MS, {
        definiteLagMs: finalLagMs,
        final,
      });
      const definite = heard.filter((utterance) => utterance.definite);
      for (const utterance of definite.slice(finals)) {
        send(
          'result-generated',
          sentence(utterance.text, utterance.start_time, utterance.end_time, true),
        );
        finals += 1;
        lastPartial = '';
      }
      const partial = heard.find((utterance) => !utterance.definite);
      if (partial && partial.text !== lastPartial) {
        lastPartial = partial.text;
        send(
          'result-generated',
          sentence(partial.text, partial.start_time, partial.end_time, false),
        );
      }
    };

    /** Aligns the script with the reference from the connection's first audio on. */
    const locate = (first: Buffer) => {
      const reference = Buffer.from(
        options.referenceAudio.buffer,
        options.referenceAudio.byteOffset,
        options.referenceAudio.byteLength,
      );
      const needle = first.subarray(0, Math.min(first.byteLength, 3200));
      let at = reference.indexOf(needle);
      while (at >= 0 && at % 2 !== 0) at = reference.indexOf(needle, at + 1);
      const offsetMs = at < 0 ? 0 : at / BYTES_PER_MS;
      connection.referenceOffsetMs = offsetMs;
      script = options.sentences
        .filter((item) => item.begin_time >= offsetMs)
        .map((item) => ({
          text: item.text,
          start_time: Math.round(item.begin_time - offsetMs),
          end_time: Math.round(item.end_time - offsetMs),
        }));
    };

    ws.on('message', (data, isBinary) => {
      if (over) return;
      const bytes = Buffer.isBuffer(data) ? data : Buffer.from(data as ArrayBuffer);
      if (isBinary) {
        if (!started) return failTask('InvalidParameter', 'audio sent before task-started');
        if (connection.audio.byteLength === 0) locate(bytes);
        const before = connection.audio.byteLength / BYTES_PER_MS;
        connection.audio = Buffer.concat([connection.audio, bytes]);
        const after = connection.audio.byteLength / BYTES_PER_MS;
        for (const fault of options.faults ?? []) {
          if (fault.connection !== connection.index) continue;
          if (before < fault.afterAudioMs && after >= fault.afterAudioMs) {
            if (fault.type === 'close') {
              over = true;
              ws.terminate();
            } else {
              failTask(fault.code, fault.message);
            }
            return;
          }
        }
        recognise(false);
        return;
      }
      let instruction: { header?: Record<string, unknown>; payload?: Record<string, unknown> };
      try {
        instruction = JSON.parse(bytes.toString('utf8'));
      } catch {
        return failTask('InvalidParameter', 'the instruction is not JSON');
      }
      connection.instructions.push(instruction as Record<string, unknown>);
      const header = instruction.header ?? {};
      const payload = instruction.payload ?? {};
      if (header.action === 'run-task') {
        connection.runTask = instruction as Record<string, unknown>;
        taskId = typeof header.task_id === 'string' ? header.task_id : '';
        const parameters = (payload.parameters ?? {}) as Record<string, unknown>;
        if (options.keyRefusal === 'task-failed' && keyOf(request) !== options.apiKey) {
          return failTask('InvalidApiKey', 'Invalid API-key provided.');
        }
        if (
          taskId === '' ||
          header.streaming !== 'duplex' ||
          payload.task_group !== 'audio' ||
          payload.task !== 'asr' ||
          payload.function !== 'recognition' ||
          typeof parameters.format !== 'string' ||
          typeof parameters.sample_rate !== 'number'
        ) {
          return failTask('InvalidParameter', 'Required parameter(s) missing or invalid');
        }
        if (!models.includes(String(payload.model))) {
          return failTask('ModelNotFound', `Model not found (${String(payload.model)})`);
        }
        started = true;
        send('task-started', {});
        // With `heartbeat: true` the service keeps the task alive with empty results: ignorable.
        if (parameters.heartbeat === true) {
          send('result-generated', {
            output: {
              sentence: { begin_time: 0, end_time: 0, text: '', heartbeat: true, sentence_id: 0 },
            },
          });
        }
        return;
      }
      if (header.action === 'finish-task') {
        if (!started || header.task_id !== taskId) {
          return failTask('InvalidParameter', 'finish-task for an unknown task');
        }
        recognise(true);
        send('task-finished', { output: {}, usage: null });
        over = true;
        return;
      }
      failTask('InvalidParameter', `unknown action ${String(header.action)}`);
    });
  }

  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `ws://127.0.0.1:${port}/api-ws/v1/inference`,
    connections,
    get refusals() {
      return refusals;
    },
    async close() {
      for (const client of wss.clients) client.terminate();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
