// One connection of the test server: everything it knows about the connection is in one object,
// the TestConnection, whose public fields are what a test reads (AsrTestConnection) and whose
// private fields are the protocol state. Replies follow the endpoint, faults come from
// fault-injection.ts, the request is read by service-request.ts.
import type { Socket } from 'node:net';
import { WebSocket } from 'ws';
import type { AsrEndpoint } from '../endpoints.ts';
import { isAsrProtocolError } from '../errors.ts';
import {
  type AsrFrame,
  type Compression,
  decodeFrame,
  encodeFrame,
  FRAME_FLAGS,
  type FrameFlags,
  flagsAreLast,
  flagsHaveSequence,
  type JsonObject,
  type Serialization,
} from '../frame-codec.ts';
import { ASR_SERVICE_CODES } from '../service-codes.ts';
import type { AsrTestServerOptions } from './asr-test-server.ts';
import { createFaultQueue, type FaultMoment, type FaultTarget } from './fault-injection.ts';
import {
  buildAsrResponsePayload,
  recogniseScript,
  type ScriptedUtterance,
} from './response-builder.ts';
import { type AsrRequestWarning, readServiceRequest } from './service-request.ts';

/** One connection as the test server saw it. */
export interface AsrTestConnection {
  /** 1-based, in order of arrival. */
  index: number;
  endpoint: AsrEndpoint;
  /** Handshake request headers, lower-case names. */
  headers: Record<string, string>;
  /** The `X-Tt-Logid` sent back. */
  logId: string;
  /** The full client request payload as received, once received. */
  request: JsonObject | undefined;
  /**
   * What the server accepted in the request but a strict client would not send: unknown and
   * legacy fields, a missing model name, options the endpoint ignores. Empty for a clean request.
   */
  warnings: AsrRequestWarning[];
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

/** What the server learnt at the handshake, handed to the connection it opens. */
export interface Handshake {
  index: number;
  endpoint: AsrEndpoint;
  headers: Record<string, string>;
  logId: string;
}

/** The bigmodel_nostream endpoint answers with results only past each 15 s of audio. */
const NOSTREAM_WINDOW_MS = 15_000;
/** Silence after a sentence before it turns definite, when neither option nor request says. */
const DEFAULT_DEFINITE_LAG_MS = 800;
/** How much of a first packet is looked up in the reference audio. */
const REFERENCE_PROBE_BYTES = 6400;

/** A connection of the test server; see {@link AsrTestConnection} for what tests read. */
export class TestConnection implements AsrTestConnection {
  readonly index: number;
  readonly endpoint: AsrEndpoint;
  readonly headers: Record<string, string>;
  readonly logId: string;
  readonly closed: Promise<void>;
  request: JsonObject | undefined;
  warnings: AsrRequestWarning[] = [];
  frames: AsrFrame[] = [];
  packets = 0;
  lastPacketReceived = false;
  audioMs = 0;
  framesSent = 0;
  referenceOffsetMs: number | undefined;

