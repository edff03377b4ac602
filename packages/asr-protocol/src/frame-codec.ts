// Binary framing of the streaming ASR protocol: the four message types, their flags, and error frames.
//
// Layout: a 4-byte header (version | header size, type | flags, serialization | compression,
// reserved), then — only when the flags say so — a signed 32-bit sequence, then per type:
//   full client request / audio only request / full server response: uint32 payload size, payload
//   error message: uint32 error code, uint32 message size, UTF-8 message
// All integers are big-endian.
//
// Invariants of the decoder:
// - Whether a sequence follows is decided by the flags alone (0b0001 and 0b0011), for every type:
//   servers send partial results with flags 0b0001 and a sequence or with flags 0b0000 and none,
//   and the final result with flags 0b0011 and a POSITIVE sequence, so neither position nor sign
//   may be trusted.
// - Every length is checked against the bytes present before anything is read, and gzip output is
//   capped, so any input either decodes or throws an AsrProtocolError — never a RangeError or OOM.
import { gunzipSync, gzipSync } from 'node:zlib';
import { AsrProtocolError, type RawFrameInfo } from './errors.ts';

/** A JSON value as carried in JSON-serialized payloads. */
export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;
/** A JSON object (the only top-level JSON payload the protocol uses). */
export interface JsonObject {
  [key: string]: JsonValue;
}

/** The four message types and their 4-bit codes (high half of the header's second byte). */
export const MESSAGE_TYPES = {
  'full-client-request': 0b0001,
  'audio-only-request': 0b0010,
  'full-server-response': 0b1001,
  error: 0b1111,
} as const;

/** Name of a message type. */
export type FrameType = keyof typeof MESSAGE_TYPES;

/**
 * The four flag values (low half of the header's second byte). `SEQUENCE` and `LAST_WITH_SEQUENCE` mean a 4-byte sequence
 * follows the header; `LAST` and `LAST_WITH_SEQUENCE` mark the last packet of a stream (from the
 * client) or the final result (from the server).
 */
export const FRAME_FLAGS = {
  NONE: 0b0000,
  SEQUENCE: 0b0001,
  LAST: 0b0010,
  LAST_WITH_SEQUENCE: 0b0011,
} as const;

/** A flags value: 0b0000, 0b0001, 0b0010 or 0b0011. */
export type FrameFlags = (typeof FRAME_FLAGS)[keyof typeof FRAME_FLAGS];

/** Serialization of a payload: raw bytes or JSON. */
export type Serialization = 'none' | 'json';
/** Compression of a payload. */
export type Compression = 'none' | 'gzip';

/** True when a 4-byte sequence number follows the header for these flags. */
export function flagsHaveSequence(flags: number): boolean {
  return (flags & 0b0001) !== 0;
}

/** True when these flags mark the last packet (client) or the final result (server). */
export function flagsAreLast(flags: number): boolean {
  return (flags & 0b0010) !== 0;
}

interface FrameCommon {
  flags: FrameFlags;
  /** Present exactly when `flags` is 0b0001 or 0b0011. A signed 32-bit integer; its sign is not checked. */
  sequence?: number;
  compression: Compression;
}

/** A payload per the serialization bits: a JSON object, or raw bytes. */
export type SerializedPayload =
  | { serialization: 'json'; payload: JsonObject }
  | { serialization: 'none'; payload: Uint8Array };

/** Full client request: the JSON request (see request-schema.ts), usually JSON + gzip. */
export type FullClientRequestFrame = FrameCommon & {
  type: 'full-client-request';
} & SerializedPayload;

/**
 * Audio only request. The payload is always audio bytes, whatever the serialization bits say (the
 * vendor's own sample clients send audio with the JSON bit set); `compression` says whether they
 * are gzipped on the wire. `payload` is the uncompressed audio.
 */
export interface AudioOnlyRequestFrame extends FrameCommon {
  type: 'audio-only-request';
  serialization: Serialization;
  payload: Uint8Array;
}

