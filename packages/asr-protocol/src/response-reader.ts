// What the service's frames mean, apart from the socket (the way ws keeps its frame Receiver apart
// from the WebSocket): a decoded frame in; the events it causes, the payloads ignored and the final
// result out. No I/O and no timers: the stream does those and emits what this returns.
//
// Invariants:
// - An unusable response (empty, not JSON, not the response's shape, or flagged gzip but not
//   inflatable) is ignored and counted, never fatal; when it carries the "last" flags it still
//   ends the stream normally, with what was recognised before.
// - An error frame fails the stream, except one carrying 20000000 (success), which is ignored.
// - Each definite utterance is reported once, however many responses repeat it.
import { AsrProtocolError, type AsrProtocolErrorDetails, isAsrProtocolError } from './errors.ts';
import {
  type FrameEnvelope,
  flagsAreLast,
  type JsonObject,
  parseJsonPayload,
} from './frame-codec.ts';
import {
  type AsrResponse,
  type AsrUtterance,
  asrResponseSchema,
  responseResults,
} from './response-schema.ts';
import { ASR_SERVICE_CODES, describeServiceCode, isRetryableServiceCode } from './service-codes.ts';
import type { AsrIgnoreReason, AsrStreamEventOf, AsrStreamStats } from './stream-events.ts';
import { createUtteranceTracker } from './utterance-tracker.ts';

/** An event a response causes (the stream adds its own: state changes, `error`, `end`). */
type ResponseEvent =
  | AsrStreamEventOf<'response-receive'>
  | AsrStreamEventOf<'utterance-complete'>
  | AsrStreamEventOf<'partial-update'>
  | AsrStreamEventOf<'payload-ignore'>;

/** What the final response leaves: the stream's result, without the connection's facts. */
export interface ReadFinal {
  /** The final response's `result.text`, else the latest text received, else ''. */
  text: string;
  /** Every definite utterance, once each, in order. */
  utterances: AsrUtterance[];
  /** The final response; undefined when its payload was unusable. */
  response: AsrResponse | undefined;
  audioDurationMs: number | undefined;
}

/** What one frame from the service means. */
export interface ResponseReading {
  /** Events to emit, in order. */
  events: ResponseEvent[];
  /** Set when the frame is the final response: the stream is complete. */
  final: ReadFinal | undefined;
  /** Set when the frame fails the stream: a service error, or a frame only clients send. */
  failure: AsrProtocolError | undefined;
}

/** The counters a reader keeps, in the shape of the stream's stats. */
type ResponseCounts = Pick<AsrStreamStats, 'responses' | 'ignoredPayloads' | 'audioDurationMs'>;

/** Reads the frames of one stream, in order; see {@link createResponseReader}. */
interface ResponseReader {
  /**
   * Reads one frame (decoded with `badGzip: 'keep'`, so an unreadable payload keeps its flags).
   * `details` go into a failure (the connection's log id).
   */
  read(envelope: FrameEnvelope, details?: Pick<AsrProtocolErrorDetails, 'logId'>): ResponseReading;
  /** A snapshot of the counters. */
  readonly counts: ResponseCounts;
}

const IGNORE_COUNTERS = {
  empty: 'empty',
  'not-json': 'notJson',
  invalid: 'invalid',
  'success-code': 'successCode',
} as const satisfies Record<AsrIgnoreReason, keyof AsrStreamStats['ignoredPayloads']>;

/**
 * A reader of one stream's responses: tracks the utterances, the latest text and the counters
 * across frames.
 *
 * @example
 * const reader = createResponseReader();
 * const { events, final } = reader.read(decodeFrameEnvelope(bytes, { badGzip: 'keep' }));
 */
