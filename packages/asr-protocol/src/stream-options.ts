// Options of the streaming client: their types, their defaults (all in DEFAULT_STREAM_OPTIONS),
// and the checks run before anything is sent. The class-asr CLI checks its arguments with them.
import WebSocket from 'ws';
import {
  type AsrEndpoint,
  checkBaseUrl,
  DEFAULT_ASR_BASE_URL,
  isAsrEndpoint,
} from './endpoints.ts';
import { type AsrIssue, AsrProtocolError } from './errors.ts';
import { type Compression, DEFAULT_MAX_PAYLOAD_BYTES } from './frame-codec.ts';
import type { AsrRequest } from './request-schema.ts';
import { type AsrVendorFields, vendorFieldIssues } from './vendor-fields.ts';
import type { WebSocketConstructor } from './web-socket-like.ts';

/** Default request: 16 kHz mono PCM, bigmodel, utterances on. */
export const DEFAULT_ASR_REQUEST: AsrRequest = {
  audio: { format: 'pcm', codec: 'raw', rate: 16000, bits: 16, channel: 1 },
  request: { model_name: 'bigmodel', show_utterances: true },
};

/** Options of `connectAsrStream`. Defaults are in {@link DEFAULT_STREAM_OPTIONS}. */
export interface AsrStreamOptions {
  /**
   * Base URL (ws, wss, http or https); the endpoint path is appended, a path prefix is kept.
   * Default {@link DEFAULT_ASR_BASE_URL}, `wss://openspeech.bytedance.com`.
   */
  url?: string;
  /** Default `bigmodel_async`, the endpoint the service recommends. */
  endpoint?: AsrEndpoint;
  /** `X-Api-App-Key`: the application id. Required. */
  appKey: string;
  /** `X-Api-Access-Key`: the access token. Required. */
  accessKey: string;
  /** `X-Api-Resource-Id`, e.g. `volc.bigasr.sauc.duration`. Required. */
  resourceId: string;
  /** `X-Api-Connect-Id`: connection tracking id. Default: a fresh UUID for each stream. */
  connectId?: string;
  /**
   * The full client request, validated for the endpoint before anything is sent. Default
   * {@link DEFAULT_ASR_REQUEST}: 16 kHz mono PCM, model bigmodel, `show_utterances: true` (needed
   * for utterance events).
   */
  request?: AsrRequest;
  /**
   * Request fields the schema does not know yet, sent as given next to the validated `request`
   * (see {@link AsrVendorFields}). Default `{}`: none.
   */
  vendorFields?: AsrVendorFields;
  /** Compression of the request and audio (the service answers in kind). Default `gzip`. */
  compression?: Compression;
  /**
   * Number client frames: request 1, audio 2, 3, …, last packet negative (flags 0b0001/0b0011),
   * as some vendor samples do. Default false: flags 0b0000 and 0b0010, no sequence.
   */
  sequenceNumbers?: boolean;
  /** Time allowed for the WebSocket handshake. Default 10 000 ms. */
  handshakeTimeoutMs?: number;
  /**
   * Time allowed from `finish()` for the queued audio to be written and the final response to
   * arrive. Default 15 000 ms.
   */
  finishTimeoutMs?: number;
  /**
   * Largest response payload accepted (compressed or inflated). Default
   * {@link DEFAULT_MAX_PAYLOAD_BYTES}, 16 MiB.
   */
  maxPayloadBytes?: number;
  /** Aborting closes the stream; pending promises reject with `ASR_ABORTED`. Default: none. */
  signal?: AbortSignal;
  /** WebSocket constructor. Default: `ws`'s `WebSocket`. */
  WebSocket?: WebSocketConstructor;
}

/** The options that have a constant default. */
type DefaultedOption =
  | 'url'
  | 'endpoint'
  | 'request'
  | 'vendorFields'
  | 'compression'
  | 'sequenceNumbers'
  | 'handshakeTimeoutMs'
  | 'finishTimeoutMs'
  | 'maxPayloadBytes'
  | 'WebSocket';

/**
 * Every constant default of {@link AsrStreamOptions}, applied as
 * `{ ...DEFAULT_STREAM_OPTIONS, ...options }` (options left undefined keep the default).
 * `connectId` defaults to a fresh UUID per stream; `signal` to none.
 */
