// The streaming client: the handshake with the four auth headers, the full client request, audio
// packets, the last packet, and the service's responses as typed events. What responses mean is
// read by response-reader.ts; this file owns the socket, the send queue and the timers.
//
// Invariants:
// - Frames leave in order through one sender loop: the request first, then audio in the order
//   given, then the last packet. Nothing is sent after the last packet.
// - Each frame waits for the socket to take the previous one (the ws send callback fires once the
//   bytes are handed to the kernel), so a slow network slows `sendAudio()` instead of piling
//   frames up in memory.
// - The stream ends exactly once, in `closed` or `failed`; every pending promise settles then.

import { randomUUID } from 'node:crypto';
import { type AsrEndpoint, endpointUrl } from './endpoints.ts';
import { AsrProtocolError, isAsrProtocolError } from './errors.ts';
import { createEventIterator } from './event-iterator.ts';
import {
  type Compression,
  decodeFrameEnvelope,
  encodeFrame,
  FRAME_FLAGS,
  type FrameEnvelope,
  type FrameFlags,
  type JsonObject,
} from './frame-codec.ts';
import { validateAsrRequest } from './request-schema.ts';
import { createResponseReader, type ReadFinal } from './response-reader.ts';
import {
  ASR_STREAM_EVENT_TYPES,
  type AsrFinalResult,
  type AsrStreamEvent,
  type AsrStreamEventMap,
  type AsrStreamEventOf,
  type AsrStreamEventType,
  type AsrStreamState,
  type AsrStreamStats,
} from './stream-events.ts';
import {
  type AsrStreamOptions,
  checkStreamOptions,
  invalidOptionsError,
  isTimeoutMs,
  type ResolvedStreamOptions,
  TIMEOUT_RULE,
  withStreamDefaults,
} from './stream-options.ts';
import { withVendorFields } from './vendor-fields.ts';
import {
  messageBytes,
  openWebSocket,
  type RefusedUpgrade,
  readRefusedUpgrade,
  responseHeader,
  type WebSocketLike,
} from './web-socket-like.ts';

type QueueItem =
  | { kind: 'request'; payload: JsonObject }
  | { kind: 'audio'; audio: Uint8Array; settle: Settle }
  | { kind: 'last'; settle: Settle };

interface Settle {
  resolve(): void;
  reject(error: AsrProtocolError): void;
}

/** Counters of what was sent; the reader keeps those of what was received. */
type SendCounts = Omit<AsrStreamStats, 'responses' | 'ignoredPayloads' | 'audioDurationMs'>;

function abortedError(signal: AbortSignal): AsrProtocolError {
  return new AsrProtocolError('ASR_ABORTED', 'the stream was aborted', { cause: signal.reason });
}