export function createResponseReader(): ResponseReader {
  const tracker = createUtteranceTracker();
  const counts: ResponseCounts = {
    responses: 0,
    ignoredPayloads: { empty: 0, notJson: 0, invalid: 0, successCode: 0 },
    audioDurationMs: undefined,
  };
  let lastText: string | undefined;

  const finalOf = (response: AsrResponse | undefined): ReadFinal => ({
    text:
      (response === undefined ? undefined : responseResults(response)[0]?.text) ?? lastText ?? '',
    utterances: [...tracker.completed],
    response,
    audioDurationMs: counts.audioDurationMs,
  });

  const ignore = (
    reason: AsrIgnoreReason,
    detail: string,
    envelope: FrameEnvelope,
    endsStream: boolean,
  ): ResponseReading => {
    counts.ignoredPayloads[IGNORE_COUNTERS[reason]] += 1;
    const last = flagsAreLast(envelope.flags);
    return {
      events: [{ type: 'payload-ignore', reason, detail, sequence: envelope.sequence, last }],
      final: endsStream && last ? finalOf(undefined) : undefined,
      failure: undefined,
    };
  };

  const readErrorFrame = (
    envelope: FrameEnvelope,
    details: Pick<AsrProtocolErrorDetails, 'logId'>,
  ): ResponseReading => {
    const code = envelope.errorCode ?? 0;
    const message = new TextDecoder().decode(envelope.payload);
    if (code === ASR_SERVICE_CODES.SUCCESS) {
      return ignore(
        'success-code',
        `error frame with code ${code} (success): ${message}`,
        envelope,
        false,
      );
    }
    const failure = new AsrProtocolError(
      'ASR_SERVICE_ERROR',
      `service error ${code} (${describeServiceCode(code)}): ${message}`,
      {
        serviceCode: code,
        serviceMessage: message,
        retryable: isRetryableServiceCode(code),
        ...details,
      },
    );
    return { events: [], final: undefined, failure };
  };

  const readResponse = (envelope: FrameEnvelope): ResponseReading => {
    if (envelope.gzipError !== undefined) {
      // E.g. a proxy's HTML error page sent with the gzip bit: unreadable, so not JSON.
      return ignore('not-json', envelope.gzipError.message, envelope, true);
    }
    let payload: JsonObject;
    try {
      // The server answers in the client's serialization; the payload is read as JSON whatever
      // the bits say, and anything unusable is ignored and counted.
      payload = parseJsonPayload({ ...envelope, serialization: 'json' });
    } catch (error) {
      const empty = isAsrProtocolError(error) && error.code === 'ASR_PAYLOAD_EMPTY';
      return ignore(empty ? 'empty' : 'not-json', (error as Error).message, envelope, true);
    }
    const parsed = asrResponseSchema.safeParse(payload);
    if (!parsed.success) {
      const where = parsed.error.issues
        .slice(0, 3)
        .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
        .join('; ');
      return ignore('invalid', `response does not fit the protocol: ${where}`, envelope, true);
    }
    const response = parsed.data;
    const last = flagsAreLast(envelope.flags);
    counts.responses += 1;
    const audioDurationMs = response.audio_info?.duration;
    if (audioDurationMs !== undefined) counts.audioDurationMs = audioDurationMs;
    const results = responseResults(response);
    const text = results[0]?.text;
    const utterances = results.flatMap((result) => result.utterances ?? []);
    const events: ResponseEvent[] = [
      {
        type: 'response-receive',
        sequence: envelope.sequence,
        last,
        response,
        text,
        utterances,
        audioDurationMs,
      },
    ];
    if (results.some((result) => result.utterances !== undefined)) {
      const update = tracker.update(utterances);
      for (const utterance of update.completed) {
        events.push({ type: 'utterance-complete', utterance, audioDurationMs });
      }
      if (update.partialChanged) {
        events.push({
          type: 'partial-update',
          text: update.partial?.text ?? '',
          utterance: update.partial,
          audioDurationMs,
        });
      }
    } else if (text !== undefined && text !== (lastText ?? '')) {
      events.push({ type: 'partial-update', text, utterance: undefined, audioDurationMs });
    }
    if (text !== undefined) lastText = text;
    return { events, final: last ? finalOf(response) : undefined, failure: undefined };
  };

  return {
    read(envelope, details = {}) {
      if (envelope.type === 'error') return readErrorFrame(envelope, details);
      if (envelope.type === 'full-server-response') return readResponse(envelope);
      const failure = new AsrProtocolError(
        'ASR_UNEXPECTED_FRAME',
        `the service sent a ${envelope.type} frame, which only clients send`,
        { ...details },
      );
      return { events: [], final: undefined, failure };
    },
    get counts() {
      return {
        ...counts,
        ignoredPayloads: { ...counts.ignoredPayloads },
      };
    },
  };
}
