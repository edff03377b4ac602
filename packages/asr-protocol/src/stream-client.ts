// The streaming client (protocol sections 3, 4, 5): handshake with the four auth headers, the full
// client request, audio packets, the last packet, responses as typed events.
//
// Invariants:
// - Frames leave in order through one sender loop: the request first, then audio in the order
//   given, then the last packet. Nothing is sent after the last packet.
// - Each frame waits for the socket to take the previous one (the ws send callback fires once the
//   bytes are handed to the kernel), so a slow network slows `sendAudio()` instead of piling
//   frames up in memory.
// - The stream ends exactly once, in `closed` or `failed`; every pending promise settles then.

import { randomUUID } from 'node:crypto';
import type { ClientRequest, IncomingMessage } from 'node:http';
import WebSocket from 'ws';
import {
  type AsrEndpoint,
  checkBaseUrl,
  DEFAULT_ASR_BASE_URL,
  endpointUrl,
  isAsrEndpoint,
} from './endpoints.ts';
import { type AsrIssue, AsrProtocolError, isAsrProtocolError } from './errors.ts';
import {
  type Compression,
  DEFAULT_MAX_PAYLOAD_BYTES,
  decodeFrameEnvelope,
  encodeFrame,
  FRAME_FLAGS,
  type FrameEnvelope,
  type FrameFlags,
  flagsAreLast,
  type JsonObject,
  parseJsonPayload,
} from './frame-codec.ts';
import { type AsrRequest, validateAsrRequest } from './request-schema.ts';
import {
  type AsrResponse,
  type AsrUtterance,
  asrResponseSchema,
  responseResults,
} from './response-schema.ts';
import { ASR_SERVICE_CODES, describeServiceCode, isRetryableServiceCode } from './service-codes.ts';
import { createUtteranceTracker } from './utterance-tracker.ts';

/** Where a stream is in its life. `closed` and `failed` are final. */
export type AsrStreamState = 'connecting' | 'streaming' | 'finishing' | 'closed' | 'failed';

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

/** Options of {@link connectAsrStream}. */
export interface AsrStreamOptions {
  /** Base URL (ws, wss, http or https); the endpoint path is appended. Default {@link DEFAULT_ASR_BASE_URL}. */
  url?: string;
  /** Default `bigmodel_async`, the endpoint the protocol recommends. */
  endpoint?: AsrEndpoint;
  /** `X-Api-App-Key`: the application id. */
  appKey: string;
  /** `X-Api-Access-Key`: the access token. */
  accessKey: string;
  /** `X-Api-Resource-Id`, e.g. `volc.bigasr.sauc.duration`. */
  resourceId: string;
  /** `X-Api-Connect-Id`: connection tracking id. Default: a fresh UUID. */
  connectId?: string;
  /**
   * The full client request, validated for the endpoint before anything is sent. Default: 16 kHz
   * mono PCM, model bigmodel, `show_utterances: true` (needed for utterance events).
   */
  request?: AsrRequest;
  /** Compression of the request and audio (the service answers in kind). Default `gzip`. */
  compression?: Compression;
  /**
   * Number client frames: request 1, audio 2, 3, …, last packet negative (flags 0b0001/0b0011),
   * as some vendor samples do. Default false: flags 0b0000 and 0b0010, no sequence (section 3).
   */
  sequenceNumbers?: boolean;
  /** Time allowed for the WebSocket handshake. Default 10 000 ms. */
  handshakeTimeoutMs?: number;
  /**
   * Time allowed from `finish()` for the queued audio to be written and the final response to
   * arrive. Default 15 000 ms.
   */
  finishTimeoutMs?: number;
  /** Largest response payload accepted (compressed or inflated). Default 16 MiB. */
  maxPayloadBytes?: number;
  /** Aborting closes the stream; pending promises reject with `ASR_ABORTED`. */
  signal?: AbortSignal;
  /** WebSocket constructor; default `ws`'s. */
  WebSocket?: WebSocketConstructor;
}

/** Counters of one stream. */
export interface AsrStreamStats {
  /** Frames written to the socket (request, audio, last). */
  framesSent: number;
  /** Audio packets written, the last one included. */
  audioPacketsSent: number;
  /** Audio bytes written (before compression). */
  audioBytesSent: number;
  /** Milliseconds of audio written, for pcm/wav input (undefined for ogg/mp3). */
  audioMsSent: number | undefined;
  /** Audio bytes accepted by `sendAudio()` but not yet written. */
  audioBytesQueued: number;
  /** Frames received from the service. */
  framesReceived: number;
  /** Responses with a usable JSON payload. */
  responses: number;
  /** Responses ignored, by reason (never fatal, per the protocol). */
  ignoredPayloads: {
    /** Payload of zero bytes. */
    empty: number;
    /**
     * Payload that is not a JSON object: bad UTF-8, bad JSON, JSON but not an object, or flagged
     * gzip but not inflatable (e.g. a proxy's HTML page).
     */
    notJson: number;
    /** A JSON object that does not fit the response schema (e.g. `result.text` not a string). */
    invalid: number;
    /** An error frame carrying 20000000 (success). */
    successCode: number;
  };
  /** Latest `audio_info.duration` (ms of audio the service has processed), if any arrived. */
  audioDurationMs: number | undefined;
}