/**
 * One streaming recognition: created by {@link connectAsrStream}. Send audio with `sendAudio()`,
 * end with `finish()`; read results from events (`on`) or by iterating (`for await`).
 *
 * Its life (`state`), driven by the handshake, `finish()`, the service's frames, `close()` and the
 * abort signal:
 *
 * ```text
 * connecting --handshake--> streaming --finish()--> finishing --final response--> closed
 *      |                        |                       |
 *      +------------------------+-----------------------+--> failed   (refused, lost, service
 *      |                        |                       |              error, finish timeout)
 *      +------------------------+-----------------------+--> closed   (close(), abort)
 * ```
 *
 * A final response that arrives before `finish()` (the service ended on its own) also closes the
 * stream from `streaming`. `closed` and `failed` are final: every pending promise has settled.
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
  #reader = createResponseReader();
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
  #result: AsrFinalResult | undefined;
  #error: AsrProtocolError | undefined;
  #opened: { resolve(): void; reject(error: AsrProtocolError): void };
  #signal: AbortSignal | undefined;
  #onAbort = () => this.#end('closed', abortedError(this.#signal as AbortSignal));
  #sent: SendCounts = {
    framesSent: 0,
    audioPacketsSent: 0,
    audioBytesSent: 0,
    audioMsSent: undefined,
    audioBytesQueued: 0,
    framesReceived: 0,
  };

  /**
   * @internal Use {@link connectAsrStream}. `url` is the endpoint's full URL and
   * `options.request` the validated request.
   */
  constructor(
    options: ResolvedStreamOptions,
    url: string,
    opened: { resolve(): void; reject(error: AsrProtocolError): void },
  ) {
    this.url = url;
    this.endpoint = options.endpoint;
    this.connectId = options.connectId ?? randomUUID();
    this.#compression = options.compression;
    this.#sequenceNumbers = options.sequenceNumbers;
    this.#finishTimeoutMs = options.finishTimeoutMs;
    this.#maxPayloadBytes = options.maxPayloadBytes;
    this.#opened = opened;
    const audio = options.request.audio;
    if (audio.format === 'pcm' || audio.format === 'wav') {
      this.#bytesPerMs = 32 * (audio.channel ?? 1);
      this.#sent.audioMsSent = 0;
    }
    this.#queue.push({
      kind: 'request',
      payload: withVendorFields(options.request, options.vendorFields),
    });
    this.#socket = openWebSocket(options.WebSocket, this.url, {
      headers: {
        'X-Api-App-Key': options.appKey,
        'X-Api-Access-Key': options.accessKey,
        'X-Api-Resource-Id': options.resourceId,
        'X-Api-Connect-Id': this.connectId,
      },
      handshakeTimeout: options.handshakeTimeoutMs,
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
    return { ...this.#sent, ...this.#reader.counts };
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
        Promise.reject(invalidOptionsError([{ path: 'audio', message: 'must be a Uint8Array' }])),
      );
    }
    const refusal = this.#writableError('send audio');
    if (refusal !== undefined) return this.#handled(Promise.reject(refusal));
    if (audio.byteLength === 0) return Promise.resolve();
    const promise = new Promise<void>((resolve, reject) => {
      this.#queue.push({ kind: 'audio', audio: audio.slice(), settle: { resolve, reject } });
    });
    this.#sent.audioBytesQueued += audio.byteLength;
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
        Promise.reject(
          invalidOptionsError([{ path: 'finish options', message: 'must be an object' }]),
        ),
      );
    }
    if (timeoutMs !== undefined && !isTimeoutMs(timeoutMs)) {
      const message = `${TIMEOUT_RULE} (got ${String(timeoutMs)})`;
      return this.#handled(Promise.reject(invalidOptionsError([{ path: 'timeoutMs', message }])));
    }
    if (timeoutMs !== undefined) this.#finishTimeoutMs = timeoutMs;
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
    return createEventIterator<AsrStreamEvent>({
      ended: this.#hasEnded(),
      subscribe: (push) => {
        const stops = ASR_STREAM_EVENT_TYPES.map((type) =>
          this.on(type, (event) => push(event as AsrStreamEvent)),
        );
        return () => {
          for (const stop of stops) stop();
        };
      },
      isLast: (event) => event.type === 'end',
    });
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
    if (this.#hasEnded()) {
      return new AsrProtocolError(
        'ASR_STREAM_NOT_WRITABLE',
        `cannot ${action}: the stream is ${this.#state}`,
      );
    }
    return undefined;
  }

  #hasEnded(): boolean {
    return this.#state === 'closed' || this.#state === 'failed';
  }

  #emit<K extends AsrStreamEventType>(type: K, data: AsrStreamEventMap[K]): void {
    this.#dispatch({ type, ...data } as AsrStreamEvent);
  }

  #dispatch(event: AsrStreamEvent): void {
    const set = this.#listeners.get(event.type);
    if (set === undefined || set.size === 0) return;
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
      this.#logId = responseHeader(response, 'x-tt-logid');
    });
    socket.on('unexpected-response', (request, response) => {
      readRefusedUpgrade(request, response, (refusal) => this.#onRefused(refusal));
    });
    socket.on('open', () => {
      if (this.#state !== 'connecting') return;
      // No event here: nobody holds the stream yet. `connectAsrStream` resolves now, and the
      // handshake's facts are on the stream (`url`, `connectId`, `logId`).
      this.#setState('streaming');
      this.#opened.resolve();
      this.#pump();
    });
    socket.on('message', (data) => this.#onMessage(messageBytes(data)));
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

  #onRefused({ status, statusText, body, logId }: RefusedUpgrade): void {
    this.#end(
      'failed',
      new AsrProtocolError(
        'ASR_HANDSHAKE_FAILED',
        `the service refused the connection: HTTP ${status} ${statusText}`.trimEnd() +
          (body ? `: ${body}` : ''),
        {
          status,
          body,
          retryable: status >= 500 || status === 429,
          ...(logId === undefined ? {} : { logId }),
        },
      ),
    );
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
        if (this.#hasEnded()) return;
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
        const sent = this.#sent;
        sent.framesSent += 1;
        if (audio !== undefined) {
          sent.audioPacketsSent += 1;
          sent.audioBytesSent += audio.byteLength;
          sent.audioBytesQueued -= audio.byteLength;
          if (this.#bytesPerMs !== undefined)
            sent.audioMsSent = sent.audioBytesSent / this.#bytesPerMs;
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
    if (this.#hasEnded()) return;
    this.#sent.framesReceived += 1;
    let envelope: FrameEnvelope;
    try {
      // A payload flagged gzip that does not inflate is kept: the reader ignores and counts it.
      envelope = decodeFrameEnvelope(bytes, {
        maxPayloadBytes: this.#maxPayloadBytes,
        badGzip: 'keep',
      });
    } catch (error) {
      this.#end('failed', error as AsrProtocolError);
      return;
    }
    const reading = this.#reader.read(envelope, this.#logDetails());
    for (const event of reading.events) this.#dispatch(event);
    if (reading.failure !== undefined) this.#end('failed', reading.failure);
    else if (reading.final !== undefined) this.#complete(reading.final);
  }

  #complete(final: ReadFinal): void {
    this.#result = {
      ...final,
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
    if (this.#hasEnded()) return;
    const wasConnecting = this.#state === 'connecting';
    if (this.#finishTimer !== undefined) clearTimeout(this.#finishTimer);
    this.#signal?.removeEventListener('abort', this.#onAbort);
    if (this.#result === undefined) this.#error = reason;
    this.#setState(state);
    for (const settle of this.#inFlight.splice(0)) settle.reject(reason);
    for (const item of this.#queue.splice(0)) {
      if (item.kind !== 'request') item.settle.reject(reason);
    }
    this.#sent.audioBytesQueued = 0;
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
  const resolved = withStreamDefaults(options);
  const request = validateAsrRequest(resolved.request, resolved.endpoint);
  const url = endpointUrl(resolved.url, resolved.endpoint);
  if (resolved.signal?.aborted) throw abortedError(resolved.signal);
  let opened!: { resolve(): void; reject(error: AsrProtocolError): void };
  const ready = new Promise<void>((resolve, reject) => {
    opened = { resolve, reject };
  });
  const stream = new AsrStream({ ...resolved, request }, url, opened);
  await ready;
  return stream;
}