export const DEFAULT_STREAM_OPTIONS: Readonly<Required<Pick<AsrStreamOptions, DefaultedOption>>> =
  Object.freeze({
    url: DEFAULT_ASR_BASE_URL,
    endpoint: 'bigmodel_async',
    request: DEFAULT_ASR_REQUEST,
    vendorFields: Object.freeze({}),
    compression: 'gzip',
    sequenceNumbers: false,
    handshakeTimeoutMs: 10_000,
    finishTimeoutMs: 15_000,
    maxPayloadBytes: DEFAULT_MAX_PAYLOAD_BYTES,
    WebSocket: WebSocket as unknown as WebSocketConstructor,
  });

/** Stream options with every default applied. */
export type ResolvedStreamOptions = AsrStreamOptions &
  Required<Pick<AsrStreamOptions, DefaultedOption>>;

/** The options with the defaults filled in; an option set to `undefined` keeps its default. */
export function withStreamDefaults(options: AsrStreamOptions): ResolvedStreamOptions {
  const given = Object.fromEntries(
    Object.entries(options).filter(([, value]) => value !== undefined),
  ) as AsrStreamOptions;
  return { ...DEFAULT_STREAM_OPTIONS, ...given };
}

/** `ASR_INVALID_OPTIONS` listing every issue. */
export function invalidOptionsError(issues: AsrIssue[]): AsrProtocolError {
  return new AsrProtocolError(
    'ASR_INVALID_OPTIONS',
    `invalid stream options: ${issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ')}`,
    { issues },
  );
}

/** setTimeout takes at most 2^31 - 1 ms; a longer delay fires at once (Node warns and uses 1 ms). */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/** What a timeout option must be, as error messages say it. */
export const TIMEOUT_RULE = `must be a positive number of ms, at most ${MAX_TIMEOUT_MS}`;

/** True for a positive number of ms that setTimeout can wait. */
export function isTimeoutMs(value: unknown): value is number {
  return (
    typeof value === 'number' && Number.isFinite(value) && value > 0 && value <= MAX_TIMEOUT_MS
  );
}

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

function isAbortSignal(value: unknown): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as AbortSignal).addEventListener === 'function' &&
    typeof (value as AbortSignal).aborted === 'boolean'
  );
}

/**
 * Checks stream options as `connectAsrStream` does, without connecting; throws
 * `ASR_INVALID_OPTIONS` listing every problem. The request itself is checked separately (by
 * `validateAsrRequest`, for the endpoint).
 */
export function checkStreamOptions(options: AsrStreamOptions): void {
  if (typeof options !== 'object' || options === null) {
    throw invalidOptionsError([{ path: '(options)', message: 'must be an object' }]);
  }
  const issues: AsrIssue[] = [];
  const header = (path: string, value: string) => {
    const problem = headerValueProblem(value);
    if (problem !== undefined) issues.push({ path, message: problem });
  };
  for (const key of ['appKey', 'accessKey', 'resourceId'] as const) {
    const value = options[key] as unknown;
    if (typeof value !== 'string' || value.trim() === '') {
      issues.push({ path: key, message: 'must be a non-empty string' });
    } else {
      header(key, value);
    }
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
      header('connectId', options.connectId);
    }
  }
  if (options.vendorFields !== undefined) issues.push(...vendorFieldIssues(options.vendorFields));
  if (
    options.compression !== undefined &&
    options.compression !== 'gzip' &&
    options.compression !== 'none'
  ) {
    issues.push({ path: 'compression', message: 'must be gzip or none' });
  }
  for (const key of ['handshakeTimeoutMs', 'finishTimeoutMs'] as const) {
    if (options[key] !== undefined && !isTimeoutMs(options[key])) {
      issues.push({ path: key, message: TIMEOUT_RULE });
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
  if (options.signal !== undefined && !isAbortSignal(options.signal)) {
    issues.push({ path: 'signal', message: 'must be an AbortSignal' });
  }
  if (options.WebSocket !== undefined && typeof options.WebSocket !== 'function') {
    issues.push({ path: 'WebSocket', message: 'must be a WebSocket constructor' });
  }
  if (issues.length > 0) throw invalidOptionsError(issues);
}