/** The outcome of a finished stream. */
export interface AsrFinalResult {
  /** The final text: the final response's `result.text`, else the latest text received. */
  text: string;
  /** Every definite utterance, once each, in order. */
  utterances: AsrUtterance[];
  /** The final response payload; undefined when it was empty or not JSON (the stream still ends). */
  response: AsrResponse | undefined;
  /** Latest `audio_info.duration` in ms. */
  audioDurationMs: number | undefined;
  logId: string | undefined;
  connectId: string;
  stats: AsrStreamStats;
}

/** Why a response was ignored. */
export type AsrIgnoreReason = 'empty' | 'not-json' | 'invalid' | 'success-code';

/** Events of a stream, by name. Each event object also carries its `type`. */
export interface AsrStreamEventMap {
  /** The state changed. */
  'state-change': { state: AsrStreamState; previous: AsrStreamState };
  /** A usable response arrived. */
  'response-receive': {
    sequence: number | undefined;
    /** True for the final response (flags 0b0010/0b0011). */
    last: boolean;
    response: AsrResponse;
    /** `result.text` of the (first) result, if present. */
    text: string | undefined;
    /** Utterances of every result, as sent. */
    utterances: AsrUtterance[];
    /** `audio_info.duration`: ms of audio the service has processed. */
    audioDurationMs: number | undefined;
  };
  /**
   * The current partial text changed: the latest non-definite utterance, or `result.text` when
   * the service sends no utterances. `text` is '' when nothing is pending.
   */
  'partial-update': {
    text: string;
    utterance: AsrUtterance | undefined;
    audioDurationMs: number | undefined;
  };
  /** A definite utterance, emitted once per (start_time, end_time, text). Needs `show_utterances`. */
  'utterance-complete': { utterance: AsrUtterance; audioDurationMs: number | undefined };
  /** A response was ignored (and counted in `stats.ignoredPayloads`). */
  'payload-ignore': {
    reason: AsrIgnoreReason;
    detail: string;
    sequence: number | undefined;
    last: boolean;
  };
  /** The stream failed; `end` follows. */
  error: { error: AsrProtocolError };
  /** The stream ended: `closed` (with `result` when the final response came) or `failed`. */
  end: {
    state: 'closed' | 'failed';
    result: AsrFinalResult | undefined;
    error: AsrProtocolError | undefined;
    stats: AsrStreamStats;
  };
}

/** Name of a stream event. */
export type AsrStreamEventType = keyof AsrStreamEventMap;

/** Every event type, in the order of a stream's life. */
export const ASR_STREAM_EVENT_TYPES: readonly AsrStreamEventType[] = [
  'state-change',
  'response-receive',
  'partial-update',
  'utterance-complete',
  'payload-ignore',
  'error',
  'end',
];
/** Any stream event, discriminated by `type`. */
export type AsrStreamEvent = {
  [K in AsrStreamEventType]: { type: K } & AsrStreamEventMap[K];
}[AsrStreamEventType];
/** The event object of one type. */
export type AsrStreamEventOf<K extends AsrStreamEventType> = Extract<AsrStreamEvent, { type: K }>;

/** Default request: 16 kHz mono PCM, bigmodel, utterances on. */
export const DEFAULT_ASR_REQUEST: AsrRequest = {
  audio: { format: 'pcm', codec: 'raw', rate: 16000, bits: 16, channel: 1 },
  request: { model_name: 'bigmodel', show_utterances: true },
};

const BODY_LIMIT = 64 * 1024;

type QueueItem =
  | { kind: 'request'; payload: JsonObject }
  | { kind: 'audio'; audio: Uint8Array; settle: Settle }
  | { kind: 'last'; settle: Settle };

interface Settle {
  resolve(): void;
  reject(error: AsrProtocolError): void;
}

function optionsError(issues: AsrIssue[]): AsrProtocolError {
  return new AsrProtocolError(
    'ASR_INVALID_OPTIONS',
    `invalid stream options: ${issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ')}`,
    { issues },
  );
}

// setTimeout takes at most 2^31 - 1 ms; a longer delay fires at once (Node warns and uses 1 ms).
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/**
 * What is wrong with a value sent as an HTTP header, or undefined. Header values must be visible
 * ASCII (spaces only inside): Node refuses line breaks and characters past U+00FF with a plain
 * TypeError, and silently sends Latin-1 for the rest, which the service would read differently.
 * The value itself is never quoted: these are credentials.
 */
function headerValueProblem(value: string): string | undefined {
  for (let index = 0; index < value.length; index += 1) {
    const code = value.charCodeAt(index);
    const edge = index === 0 || index === value.length - 1;
    if (code === 0x20 && !edge) continue;
    if (code > 0x20 && code < 0x7f) continue;
    const what =
      code === 0x0d || code === 0x0a
        ? 'a line break'
        : code === 0x20 || code === 0x09
          ? 'a space at an end'
          : code < 0x20 || code === 0x7f
            ? 'a control character'
            : 'a non-ASCII character';
    return `must be visible ASCII (a header value); found ${what} at character ${index + 1}`;
  }
  return undefined;
}

function checkTimeout(value: unknown): boolean {
  return (
    typeof value === 'number' && Number.isFinite(value) && value > 0 && value <= MAX_TIMEOUT_MS
  );
}

