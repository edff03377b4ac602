/**
 * Stable codes of {@link AsrProtocolError}. Codes never change meaning; new ones may be added.
 *
 * - Codec (decoding what arrived, or encoding a frame object): `ASR_FRAME_*`, `ASR_PAYLOAD_*`.
 * - Requests and options refused before anything is sent: `ASR_INVALID_REQUEST`, `ASR_INVALID_OPTIONS`.
 * - Connection and stream: `ASR_HANDSHAKE_*`, `ASR_CONNECTION_*`, `ASR_FINISH_TIMEOUT`,
 *   `ASR_STREAM_NOT_WRITABLE`, `ASR_STREAM_CLOSED`, `ASR_ABORTED`, `ASR_UNEXPECTED_FRAME`.
 * - The service answered with an error frame: `ASR_SERVICE_ERROR` (see `serviceCode`).
 * - WAV input: `ASR_WAV_INVALID` (not a readable WAV), `ASR_WAV_UNSUPPORTED` (not PCM s16le 16 kHz
 *   mono/stereo), `ASR_FILE_UNREADABLE` (the file cannot be read).
 */
export type AsrErrorCode =
  | 'ASR_FRAME_TRUNCATED'
  | 'ASR_FRAME_TRAILING_BYTES'
  | 'ASR_FRAME_BAD_VERSION'
  | 'ASR_FRAME_BAD_HEADER_SIZE'
  | 'ASR_FRAME_UNKNOWN_TYPE'
  | 'ASR_FRAME_BAD_FLAGS'
  | 'ASR_FRAME_BAD_SERIALIZATION'
  | 'ASR_FRAME_BAD_COMPRESSION'
  | 'ASR_FRAME_BAD_GZIP'
  | 'ASR_FRAME_TOO_LARGE'
  | 'ASR_FRAME_INVALID'
  | 'ASR_PAYLOAD_EMPTY'
  | 'ASR_PAYLOAD_NOT_JSON'
  | 'ASR_INVALID_REQUEST'
  | 'ASR_INVALID_OPTIONS'
  | 'ASR_HANDSHAKE_FAILED'
  | 'ASR_HANDSHAKE_TIMEOUT'
  | 'ASR_CONNECTION_FAILED'
  | 'ASR_CONNECTION_CLOSED'
  | 'ASR_UNEXPECTED_FRAME'
  | 'ASR_SERVICE_ERROR'
  | 'ASR_FINISH_TIMEOUT'
  | 'ASR_STREAM_NOT_WRITABLE'
  | 'ASR_STREAM_CLOSED'
  | 'ASR_ABORTED'
  | 'ASR_WAV_INVALID'
  | 'ASR_WAV_UNSUPPORTED'
  | 'ASR_FILE_UNREADABLE';

/** One problem found in a request, with the dotted path of the field (`request.end_window_size`). */
export interface AsrIssue {
  path: string;
  message: string;
}

/** Extra facts an {@link AsrProtocolError} may carry, depending on its code. */
export interface AsrProtocolErrorDetails {
  /** Whether trying again (a new connection with the same request) can succeed. Default false. */
  retryable?: boolean;
  /** `ASR_SERVICE_ERROR`: the service's numeric code, e.g. 45000001 or 55000031. */
  serviceCode?: number;
  /** `ASR_SERVICE_ERROR`: the service's message, verbatim. */
  serviceMessage?: string;
  /** `ASR_HANDSHAKE_FAILED`: HTTP status of the refused upgrade. */
  status?: number;
  /** `ASR_HANDSHAKE_FAILED`: body of the refused upgrade (at most 64 KiB, as text). */
  body?: string;
  /** The server's `X-Tt-Logid`, when known: quote it to the provider when reporting a problem. */
  logId?: string;
  /** `ASR_CONNECTION_CLOSED`: the WebSocket close code (1006 for a dropped connection). */
  closeCode?: number;
  /** Codec errors: the byte offset where the problem was found. */
  offset?: number;
  /** `ASR_INVALID_REQUEST` / `ASR_INVALID_OPTIONS`: every problem found, each naming its field. */
  issues?: AsrIssue[];
  /**
   * `ASR_PAYLOAD_EMPTY` / `ASR_PAYLOAD_NOT_JSON`: the frame whose payload could not be used, with the
   * payload as raw (inflated) bytes, so a caller can still honour its flags (e.g. "last").
   */
  frame?: RawFrameInfo;
  cause?: unknown;
}

/** A frame whose envelope decoded but whose JSON payload did not (see {@link AsrProtocolErrorDetails.frame}). */
export interface RawFrameInfo {
  type: 'full-client-request' | 'full-server-response';
  flags: number;
  sequence?: number;
  serialization: 'none' | 'json';
  compression: 'none' | 'gzip';
  payload: Uint8Array;
}

const MARKER = Symbol.for('@class-assistant/asr-protocol/error');

/**
 * The one error type this package throws. Check it with {@link isAsrProtocolError} (works across
 * copies of the package, unlike `instanceof`) and branch on the stable `code`.
 *
 * @example
 * try { decodeFrame(bytes); } catch (error) {
 *   if (isAsrProtocolError(error) && error.code === 'ASR_FRAME_TRUNCATED') { ... }
 * }
 */
export class AsrProtocolError extends Error {
  override readonly name = 'AsrProtocolError';
  readonly code: AsrErrorCode;
  readonly retryable: boolean;
  readonly serviceCode?: number;
  readonly serviceMessage?: string;
  readonly status?: number;
  readonly body?: string;
  readonly logId?: string;
  readonly closeCode?: number;
  readonly offset?: number;
  readonly issues?: AsrIssue[];
  readonly frame?: RawFrameInfo;
  readonly [MARKER] = true;

  constructor(code: AsrErrorCode, message: string, details: AsrProtocolErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.code = code;
    this.retryable = details.retryable ?? false;
    if (details.serviceCode !== undefined) this.serviceCode = details.serviceCode;
    if (details.serviceMessage !== undefined) this.serviceMessage = details.serviceMessage;
    if (details.status !== undefined) this.status = details.status;
    if (details.body !== undefined) this.body = details.body;
    if (details.logId !== undefined) this.logId = details.logId;
    if (details.closeCode !== undefined) this.closeCode = details.closeCode;
    if (details.offset !== undefined) this.offset = details.offset;
    if (details.issues !== undefined) this.issues = details.issues;
    if (details.frame !== undefined) this.frame = details.frame;
  }
}

/**
 * True when `error` was thrown by this package (any copy or version of it).
 *
 * @example
 * if (isAsrProtocolError(error) && error.retryable) reconnect();
 */
export function isAsrProtocolError(error: unknown): error is AsrProtocolError {
  return (
    typeof error === 'object' &&
    error !== null &&
    (error as { [MARKER]?: unknown })[MARKER] === true &&
    typeof (error as { code?: unknown }).code === 'string'
  );
}