/** Full server response: the JSON response (see response-schema.ts). */
export type FullServerResponseFrame = FrameCommon & {
  type: 'full-server-response';
} & SerializedPayload;

/** Error message from the server: the service code (see service-codes.ts) and its UTF-8 message. */
export interface ErrorFrame extends FrameCommon {
  type: 'error';
  serialization: Serialization;
  payload: { code: number; message: string };
}

/** Any frame of the protocol, discriminated by `type`. */
export type AsrFrame =
  | FullClientRequestFrame
  | AudioOnlyRequestFrame
  | FullServerResponseFrame
  | ErrorFrame;

/** Options of {@link decodeFrame}. */
export interface DecodeFrameOptions {
  /**
   * Largest payload accepted, both as sent and after gunzip (a gzip bomb is refused with
   * `ASR_FRAME_TOO_LARGE` instead of exhausting memory). Default {@link DEFAULT_MAX_PAYLOAD_BYTES}.
   */
  maxPayloadBytes?: number;
}

/**
 * Options of {@link decodeFrameEnvelope}: those of {@link decodeFrame}, plus what to do with a
 * payload flagged gzip that does not inflate.
 */
export interface DecodeFrameEnvelopeOptions extends DecodeFrameOptions {
  /**
   * `throw` (default): `ASR_FRAME_BAD_GZIP`, as {@link decodeFrame} does. `keep`: return the
   * envelope with the payload as received (still `compression: 'gzip'`) and the error in
   * `gzipError`, so a caller that must not fail on one bad payload (the streaming client, which
   * ignores and counts it) still sees the frame's flags and sequence. Error
   * frames always keep their message (their service code is what matters). A payload inflating
   * past `maxPayloadBytes` is refused either way.
   */
  badGzip?: 'throw' | 'keep';
}

/** Default cap on a payload's size, compressed or inflated: 16 MiB. */
export const DEFAULT_MAX_PAYLOAD_BYTES = 16 * 1024 * 1024;

const TYPE_BY_CODE = new Map<number, FrameType>(
  Object.entries(MESSAGE_TYPES).map(([name, code]) => [code, name as FrameType]),
);

const utf8Strict = new TextDecoder('utf-8', { fatal: true });
const utf8Lenient = new TextDecoder('utf-8');
const utf8Encoder = new TextEncoder();

/**
 * The envelope of a frame: header fields and the payload bytes, inflated when gzipped. Error
 * frames carry their service code in `errorCode`. Internal building block of {@link decodeFrame};
 * the client uses it to honour a response's flags even when its payload is empty or not JSON.
 */
export interface FrameEnvelope {
  type: FrameType;
  flags: FrameFlags;
  sequence?: number;
  serialization: Serialization;
  compression: Compression;
  payload: Uint8Array;
  errorCode?: number;
  /**
   * With `badGzip: 'keep'`: why the payload, flagged gzip, could not be inflated
   * (`ASR_FRAME_BAD_GZIP`); `payload` then holds the bytes as received.
   */
  gzipError?: AsrProtocolError;
}

function truncatedError(
  what: string,
  needed: number,
  length: number,
  offset: number,
): AsrProtocolError {
  return new AsrProtocolError(
    'ASR_FRAME_TRUNCATED',
    `frame truncated: ${what} needs bytes ${offset}..${offset + needed - 1} but the frame has ${length} bytes`,
    { offset },
  );
}

function decodeOptionsError(path: string, message: string): AsrProtocolError {
  return new AsrProtocolError(
    'ASR_INVALID_OPTIONS',
    `invalid decode options: ${path}: ${message}`,
    {
      issues: [{ path, message }],
    },
  );
}

function inflate(payload: Uint8Array, maxPayloadBytes: number, offset: number): Uint8Array {
  try {
    const inflated = gunzipSync(payload, { maxOutputLength: maxPayloadBytes });
    return new Uint8Array(inflated.buffer, inflated.byteOffset, inflated.byteLength);
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new AsrProtocolError(
        'ASR_FRAME_TOO_LARGE',
        `gzip payload inflates past the ${maxPayloadBytes}-byte limit`,
        { offset, cause: error },
      );
    }
    throw new AsrProtocolError(
      'ASR_FRAME_BAD_GZIP',
      `payload is marked gzip but does not inflate: ${(error as Error).message}`,
      { offset, cause: error },
    );
  }
}

