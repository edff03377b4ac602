// What a stream reports: its state, its counters, its final result and its events by name.
import type { AsrProtocolError } from './errors.ts';
import type { AsrResponse, AsrUtterance } from './response-schema.ts';

/** Where a stream is in its life. `closed` and `failed` are final. */
export type AsrStreamState = 'connecting' | 'streaming' | 'finishing' | 'closed' | 'failed';

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
  /** Responses ignored, by reason (an unusable response is skipped and counted, never fatal). */
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