/**
 * Checks stream options as {@link connectAsrStream} does, without connecting; throws
 * `ASR_INVALID_OPTIONS` listing every problem. Internal (the CLI checks its arguments with it).
 */
export function checkStreamOptions(options: AsrStreamOptions): void {
  if (typeof options !== 'object' || options === null) {
    throw optionsError([{ path: '(options)', message: 'must be an object' }]);
  }
  const issues: AsrIssue[] = [];
  for (const key of ['appKey', 'accessKey', 'resourceId'] as const) {
    const value = options[key] as unknown;
    if (typeof value !== 'string' || value.trim() === '') {
      issues.push({ path: key, message: 'must be a non-empty string' });
      continue;
    }
    const problem = headerValueProblem(value);
    if (problem !== undefined) issues.push({ path: key, message: problem });
  }
  if (options.url !== undefined) {
    const url = checkBaseUrl(options.url);
    if (typeof url === 'string') issues.push({ path: 'url', message: url });
  }
  if (options.endpoint !== undefined && !isAsrEndpoint(options.endpoint)) {
    issues.push({
      path: 'endpoint',
      message: 'must be bigmodel, bigmodel_async or bigmodel_nostream',
    });
  }
  if (options.connectId !== undefined) {
    if (typeof options.connectId !== 'string' || options.connectId === '') {
      issues.push({ path: 'connectId', message: 'must be a non-empty string' });
    } else {
      const problem = headerValueProblem(options.connectId);
      if (problem !== undefined) issues.push({ path: 'connectId', message: problem });
    }
  }
  if (
    options.compression !== undefined &&
    options.compression !== 'gzip' &&
    options.compression !== 'none'
  ) {
    issues.push({ path: 'compression', message: 'must be gzip or none' });
  }
  for (const key of ['handshakeTimeoutMs', 'finishTimeoutMs'] as const) {
    if (options[key] !== undefined && !checkTimeout(options[key])) {
      issues.push({
        path: key,
        message: `must be a positive number of ms, at most ${MAX_TIMEOUT_MS}`,
      });
    }
  }
  const maxPayloadBytes = options.maxPayloadBytes;
  if (
    maxPayloadBytes !== undefined &&
    (!Number.isSafeInteger(maxPayloadBytes) || maxPayloadBytes <= 0)
  ) {
    issues.push({ path: 'maxPayloadBytes', message: 'must be a positive number (an integer)' });
  }
  if (options.sequenceNumbers !== undefined && typeof options.sequenceNumbers !== 'boolean') {
    issues.push({ path: 'sequenceNumbers', message: 'must be a boolean' });
  }
  const signal = options.signal as unknown;
  if (
    signal !== undefined &&
    (typeof signal !== 'object' ||
      signal === null ||
      typeof (signal as AbortSignal).addEventListener !== 'function' ||
      typeof (signal as AbortSignal).aborted !== 'boolean')
  ) {
    issues.push({ path: 'signal', message: 'must be an AbortSignal' });
  }
  if (options.WebSocket !== undefined && typeof options.WebSocket !== 'function') {
    issues.push({ path: 'WebSocket', message: 'must be a WebSocket constructor' });
  }
  if (issues.length > 0) throw optionsError(issues);
}