/**
 * Decodes a frame's envelope (header, sequence, sizes) and inflates its payload, without
 * interpreting the payload. Throws `AsrProtocolError` on any malformed input; see
 * {@link DecodeFrameEnvelopeOptions.badGzip} for a payload that claims gzip but is not.
 */
export function decodeFrameEnvelope(
  bytes: Uint8Array,
  options: DecodeFrameEnvelopeOptions = {},
): FrameEnvelope {
  const maxPayloadBytes = options.maxPayloadBytes ?? DEFAULT_MAX_PAYLOAD_BYTES;
  if (!Number.isSafeInteger(maxPayloadBytes) || maxPayloadBytes <= 0) {
    throw decodeOptionsError('maxPayloadBytes', 'must be a positive integer');
  }
  const badGzip = options.badGzip ?? 'throw';
  if (badGzip !== 'throw' && badGzip !== 'keep') {
    throw decodeOptionsError('badGzip', "must be 'throw' or 'keep'");
  }
  const length = bytes.byteLength;
  if (length < 4) throw truncatedError('the 4-byte header', 4, length, 0);
  const view = new DataView(bytes.buffer, bytes.byteOffset, length);
  const byte0 = view.getUint8(0);
  const byte1 = view.getUint8(1);
  const byte2 = view.getUint8(2);
  const version = byte0 >> 4;
  if (version !== 1) {
    throw new AsrProtocolError(
      'ASR_FRAME_BAD_VERSION',
      `unsupported protocol version ${version} (only version 1 exists)`,
      { offset: 0 },
    );
  }
  const headerSize = (byte0 & 0x0f) * 4;
  if (headerSize === 0) {
    throw new AsrProtocolError(
      'ASR_FRAME_BAD_HEADER_SIZE',
      'header size is 0 (must be at least 4 bytes)',
      {
        offset: 0,
      },
    );
  }
  // A header longer than 4 bytes carries extensions this protocol does not define: skipped.
  if (length < headerSize)
    throw truncatedError(`the ${headerSize}-byte header`, headerSize, length, 0);
  const type = TYPE_BY_CODE.get(byte1 >> 4);
  if (type === undefined) {
    throw new AsrProtocolError(
      'ASR_FRAME_UNKNOWN_TYPE',
      `unknown message type 0b${(byte1 >> 4).toString(2).padStart(4, '0')} (expected 0b0001, 0b0010, 0b1001 or 0b1111)`,
      { offset: 1 },
    );
  }
  const flags = byte1 & 0x0f;
  if (flags > 0b0011) {
    throw new AsrProtocolError(
      'ASR_FRAME_BAD_FLAGS',
      `unknown flags 0b${flags.toString(2).padStart(4, '0')} (expected 0b0000 to 0b0011)`,
      { offset: 1 },
    );
  }
  const serializationBits = byte2 >> 4;
  if (serializationBits > 1) {
    throw new AsrProtocolError(
      'ASR_FRAME_BAD_SERIALIZATION',
      `unknown serialization 0b${serializationBits.toString(2).padStart(4, '0')} (expected none 0b0000 or JSON 0b0001)`,
      { offset: 2 },
    );
  }
  const compressionBits = byte2 & 0x0f;
  if (compressionBits > 1) {
    throw new AsrProtocolError(
      'ASR_FRAME_BAD_COMPRESSION',
      `unknown compression 0b${compressionBits.toString(2).padStart(4, '0')} (expected none 0b0000 or gzip 0b0001)`,
      { offset: 2 },
    );
  }
  let offset = headerSize;
  let sequence: number | undefined;
  if (flagsHaveSequence(flags)) {
    if (length < offset + 4) throw truncatedError('the sequence number', 4, length, offset);
    sequence = view.getInt32(offset);
    offset += 4;
  }
  let errorCode: number | undefined;
  if (type === 'error') {
    if (length < offset + 4) throw truncatedError('the error code', 4, length, offset);
    errorCode = view.getUint32(offset);
    offset += 4;
  }
  const sizeName = type === 'error' ? 'the error message size' : 'the payload size';
  if (length < offset + 4) throw truncatedError(sizeName, 4, length, offset);
  const size = view.getUint32(offset);
  offset += 4;
  if (size > maxPayloadBytes) {
    throw new AsrProtocolError(
      'ASR_FRAME_TOO_LARGE',
      `payload size ${size} is above the ${maxPayloadBytes}-byte limit`,
      { offset: offset - 4 },
    );
  }
  if (length < offset + size) {
    throw new AsrProtocolError(
      'ASR_FRAME_TRUNCATED',
      `frame truncated: the payload declares ${size} bytes but only ${length - offset} follow`,
      { offset },
    );
  }
  if (length > offset + size) {
    throw new AsrProtocolError(
      'ASR_FRAME_TRAILING_BYTES',
      `frame has ${length - offset - size} bytes after its ${size}-byte payload`,
      { offset: offset + size },
    );
  }
  const compression: Compression = compressionBits === 1 ? 'gzip' : 'none';
  let payload = bytes.subarray(offset, offset + size);
  let gzipError: AsrProtocolError | undefined;
  if (compression === 'gzip' && size > 0) {
    try {
      payload = inflate(payload, maxPayloadBytes, offset);
    } catch (error) {
      const failure = error as AsrProtocolError;
      // The code is what matters in an error frame: a message that claims gzip but is plain
      // text is kept as it is rather than losing the service code. Other frames keep their raw
      // payload only when asked to. A payload past the size limit is never kept.
      if (failure.code !== 'ASR_FRAME_BAD_GZIP' || (type !== 'error' && badGzip === 'throw')) {
        throw failure;
      }
      if (type !== 'error') gzipError = failure;
    }
  }
  const envelope: FrameEnvelope = {
    type,
    flags: flags as FrameFlags,
    serialization: serializationBits === 1 ? 'json' : 'none',
    compression,
    payload: new Uint8Array(payload.buffer, payload.byteOffset, payload.byteLength),
  };
  if (sequence !== undefined) envelope.sequence = sequence;
  if (errorCode !== undefined) envelope.errorCode = errorCode;
  if (gzipError !== undefined) envelope.gzipError = gzipError;
  return envelope;
}