  readonly #ws: WebSocket;
  readonly #socket: Socket;
  readonly #options: AsrTestServerOptions;
  readonly #fullScript: readonly ScriptedUtterance[];
  readonly #faults;
  /** The script heard on this connection: shifted when it joined the reference audio later. */
  #script: readonly ScriptedUtterance[];
  #audioChunks: Uint8Array[] = [];
  #audioBytes = 0;
  /** Replies use the client's serialization, and its compression unless `replyCompression` says. */
  #serialization: Serialization = 'json';
  #compression: Compression = 'gzip';
  /** Sequence of the last numbered reply. */
  #sequence = 0;
  #silent = false;
  #ended = false;
  #bytesPerMs = 32;
  #resultType: 'full' | 'single' = 'full';
  #showUtterances = false;
  #definiteLagMs: number;
  /** The result last sent on bigmodel_async, which answers only when it changes. */
  #lastSentResult: string | undefined;
  /** Audio recognised so far on bigmodel_nostream (a multiple of its 15 s window). */
  #nostreamHeardMs = 0;
  /** Sentences sent as definite, for `result_type: single`. */
  #sentDefinite = new Set<string>();
  #packetTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    ws: WebSocket,
    socket: Socket,
    handshake: Handshake,
    script: readonly ScriptedUtterance[],
    faults: Parameters<typeof createFaultQueue>[0],
    options: AsrTestServerOptions,
  ) {
    this.index = handshake.index;
    this.endpoint = handshake.endpoint;
    this.headers = handshake.headers;
    this.logId = handshake.logId;
    this.#ws = ws;
    this.#socket = socket;
    this.#options = options;
    this.#fullScript = script;
    this.#script = script;
    this.#faults = createFaultQueue(faults, handshake.index);
    this.#definiteLagMs = options.definiteLagMs ?? DEFAULT_DEFINITE_LAG_MS;
    this.closed = new Promise<void>((resolve) => {
      ws.on('close', () => {
        clearTimeout(this.#packetTimer);
        resolve();
      });
    });
    ws.on('message', (data, isBinary) => this.#onMessage(data, isBinary));
    ws.on('error', () => {
      // A client dropping mid-frame: the close handler does the bookkeeping.
    });
  }

  get audio(): Uint8Array {
    return Buffer.concat(this.#audioChunks, this.#audioBytes);
  }

  #onMessage(data: WebSocket.RawData, isBinary: boolean): void {
    if (this.#ended) return;
    if (!isBinary) {
      this.#sendError(
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
      this.#sendError(ASR_SERVICE_CODES.INVALID_REQUEST, `malformed frame: ${message}`);
      return;
    }
    this.frames.push(frame);
    if (frame.type === 'full-server-response' || frame.type === 'error') {
      this.#sendError(
        ASR_SERVICE_CODES.INVALID_REQUEST,
        `a client may not send a ${frame.type} frame`,
      );
    } else if (this.request === undefined) {
      if (frame.type === 'audio-only-request') {
        this.#sendError(
          ASR_SERVICE_CODES.INVALID_REQUEST,
          'audio arrived before the full client request',
        );
      } else {
        this.#onRequest(frame);
      }
    } else if (frame.type === 'full-client-request') {
      this.#sendError(ASR_SERVICE_CODES.INVALID_REQUEST, 'repeated full client request');
    } else {
      this.#onAudio(frame);
    }
  }

  #onRequest(frame: AsrFrame): void {
    if (frame.type !== 'full-client-request' || frame.serialization !== 'json') {
      this.#sendError(ASR_SERVICE_CODES.INVALID_REQUEST, 'the full client request must be JSON');
      return;
    }
    this.#serialization = frame.serialization;
    const reply = this.#options.replyCompression ?? 'client';
    this.#compression = reply === 'client' ? frame.compression : reply;
    const reading = readServiceRequest(frame.payload, this.endpoint);
    this.warnings = reading.warnings;
    if (!reading.ok) {
      this.#sendError(reading.serviceCode, reading.message);
      return;
    }
    this.request = frame.payload;
    const { audio, request } = reading.request;
    this.#bytesPerMs = 32 * (audio.channel ?? 1);
    this.#resultType = request.result_type ?? 'full';
    this.#showUtterances = request.show_utterances === true;
    this.#definiteLagMs =
      this.#options.definiteLagMs ?? request.end_window_size ?? DEFAULT_DEFINITE_LAG_MS;
    this.#sequence += 1;
    this.#sendResponse(
      buildAsrResponsePayload({ utterances: [], audioMs: 0, showUtterances: false }),
      FRAME_FLAGS.SEQUENCE,
      this.#sequence,
    );
    this.#fireFaults({ kind: 'request' });
    this.#armPacketTimer();
  }

  #onAudio(frame: Extract<AsrFrame, { type: 'audio-only-request' }>): void {
    const audioMsBefore = this.audioMs;
    if (this.#audioBytes === 0) this.#locateInReference(frame.payload);
    this.#audioChunks.push(frame.payload);
    this.#audioBytes += frame.payload.byteLength;
    this.packets += 1;
    this.audioMs = this.#audioBytes / this.#bytesPerMs;
    const last = flagsAreLast(frame.flags);
    if (last) this.lastPacketReceived = true;
    const { alive, finalSent } = this.#fireFaults({
      kind: 'audio',
      packets: this.packets,
      audioMsBefore,
      audioMs: this.audioMs,
      last,
    });
    if (!alive) return;
    if (last) {
      clearTimeout(this.#packetTimer);
      if (this.#audioBytes === 0) {
        this.#sendError(
          ASR_SERVICE_CODES.EMPTY_AUDIO,
          'no audio was received before the last packet',
        );
        return;
      }
      this.#ended = true;
      if (!this.#silent && !finalSent) this.#sendFinal(this.#resultPayload(true));
      if (!this.#silent) this.#later(() => this.#ws.close(1000));
      return;
    }
    this.#armPacketTimer();
    if (this.#silent) return;
    if (this.endpoint === 'bigmodel_nostream') {
      // Results only once the audio passes each 15 s mark; in between, the same result is repeated.
      const boundary = Math.floor(this.audioMs / NOSTREAM_WINDOW_MS) * NOSTREAM_WINDOW_MS;
      if (boundary > this.#nostreamHeardMs) this.#nostreamHeardMs = boundary;
      this.#sendPartial(
        buildAsrResponsePayload({
          utterances: recogniseScript(this.#script, this.#nostreamHeardMs, {
            definiteLagMs: 0,
            final: true,
          }),
          audioMs: this.audioMs,
          showUtterances: this.#showUtterances,
        }),
      );
      return;
    }
    const payload = this.#resultPayload(false);
    if (this.endpoint === 'bigmodel_async') {
      const result = JSON.stringify(payload.result);
      if (result === this.#lastSentResult) return;
      this.#lastSentResult = result;
    }
    this.#sendPartial(payload);
  }

  /** Aligns the script with the reference audio from the first packet on (see `referenceAudio`). */
  #locateInReference(payload: Uint8Array): void {
    const reference = this.#options.referenceAudio;
    if (reference === undefined || payload.byteLength === 0) return;
    const haystack = Buffer.from(reference.buffer, reference.byteOffset, reference.byteLength);
    const needle = payload.subarray(0, Math.min(payload.byteLength, REFERENCE_PROBE_BYTES));
    const sampleFrame = (this.#bytesPerMs / 32) * 2;
    let at = haystack.indexOf(needle);
    while (at >= 0 && at % sampleFrame !== 0) at = haystack.indexOf(needle, at + 1);
    if (at < 0) return;
    const offsetMs = at / this.#bytesPerMs;
    this.referenceOffsetMs = offsetMs;
    this.#script = this.#fullScript
      .filter((utterance) => utterance.start_time >= offsetMs)
      .map((utterance) => ({
        ...utterance,
        start_time: Math.round(utterance.start_time - offsetMs),
        end_time: Math.round(utterance.end_time - offsetMs),
      }));
  }

  #resultPayload(final: boolean): JsonObject {
    let utterances = recogniseScript(this.#script, this.audioMs, {
      definiteLagMs: this.#definiteLagMs,
      final,
    });
    const key = (utterance: { start_time: number; end_time: number }) =>
      `${utterance.start_time}/${utterance.end_time}`;
    if (this.#resultType === 'single') {
      utterances = utterances.filter((utterance) => !this.#sentDefinite.has(key(utterance)));
    }
    for (const utterance of utterances) {
      if (utterance.definite) this.#sentDefinite.add(key(utterance));
    }
    return buildAsrResponsePayload({
      utterances,
      audioMs: this.audioMs,
      showUtterances: this.#showUtterances,
    });
  }

  #fireFaults(moment: FaultMoment): { alive: boolean; finalSent: boolean } {
    const target: FaultTarget = {
      sendError: (code, message) => this.#sendError(code, message),
      terminate: () => {
        this.#ended = true;
        this.#later(() => this.#ws.terminate());
      },
      silence: () => {
        this.#silent = true;
      },
      stopReading: (resumeAfterMs) => {
        this.#socket.pause();
        if (resumeAfterMs !== undefined) setTimeout(() => this.#socket.resume(), resumeAfterMs);
      },
      sendRaw: (bytes) => this.#send(bytes),
      sendResponse: (payload, flags, sequence) =>
        this.#sendResponse(
          payload,
          flags,
          flagsHaveSequence(flags) ? (sequence ?? this.#sequence + 1) : undefined,
        ),
      sendPayloadBytes: (payload, final) =>
        final ? this.#sendFinal(payload) : this.#sendPartial(payload),
    };
    return this.#faults.fire(moment, target);
  }

  #armPacketTimer(): void {
    const timeoutMs = this.#options.packetTimeoutMs;
    if (timeoutMs === undefined) return;
    clearTimeout(this.#packetTimer);
    this.#packetTimer = setTimeout(() => {
      if (!this.#ended) {
        this.#sendError(ASR_SERVICE_CODES.PACKET_TIMEOUT, `no audio packet for ${timeoutMs} ms`);
      }
    }, timeoutMs);
  }

  /** Runs `action` after the reply delay (at once without one), keeping replies in order. */
  #later(action: () => void): void {
    const delayMs = this.#options.responseDelayMs;
    if (delayMs) setTimeout(action, delayMs);
    else action();
  }

  #send(frame: AsrFrame | Uint8Array): void {
    const bytes = frame instanceof Uint8Array ? frame : encodeFrame(frame);
    this.#later(() => {
      if (this.#ws.readyState !== WebSocket.OPEN) return;
      this.framesSent += 1;
      this.#ws.send(bytes);
    });
  }

  #sendError(code: number, message: string): void {
    this.#ended = true;
    this.#send({
      type: 'error',
      flags: FRAME_FLAGS.NONE,
      serialization: this.#serialization,
      compression: 'none',
      payload: { code, message },
    });
    this.#later(() => this.#ws.close(1000));
  }

  #sendResponse(payload: JsonObject | Uint8Array, flags: FrameFlags, sequence?: number): void {
    const numbered = sequence === undefined ? { flags } : { flags, sequence };
    if (!(payload instanceof Uint8Array)) {
      this.#send({
        type: 'full-server-response',
        ...numbered,
        serialization: 'json',
        compression: this.#compression,
        payload,
      });
      return;
    }
    // Bytes where JSON is declared, as a misbehaving service sends them; an empty payload has
    // size 0 even when the stream is gzipped.
    const bytes = encodeFrame({
      type: 'full-server-response',
      ...numbered,
      serialization: 'none',
      compression: payload.byteLength === 0 ? 'none' : this.#compression,
      payload,
    });
    bytes[2] = 0x10 | (this.#compression === 'gzip' ? 1 : 0);
    this.#send(bytes);
  }

  /** A partial result: numbered (flags 0b0001) unless `sequencedPartials` is false. */
  #sendPartial(payload: JsonObject | Uint8Array): void {
    if (this.#options.sequencedPartials === false) {
      this.#sendResponse(payload, FRAME_FLAGS.NONE);
      return;
    }
    this.#sequence += 1;
    this.#sendResponse(payload, FRAME_FLAGS.SEQUENCE, this.#sequence);
  }

  /** The final result: flags 0b0011 with a POSITIVE sequence, as the service sends it. */
  #sendFinal(payload: JsonObject | Uint8Array): void {
    this.#sequence += 1;
    this.#sendResponse(payload, FRAME_FLAGS.LAST_WITH_SEQUENCE, this.#sequence);
  }
}