// The options are checked before, so a constructor that still throws (an injected one, a proxy
// agent, a future `ws` check) is a connection failure, reported like any other.
function openSocket(
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

function toBytes(data: Buffer | ArrayBuffer | Buffer[]): Uint8Array {
  if (Array.isArray(data)) return Buffer.concat(data);
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  return data;
}

function headerValue(response: IncomingMessage, name: string): string | undefined {
  const value = response.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function abortedError(signal: AbortSignal): AsrProtocolError {
  return new AsrProtocolError('ASR_ABORTED', 'the stream was aborted', { cause: signal.reason });
}

/**
 * One streaming recognition: created by {@link connectAsrStream}. Send audio with `sendAudio()`,
 * end with `finish()`; read results from events (`on`) or by iterating (`for await`).
 */
export class AsrStream implements AsyncIterable<AsrStreamEvent> {
  /** The URL connected to. */
  readonly url: string;
  readonly endpoint: AsrEndpoint;
  /** The `X-Api-Connect-Id` sent. */
  readonly connectId: string;
  #logId: string | undefined;
  #state: AsrStreamState = 'connecting';
  #socket: WebSocketLike;
  #compression: Compression;
  #sequenceNumbers: boolean;
  #finishTimeoutMs: number;
  #maxPayloadBytes: number;
  #bytesPerMs: number | undefined;
  #listeners = new Map<AsrStreamEventType, Set<(event: AsrStreamEvent) => void>>();
  #queue: QueueItem[] = [];
  /** Settles of the frame being written (taken off `#queue`, not yet acknowledged by the socket). */
  #inFlight: Settle[] = [];
  #pumping = false;
  #nextSequence = 1;
  #lastQueued = false;
  #finishPromise: Promise<AsrFinalResult> | undefined;
  #finishSettle:
    | { resolve(result: AsrFinalResult): void; reject(error: AsrProtocolError): void }
    | undefined;
  #finishTimer: ReturnType<typeof setTimeout> | undefined;
  #tracker = createUtteranceTracker();
  #lastText: string | undefined;
  #result: AsrFinalResult | undefined;
  #error: AsrProtocolError | undefined;
  #opened: { resolve(): void; reject(error: AsrProtocolError): void };
  #signal: AbortSignal | undefined;
  #onAbort = () => this.#end('closed', abortedError(this.#signal as AbortSignal));
  #stats: AsrStreamStats = {
    framesSent: 0,
    audioPacketsSent: 0,
    audioBytesSent: 0,
    audioMsSent: undefined,
    audioBytesQueued: 0,
    framesReceived: 0,
    responses: 0,
    ignoredPayloads: { empty: 0, notJson: 0, invalid: 0, successCode: 0 },
    audioDurationMs: undefined,
  };

  /** @internal Use {@link connectAsrStream}. */
  constructor(
    options: AsrStreamOptions & { request: AsrRequest; endpoint: AsrEndpoint; url: string },
    opened: { resolve(): void; reject(error: AsrProtocolError): void },
  ) {
    this.url = options.url;
    this.endpoint = options.endpoint;
    this.connectId = options.connectId ?? randomUUID();
    this.#compression = options.compression ?? 'gzip';
    this.#sequenceNumbers = options.sequenceNumbers ?? false;
    this.#finishTimeoutMs = options.finishTimeoutMs ?? 15_000;
    this.#maxPayloadBytes = options.maxPayloadBytes ?? DEFAULT_MAX_PAYLOAD_BYTES;
    this.#opened = opened;
    const audio = options.request.audio;
    if (audio.format === 'pcm' || audio.format === 'wav') {
      this.#bytesPerMs = 32 * (audio.channel ?? 1);
      this.#stats.audioMsSent = 0;
    }
    this.#queue.push({ kind: 'request', payload: options.request as unknown as JsonObject });
    const Socket = options.WebSocket ?? (WebSocket as unknown as WebSocketConstructor);
    this.#socket = openSocket(Socket, this.url, {
      headers: {
        'X-Api-App-Key': options.appKey,
        'X-Api-Access-Key': options.accessKey,
        'X-Api-Resource-Id': options.resourceId,
        'X-Api-Connect-Id': this.connectId,
      },
      handshakeTimeout: options.handshakeTimeoutMs ?? 10_000,
      perMessageDeflate: false,
      // A frame is at most 16 bytes of header around a payload the decoder accepts.
      maxPayload: this.#maxPayloadBytes + 64,
    });
    this.#attach();
    this.#signal = options.signal;
    this.#signal?.addEventListener('abort', this.#onAbort, { once: true });
  }

  /** Current state. */
  get state(): AsrStreamState {
    return this.#state;
  }

  /** The server's `X-Tt-Logid` from the handshake: record it to diagnose problems with the provider. */
  get logId(): string | undefined {
    return this.#logId;
  }

  /** A snapshot of the counters (ignored payloads included). */
  get stats(): AsrStreamStats {
    return { ...this.#stats, ignoredPayloads: { ...this.#stats.ignoredPayloads } };
  }

  /** The failure, once the state is `failed` (or the abort reason after an abort). */
  get error(): AsrProtocolError | undefined {
    return this.#error;
  }

  /**
   * Listens to one event type; returns a function that stops listening.
   *
   * @example
   * stream.on('utterance-complete', ({ utterance }) => console.log(utterance.text));
   */
  on<K extends AsrStreamEventType>(
    type: K,
    listener: (event: AsrStreamEventOf<K>) => void,
  ): () => void {
    let set = this.#listeners.get(type);
    if (set === undefined) {
      set = new Set();
      this.#listeners.set(type, set);
    }
    const wrapped = listener as (event: AsrStreamEvent) => void;
    set.add(wrapped);
    return () => set.delete(wrapped);
  }

  /**
   * Queues audio (in the request's format) to send. Resolves once the packet is written to the
   * socket, so awaiting it applies backpressure; rejects with `ASR_STREAM_NOT_WRITABLE` after
   * `finish()`/`close()` or once the stream has ended, or with the stream's failure. Empty audio
   * is a no-op. The bytes are copied, so the caller may reuse its buffer at once.
   */
  sendAudio(audio: Uint8Array): Promise<void> {
    if (!(audio instanceof Uint8Array)) {
      return this.#handled(
        Promise.reject(optionsError([{ path: 'audio', message: 'must be a Uint8Array' }])),
      );
    }
    const refusal = this.#writableError('send audio');
    if (refusal !== undefined) return this.#handled(Promise.reject(refusal));
    if (audio.byteLength === 0) return Promise.resolve();
    const promise = new Promise<void>((resolve, reject) => {
      this.#queue.push({ kind: 'audio', audio: audio.slice(), settle: { resolve, reject } });
    });
    this.#stats.audioBytesQueued += audio.byteLength;
    this.#pump();
    return this.#handled(promise);
  }

  /**
   * Sends the last packet after all queued audio (the last queued packet itself carries the
   * "last" flag; with nothing queued an empty last packet is sent), then resolves with the final
   * result once the final response arrives. The deadline, `timeoutMs` (default: the stream's
   * `finishTimeoutMs`), runs from this call and covers both writing the queued audio and the
   * final response: past it the stream fails with `ASR_FINISH_TIMEOUT`, and so do the
   * `sendAudio()` promises still pending (a server that stopped reading cannot hang them).
   * Rejects with the stream's failure otherwise, or with `ASR_INVALID_OPTIONS` (nothing sent)
   * when `timeoutMs` is not a positive number of ms. Calling it again returns the same promise.
   */
  finish(options: { timeoutMs?: number } = {}): Promise<AsrFinalResult> {
    if (this.#finishPromise !== undefined) return this.#finishPromise;
    const timeoutMs = (options as { timeoutMs?: unknown } | null)?.timeoutMs;
    if (typeof options !== 'object' || options === null) {
      return this.#handled(
        Promise.reject(optionsError([{ path: 'finish options', message: 'must be an object' }])),
      );
    }
    if (timeoutMs !== undefined && !checkTimeout(timeoutMs)) {
      return this.#handled(
        Promise.reject(
          optionsError([
            {
              path: 'timeoutMs',
              message: `must be a positive number of ms, at most ${MAX_TIMEOUT_MS} (got ${String(timeoutMs)})`,
            },
          ]),
        ),
      );
    }
    if (timeoutMs !== undefined) this.#finishTimeoutMs = timeoutMs as number;
    if (this.#result !== undefined) {
      this.#finishPromise = Promise.resolve(this.#result);
    } else if (this.#error !== undefined) {
      this.#finishPromise = this.#handled(Promise.reject(this.#error));
    } else {
      this.#finishPromise = this.#handled(
        new Promise<AsrFinalResult>((resolve, reject) => {
          this.#finishSettle = { resolve, reject };
        }),
      );
      this.#lastQueued = true;
      this.#queue.push({ kind: 'last', settle: { resolve: () => {}, reject: () => {} } });
      this.#setState('finishing');
      this.#startFinishTimer();
      this.#pump();
    }
    return this.#finishPromise;
  }

  /**
   * Closes the stream now, without waiting for a final result. Pending `sendAudio()`/`finish()`
   * promises reject with `ASR_STREAM_CLOSED`. No-op once ended.
   */
  close(): void {
    this.#end(
      'closed',
      new AsrProtocolError('ASR_STREAM_CLOSED', 'the stream was closed by the caller'),
    );
  }

  /**
   * Iterates every event from now on, `error` and `end` included; the iteration finishes after
   * `end`. Each iterator has its own buffer, so a slow consumer loses nothing; concurrent
   * `next()` calls each get the next event, in call order.
   */
  [Symbol.asyncIterator](): AsyncIterator<AsrStreamEvent> {
    const buffer: AsrStreamEvent[] = [];
    // `next()` calls not yet answered, oldest first: each gets its own event, in order.
    const waiters: Array<(result: IteratorResult<AsrStreamEvent>) => void> = [];
    let finished = this.#state === 'closed' || this.#state === 'failed';
    const unsubscribe: Array<() => void> = [];
    const stop = () => {
      for (const off of unsubscribe.splice(0)) off();
    };
    const answer = () => {
      while (waiters.length > 0) {
        const event = buffer.shift();
        if (event !== undefined) waiters.shift()?.({ done: false, value: event });
        else if (finished) waiters.shift()?.({ done: true, value: undefined });
        else return;
      }
    };
    if (!finished) {
      for (const type of ASR_STREAM_EVENT_TYPES) {
        unsubscribe.push(
          this.on(type, (event) => {
            buffer.push(event as AsrStreamEvent);
            if (type === 'end') {
              finished = true;
              stop();
            }
            answer();
          }),
        );
      }
    }
    return {
      next: (): Promise<IteratorResult<AsrStreamEvent>> =>
        new Promise((resolve) => {
          waiters.push(resolve);
          answer();
        }),
      return: async (): Promise<IteratorResult<AsrStreamEvent>> => {
        finished = true;
        buffer.length = 0;
        stop();
        answer();
        return { done: true, value: undefined };
      },
    };
  }

  // --- internals -------------------------------------------------------------------------------

  /** Marks a promise as handled (the failure is also reported by events), then returns it. */
  #handled<T>(promise: Promise<T>): Promise<T> {
    promise.catch(() => {});
    return promise;
  }

  #writableError(action: string): AsrProtocolError | undefined {
    if (this.#state === 'failed' && this.#error !== undefined) return this.#error;
    if (this.#lastQueued || this.#state === 'finishing') {
      return new AsrProtocolError(
        'ASR_STREAM_NOT_WRITABLE',
        `cannot ${action}: finish() was already called (nothing is sent after the last packet)`,
      );
    }
    if (this.#state === 'closed' || this.#state === 'failed') {
      return new AsrProtocolError(
        'ASR_STREAM_NOT_WRITABLE',
        `cannot ${action}: the stream is ${this.#state}`,
      );
    }
    return undefined;
  }

  #emit<K extends AsrStreamEventType>(type: K, data: AsrStreamEventMap[K]): void {
    const set = this.#listeners.get(type);
    if (set === undefined || set.size === 0) return;
    const event = { type, ...data } as AsrStreamEvent;
    for (const listener of [...set]) {
      try {
        listener(event);
      } catch (error) {
        // A listener's bug must not corrupt the stream; it surfaces as an uncaught exception.
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  }

  #setState(state: AsrStreamState): void {
    const previous = this.#state;
    if (previous === state) return;
    this.#state = state;
    this.#emit('state-change', { state, previous });
  }

  #attach(): void {
    const socket = this.#socket;
    socket.on('upgrade', (response) => {
      this.#logId = headerValue(response, 'x-tt-logid');
    });
    socket.on('unexpected-response', (request, response) => {
      this.#onRefused(request, response);
    });
    socket.on('open', () => {
      if (this.#state !== 'connecting') return;
      // No event here: nobody holds the stream yet. `connectAsrStream` resolves now, and the
      // handshake's facts are on the stream (`url`, `connectId`, `logId`).
      this.#setState('streaming');
      this.#opened.resolve();
      this.#pump();
    });
    socket.on('message', (data) => this.#onMessage(toBytes(data)));
    socket.on('error', (error) => {
      if (this.#state === 'connecting' && /handshake has timed out/i.test(error.message)) {
        this.#end(
          'failed',
          new AsrProtocolError('ASR_HANDSHAKE_TIMEOUT', `no handshake answer from ${this.url}`, {
            retryable: true,
            cause: error,
          }),
        );
        return;
      }
      this.#end('failed', this.#transportError(error));
    });
    socket.on('close', (code, reason) => {
      const text = reason.toString('utf8');
      this.#end(
        'failed',
        new AsrProtocolError(
          'ASR_CONNECTION_CLOSED',
          `the service closed the connection before the final result (close code ${code}${text ? `: ${text}` : ''})`,
          { retryable: true, closeCode: code, ...this.#logDetails() },
        ),
      );
    });
  }

  /**
   * A socket error: before the handshake completes the connection failed (`ASR_CONNECTION_FAILED`);
   * afterwards it was lost (`ASR_CONNECTION_CLOSED`, close code 1006), whether the loss shows as a
   * failed write or as a reset. Both are retryable.
   */
  #transportError(error: Error): AsrProtocolError {
    if (this.#state === 'connecting') {
      return new AsrProtocolError(
        'ASR_CONNECTION_FAILED',
        `connection to ${this.url} failed: ${error.message}`,
        {
          retryable: true,
          cause: error,
        },
      );
    }
    return new AsrProtocolError(
      'ASR_CONNECTION_CLOSED',
      `the connection was lost before the final result (${error.message})`,
      { retryable: true, closeCode: 1006, cause: error, ...this.#logDetails() },
    );
  }

  #logDetails(): { logId?: string } {
    return this.#logId === undefined ? {} : { logId: this.#logId };
  }

  #onRefused(request: ClientRequest, response: IncomingMessage): void {
    const status = response.statusCode ?? 0;
    const logId = headerValue(response, 'x-tt-logid');
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => {
      clearTimeout(timer);
      const body = Buffer.concat(chunks).toString('utf8');
      request.destroy();
      this.#end(
        'failed',
        new AsrProtocolError(
          'ASR_HANDSHAKE_FAILED',
          `the service refused the connection: HTTP ${status} ${response.statusMessage ?? ''}`.trimEnd() +
            (body ? `: ${body}` : ''),
          {
            status,
            body,
            retryable: status >= 500 || status === 429,
            ...(logId === undefined ? {} : { logId }),
          },
        ),
      );
    };
    // A server that never finishes its error body must not hang the caller.
    const timer = setTimeout(done, 5_000);
    response.on('data', (chunk: Buffer) => {
      if (size < BODY_LIMIT) chunks.push(chunk.subarray(0, BODY_LIMIT - size));
      size += chunk.byteLength;
    });
    response.on('end', done);
    response.on('error', done);
  }

  #pump(): void {
    if (this.#pumping || this.#state === 'connecting') return;
    this.#pumping = true;
    void this.#drain();
  }

  async #drain(): Promise<void> {
    // `#pumping` is reset by the `finally` in the same job in which the queue was seen empty (no
    // await in between), so a packet queued right after always finds it false and starts a drain.
    try {
      while (this.#queue.length > 0) {
        if (this.#state === 'closed' || this.#state === 'failed') return;
        const item = this.#queue.shift() as QueueItem;
        let last = item.kind === 'last';
        let audio: Uint8Array | undefined;
        const settles: Settle[] = [];
        // Until written, the packet's promise is settled by `#end` too (a timeout, a close).
        this.#inFlight = settles;
        if (item.kind === 'audio') {
          audio = item.audio;
          settles.push(item.settle);
          const next = this.#queue[0];
          // The last queued packet carries the "last" flag itself.
          if (next?.kind === 'last') {
            this.#queue.shift();
            last = true;
          }
        } else if (item.kind === 'last') {
          audio = new Uint8Array(0);
        }
        let bytes: Uint8Array;
        try {
          bytes = this.#encode(
            item.kind === 'request' ? item.payload : (audio as Uint8Array),
            last,
          );
        } catch (error) {
          this.#end('failed', error as AsrProtocolError);
          return;
        }
        try {
          await this.#write(bytes);
        } catch (error) {
          const failure = isAsrProtocolError(error) ? error : this.#transportError(error as Error);
          for (const settle of settles) settle.reject(failure);
          this.#end('failed', failure);
          return;
        }
        this.#stats.framesSent += 1;
        if (audio !== undefined) {
          this.#stats.audioPacketsSent += 1;
          this.#stats.audioBytesSent += audio.byteLength;
          this.#stats.audioBytesQueued -= audio.byteLength;
          if (this.#bytesPerMs !== undefined)
            this.#stats.audioMsSent = this.#stats.audioBytesSent / this.#bytesPerMs;
        }
        this.#inFlight = [];
        for (const settle of settles) settle.resolve();
        if (last) return;
      }
    } finally {
      this.#pumping = false;
    }
  }

  #encode(payload: JsonObject | Uint8Array, last: boolean): Uint8Array {
    const sequence = this.#nextSequence;
    this.#nextSequence += 1;
    let flags: FrameFlags;
    if (this.#sequenceNumbers) flags = last ? FRAME_FLAGS.LAST_WITH_SEQUENCE : FRAME_FLAGS.SEQUENCE;
    else flags = last ? FRAME_FLAGS.LAST : FRAME_FLAGS.NONE;
    const numbered = this.#sequenceNumbers ? { sequence: last ? -sequence : sequence } : {};
    if (payload instanceof Uint8Array) {
      return encodeFrame({
        type: 'audio-only-request',
        flags,
        ...numbered,
        serialization: 'none',
        compression: this.#compression,
        payload,
      });
    }
    return encodeFrame({
      type: 'full-client-request',
      flags,
      ...numbered,
      serialization: 'json',
      compression: this.#compression,
      payload,
    });
  }

  #write(bytes: Uint8Array): Promise<void> {
    return new Promise((resolve, reject) => {
      try {
        this.#socket.send(bytes, (error) => (error ? reject(error) : resolve()));
      } catch (error) {
        reject(error);
      }
    });
  }

  #startFinishTimer(): void {
    this.#finishTimer = setTimeout(() => {
      this.#end(
        'failed',
        new AsrProtocolError(
          'ASR_FINISH_TIMEOUT',
          `no final response within ${this.#finishTimeoutMs} ms of finish()`,
          { retryable: true, ...this.#logDetails() },
        ),
      );
    }, this.#finishTimeoutMs);
  }

  #onMessage(bytes: Uint8Array): void {
    if (this.#state === 'closed' || this.#state === 'failed') return;
    this.#stats.framesReceived += 1;
    let envelope: FrameEnvelope;
    try {
      // A payload flagged gzip that does not inflate is kept, to be ignored and counted below.
      envelope = decodeFrameEnvelope(bytes, {
        maxPayloadBytes: this.#maxPayloadBytes,
        badGzip: 'keep',
      });
    } catch (error) {
      this.#end('failed', error as AsrProtocolError);
      return;
    }
    if (envelope.type === 'error') {
      this.#onErrorFrame(envelope);
    } else if (envelope.type === 'full-server-response') {
      this.#onResponse(envelope);
    } else {
      this.#end(
        'failed',
        new AsrProtocolError(
          'ASR_UNEXPECTED_FRAME',
          `the service sent a ${envelope.type} frame, which only clients send`,
          {
            ...this.#logDetails(),
          },
        ),
      );
    }
  }

  #onErrorFrame(envelope: FrameEnvelope): void {
    const code = envelope.errorCode ?? 0;
    const message = new TextDecoder().decode(envelope.payload);
    const last = flagsAreLast(envelope.flags);
    if (code === ASR_SERVICE_CODES.SUCCESS) {
      this.#ignore(
        'success-code',
        `error frame with code ${code} (success): ${message}`,
        envelope.sequence,
        last,
      );
      return;
    }
    this.#end(
      'failed',
      new AsrProtocolError(
        'ASR_SERVICE_ERROR',
        `service error ${code} (${describeServiceCode(code)}): ${message}`,
        {
          serviceCode: code,
          serviceMessage: message,
          retryable: isRetryableServiceCode(code),
          ...this.#logDetails(),
        },
      ),
    );
  }

  #ignore(
    reason: AsrIgnoreReason,
    detail: string,
    sequence: number | undefined,
    last: boolean,
  ): void {
    const counters = this.#stats.ignoredPayloads;
    if (reason === 'empty') counters.empty += 1;
    else if (reason === 'not-json') counters.notJson += 1;
    else if (reason === 'invalid') counters.invalid += 1;
    else counters.successCode += 1;
    this.#emit('payload-ignore', { reason, detail, sequence, last });
  }

  #onResponse(envelope: FrameEnvelope): void {
    const last = flagsAreLast(envelope.flags);
    const sequence = envelope.sequence;
    if (envelope.gzipError !== undefined) {
      // E.g. a proxy's HTML error page sent with the gzip bit: unreadable, so not JSON.
      this.#ignore('not-json', envelope.gzipError.message, sequence, last);
      if (last) this.#complete(undefined);
      return;
    }
    let payload: JsonObject;
    try {
      // The server answers in the client's serialization; the payload is read as JSON whatever
      // the bits say, and anything unusable is ignored and counted, never fatal (section 2.4).
      payload = parseJsonPayload({ ...envelope, serialization: 'json' });
    } catch (error) {
      const empty = isAsrProtocolError(error) && error.code === 'ASR_PAYLOAD_EMPTY';
      this.#ignore(empty ? 'empty' : 'not-json', (error as Error).message, sequence, last);
      if (last) this.#complete(undefined);
      return;
    }
    const parsed = asrResponseSchema.safeParse(payload);
    if (!parsed.success) {
      const where = parsed.error.issues
        .slice(0, 3)
        .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
        .join('; ');
      this.#ignore('invalid', `response does not fit the protocol: ${where}`, sequence, last);
      if (last) this.#complete(undefined);
      return;
    }
    const response = parsed.data;
    this.#stats.responses += 1;
    const audioDurationMs = response.audio_info?.duration;
    if (audioDurationMs !== undefined) this.#stats.audioDurationMs = audioDurationMs;
    const results = responseResults(response);
    const text = results[0]?.text;
    const utterances = results.flatMap((result) => result.utterances ?? []);
    this.#emit('response-receive', { sequence, last, response, text, utterances, audioDurationMs });
    if (results.some((result) => result.utterances !== undefined)) {
      const update = this.#tracker.update(utterances);
      for (const utterance of update.completed) {
        this.#emit('utterance-complete', { utterance, audioDurationMs });
      }
      if (update.partialChanged) {
        this.#emit('partial-update', {
          text: update.partial?.text ?? '',
          utterance: update.partial,
          audioDurationMs,
        });
      }
    } else if (text !== undefined && text !== (this.#lastText ?? '')) {
      this.#emit('partial-update', { text, utterance: undefined, audioDurationMs });
    }
    if (text !== undefined) this.#lastText = text;
    if (last) this.#complete(response);
  }

  #complete(response: AsrResponse | undefined): void {
    const finalText = response === undefined ? undefined : responseResults(response)[0]?.text;
    this.#result = {
      text: finalText ?? this.#lastText ?? '',
      utterances: [...this.#tracker.completed],
      response,
      audioDurationMs: this.#stats.audioDurationMs,
      logId: this.#logId,
      connectId: this.connectId,
      stats: this.stats,
    };
    this.#end(
      'closed',
      new AsrProtocolError('ASR_STREAM_NOT_WRITABLE', 'the service already sent its final result'),
    );
  }

  /**
   * Ends the stream once: settles every pending promise (with `reason` unless a final result
   * exists), closes the socket, emits `error` (when failed) and `end`.
   */
  #end(state: 'closed' | 'failed', reason: AsrProtocolError): void {
    if (this.#state === 'closed' || this.#state === 'failed') return;
    const wasConnecting = this.#state === 'connecting';
    if (this.#finishTimer !== undefined) clearTimeout(this.#finishTimer);
    this.#signal?.removeEventListener('abort', this.#onAbort);
    if (this.#result === undefined) this.#error = reason;
    this.#setState(state);
    for (const settle of this.#inFlight.splice(0)) settle.reject(reason);
    for (const item of this.#queue.splice(0)) {
      if (item.kind !== 'request') item.settle.reject(reason);
    }
    this.#stats.audioBytesQueued = 0;
    if (this.#result !== undefined) this.#finishSettle?.resolve(this.#result);
    else this.#finishSettle?.reject(reason);
    if (wasConnecting) this.#opened.reject(reason);
    try {
      // A peer that let the deadline pass may not be reading: a close handshake would wait
      // for it (ws gives it 30 s), so the connection is dropped at once.
      const unresponsive = reason.code === 'ASR_FINISH_TIMEOUT';
      if (this.#socket.readyState === 0 || unresponsive) this.#socket.terminate();
      else if (this.#socket.readyState === 1) this.#socket.close(1000);
    } catch {
      // The socket is going away either way.
    }
    if (state === 'failed') this.#emit('error', { error: reason });
    this.#emit('end', {
      state,
      result: this.#result,
      error: this.#result === undefined ? reason : undefined,
      stats: this.stats,
    });
  }
}

/**
 * Opens a streaming recognition: validates the options and the request (nothing is sent when
 * they are wrong), connects to `{url}/api/v3/sauc/{endpoint}` with the four auth headers, and
 * resolves once the handshake succeeded and the request is on its way (state `streaming`).
 *
 * Rejects with `AsrProtocolError`: `ASR_INVALID_OPTIONS`, `ASR_INVALID_REQUEST`,
 * `ASR_HANDSHAKE_FAILED` (with `status`, `body`, `logId`), `ASR_HANDSHAKE_TIMEOUT`,
 * `ASR_CONNECTION_FAILED`, `ASR_CONNECTION_CLOSED`, `ASR_ABORTED`.
 *
 * @example
 * const stream = await connectAsrStream({ appKey, accessKey, resourceId: 'volc.bigasr.sauc.duration' });
 * stream.on('utterance-complete', ({ utterance }) => console.log(utterance.text));
 * for (const packet of splitPcm(wav.data)) await stream.sendAudio(packet);
 * const { text } = await stream.finish();
 */
export async function connectAsrStream(options: AsrStreamOptions): Promise<AsrStream> {
  checkStreamOptions(options);
  const endpoint = options.endpoint ?? 'bigmodel_async';
  const request = validateAsrRequest(options.request ?? DEFAULT_ASR_REQUEST, endpoint);
  const url = endpointUrl(options.url ?? DEFAULT_ASR_BASE_URL, endpoint);
  if (options.signal?.aborted) throw abortedError(options.signal);
  let opened!: { resolve(): void; reject(error: AsrProtocolError): void };
  const ready = new Promise<void>((resolve, reject) => {
    opened = { resolve, reject };
  });
  const stream = new AsrStream({ ...options, endpoint, request, url }, opened);
  await ready;
  return stream;
}