/**
 * Parses a JSON payload that must be an object. Throws `ASR_PAYLOAD_EMPTY` or
 * `ASR_PAYLOAD_NOT_JSON` carrying the envelope, so a caller can still use its flags.
 */
export function parseJsonPayload(envelope: FrameEnvelope): JsonObject {
  const frame = rawFrameInfo(envelope);
  if (envelope.payload.byteLength === 0) {
    throw new AsrProtocolError('ASR_PAYLOAD_EMPTY', `${envelope.type} has an empty JSON payload`, {
      frame,
    });
  }
  let value: unknown;
  try {
    value = JSON.parse(utf8Strict.decode(envelope.payload));
  } catch (error) {
    throw new AsrProtocolError(
      'ASR_PAYLOAD_NOT_JSON',
      `${envelope.type} payload is not JSON: ${(error as Error).message}`,
      { frame, cause: error },
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new AsrProtocolError(
      'ASR_PAYLOAD_NOT_JSON',
      `${envelope.type} payload is JSON but not an object (got ${Array.isArray(value) ? 'an array' : typeof value})`,
      { frame },
    );
  }
  return value as JsonObject;
}

function rawFrameInfo(envelope: FrameEnvelope): RawFrameInfo {
  const info: RawFrameInfo = {
    type: envelope.type === 'full-client-request' ? 'full-client-request' : 'full-server-response',
    flags: envelope.flags,
    serialization: envelope.serialization,
    compression: envelope.compression,
    payload: envelope.payload,
  };
  if (envelope.sequence !== undefined) info.sequence = envelope.sequence;
  return info;
}

/**
 * Decodes one binary frame. Payloads: a JSON object for JSON-serialized requests and responses,
 * raw (inflated) bytes for audio and for non-serialized payloads, `{ code, message }` for errors.
 * Uncompressed byte payloads are views into `bytes`.
 *
 * Throws {@link AsrProtocolError} for every malformed input: `ASR_FRAME_TRUNCATED`,
 * `ASR_FRAME_TRAILING_BYTES`, `ASR_FRAME_BAD_VERSION`, `ASR_FRAME_BAD_HEADER_SIZE`,
 * `ASR_FRAME_UNKNOWN_TYPE`, `ASR_FRAME_BAD_FLAGS`, `ASR_FRAME_BAD_SERIALIZATION`,
 * `ASR_FRAME_BAD_COMPRESSION`, `ASR_FRAME_BAD_GZIP`, `ASR_FRAME_TOO_LARGE`, `ASR_PAYLOAD_EMPTY`,
 * `ASR_PAYLOAD_NOT_JSON`; `ASR_INVALID_OPTIONS` for a `maxPayloadBytes` that is not a positive
 * integer. To read a frame whose gzip payload does not inflate, use {@link decodeFrameEnvelope}
 * with `badGzip: 'keep'`.
 *
 * @example
 * const frame = decodeFrame(bytes);
 * if (frame.type === 'full-server-response' && frame.serialization === 'json') {
 *   console.log(frame.payload.result, flagsAreLast(frame.flags) ? '(final)' : '');
 * }
 */
export function decodeFrame(bytes: Uint8Array, options: DecodeFrameOptions = {}): AsrFrame {
  const envelope = decodeFrameEnvelope(bytes, {
    ...(options.maxPayloadBytes === undefined ? {} : { maxPayloadBytes: options.maxPayloadBytes }),
    badGzip: 'throw',
  });
  const common: FrameCommon = { flags: envelope.flags, compression: envelope.compression };
  if (envelope.sequence !== undefined) common.sequence = envelope.sequence;
  switch (envelope.type) {
    case 'audio-only-request':
      return {
        type: 'audio-only-request',
        ...common,
        serialization: envelope.serialization,
        payload: envelope.payload,
      };
    case 'error':
      return {
        type: 'error',
        ...common,
        serialization: envelope.serialization,
        payload: { code: envelope.errorCode ?? 0, message: utf8Lenient.decode(envelope.payload) },
      };
    case 'full-client-request':
    case 'full-server-response': {
      const type = envelope.type;
      if (envelope.serialization === 'json') {
        return { type, ...common, serialization: 'json', payload: parseJsonPayload(envelope) };
      }
      return { type, ...common, serialization: 'none', payload: envelope.payload };
    }
  }
}

function invalidFrameError(message: string): AsrProtocolError {
  return new AsrProtocolError('ASR_FRAME_INVALID', `cannot encode frame: ${message}`);
}

function payloadBytes(frame: AsrFrame): Uint8Array {
  if (frame.type === 'error') {
    const { code, message } = frame.payload ?? {};
    if (!Number.isInteger(code) || (code as number) < 0 || (code as number) > 0xffffffff) {
      throw invalidFrameError(
        `error code must be an unsigned 32-bit integer (got ${String(code)})`,
      );
    }
    if (typeof message !== 'string') throw invalidFrameError('error message must be a string');
    return utf8Encoder.encode(message);
  }
  if (frame.type === 'audio-only-request' || frame.serialization === 'none') {
    if (!(frame.payload instanceof Uint8Array)) {
      throw invalidFrameError(
        `${frame.type} payload must be a Uint8Array when the serialization is none`,
      );
    }
    return frame.payload;
  }
  const payload: unknown = frame.payload;
  if (
    typeof payload !== 'object' ||
    payload === null ||
    Array.isArray(payload) ||
    payload instanceof Uint8Array
  ) {
    throw invalidFrameError(
      `${frame.type} payload must be a JSON object when the serialization is json`,
    );
  }
  let text: string | undefined;
  try {
    text = JSON.stringify(payload);
  } catch (error) {
    throw new AsrProtocolError(
      'ASR_FRAME_INVALID',
      `cannot encode frame: payload is not serializable as JSON: ${(error as Error).message}`,
      { cause: error },
    );
  }
  // `toJSON()` may yield undefined: that would go out as an empty payload, which is not JSON.
  if (typeof text !== 'string' || !text.startsWith('{')) {
    throw invalidFrameError(`${frame.type} payload must serialize to a JSON object`);
  }
  return utf8Encoder.encode(text);
}

/**
 * Encodes one frame to bytes. The inverse of {@link decodeFrame}: `decodeFrame(encodeFrame(f))`
 * equals `f`. Refuses inconsistent frames with `ASR_FRAME_INVALID` (e.g. flags 0b0001 without a
 * `sequence`, or a `sequence` with flags 0b0000). The sequence's sign is not checked against the
 * flags, because real servers send the final result with flags 0b0011 and a positive sequence.
 *
 * @example
 * const bytes = encodeFrame({
 *   type: 'audio-only-request', flags: FRAME_FLAGS.LAST,
 *   serialization: 'none', compression: 'gzip', payload: pcm,
 * });
 */
export function encodeFrame(frame: AsrFrame): Uint8Array {
  // Own properties only: `constructor`, `toString`, … are on every object's prototype.
  if (typeof frame.type !== 'string' || !Object.hasOwn(MESSAGE_TYPES, frame.type)) {
    throw invalidFrameError(`unknown type ${JSON.stringify(frame.type)}`);
  }
  const typeCode = MESSAGE_TYPES[frame.type];
  const { flags, sequence } = frame;
  if (!Number.isInteger(flags) || flags < 0 || flags > 0b0011) {
    throw invalidFrameError(`flags must be 0b0000 to 0b0011 (got ${String(flags)})`);
  }
  const withSequence = flagsHaveSequence(flags);
  if (withSequence) {
    if (
      !Number.isInteger(sequence) ||
      (sequence as number) < -0x80000000 ||
      (sequence as number) > 0x7fffffff
    ) {
      throw invalidFrameError(
        `flags 0b${flags.toString(2).padStart(4, '0')} need a signed 32-bit integer sequence (got ${String(sequence)})`,
      );
    }
  } else if (sequence !== undefined) {
    throw invalidFrameError(
      `flags 0b${flags.toString(2).padStart(4, '0')} carry no sequence, but sequence ${sequence} was given`,
    );
  }
  if (frame.serialization !== 'none' && frame.serialization !== 'json') {
    throw invalidFrameError(
      `serialization must be 'none' or 'json' (got ${String(frame.serialization)})`,
    );
  }
  if (frame.compression !== 'none' && frame.compression !== 'gzip') {
    throw invalidFrameError(
      `compression must be 'none' or 'gzip' (got ${String(frame.compression)})`,
    );
  }
  let payload = payloadBytes(frame);
  if (frame.compression === 'gzip') payload = gzipSync(payload);
  if (payload.byteLength > 0xffffffff) throw invalidFrameError('payload is larger than 4 GiB');
  const headerLength = 4 + (withSequence ? 4 : 0) + (frame.type === 'error' ? 4 : 0) + 4;
  const out = new Uint8Array(headerLength + payload.byteLength);
  const view = new DataView(out.buffer);
  view.setUint8(0, 0x11); // version 1, header size 1 (4 bytes)
  view.setUint8(1, (typeCode << 4) | flags);
  view.setUint8(
    2,
    ((frame.serialization === 'json' ? 1 : 0) << 4) | (frame.compression === 'gzip' ? 1 : 0),
  );
  let offset = 4;
  if (withSequence) {
    view.setInt32(offset, sequence as number);
    offset += 4;
  }
  if (frame.type === 'error') {
    view.setUint32(offset, frame.payload.code);
    offset += 4;
  }
  view.setUint32(offset, payload.byteLength);
  out.set(payload, headerLength);
  return out;
}
