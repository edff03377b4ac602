/**
 * The live-event contract: every event the backend pushes over `GET /api/events` (server-sent
 * events) and, for alerts, over the original client's `WS /api/ws/alerts` — its name, what it
 * means and its payload — and the text messages of the app window's capture socket
 * (`WS /api/ws/capture`). This module is the one owner of that contract: the event hub's types,
 * the SSE route's documentation and the desktop UI's types (a type-only import of
 * `@class-assistant/server/live-events`) all come from here. It imports nothing but zod, so a
 * browser build can type-check against it.
 */
import { z } from 'zod';

/**
 * What a line carries besides its text (kept in the class folder's lines.jsonl): the page of the
 * material it is about, its translation, where its speech starts in the class's kept audio.
 */
export function lineExtrasShape() {
  return {
    page: z
      .number()
      .int()
      .min(1)
      .nullable()
      .describe(
        'The 1-based page of the class’s material the line is about (the page tracker’s choice when the line was written); null when no page matches or the class has no material.',
      ),
    translation: z
      .string()
      .nullable()
      .describe(
        'The line in the student’s language (TRANSLATE_CAPTIONS); null until translated or when translation is off. Events `line.translated` carry it as it comes.',
      ),
    audio_ms: z
      .number()
      .int()
      .min(0)
      .nullable()
      .describe(
        'Where the line’s speech starts in the class’s kept audio (GET /api/classes/:id/audio), in ms; null when the class keeps no audio.',
      ),
  };
}

/** One transcript line as events and `/api/transcript` carry it. */
export const TranscriptLineSchema = z.object({
  id: z
    .number()
    .int()
    .min(1)
    .describe(
      'Stable id of the line in its class (1, 2, …): unchanged by history folds, the next line gets the next number.',
    ),
  index: z
    .number()
    .int()
    .min(0)
    .describe('Position in the current transcript file (0-based); shifts after a history fold.'),
  timestamp: z.string().describe('Clock time HH:MM:SS ("" for a hand-written line without one).'),
  text: z.string(),
  ...lineExtrasShape(),
});

/**
 * The backend died during a class (a crash, kill -9, the machine out of memory) and, starting
 * again, went on with it — or could not (`resumed: false`, `reason` says why; the class and its
 * lines are kept in the library).
 */
export const MonitorInterruptionSchema = z.object({
  at: z.string().describe('ISO 8601: when the backend came back.'),
  seconds: z.number().int().min(0).describe('How long nothing was recorded.'),
  resumed: z.boolean().describe('True when the class went on by itself.'),
  reason: z
    .object({ code: z.string(), zh: z.string(), en: z.string() })
    .nullable()
    .describe('Why the class could not go on (null when it did).'),
});

/**
 * Where a class's audio came from, when it was a recording (a file): its lines' times are
 * positions in that file. Kept in class.json as `source`.
 */
export const ClassSourceSchema = z.object({
  kind: z.literal('recording'),
  file_name: z.string().describe('The file’s name as the student gave it (no folder).'),
  duration_ms: z
    .number()
    .min(0)
    .nullable()
    .describe('The recording’s length in ms (null while unknown).'),
});

/** The monitor status as `/api/monitor_status` and the `monitor.changed` event carry it. */
export const MonitorStatusSchema = z.object({
  state: z.enum(['idle', 'running', 'paused']),
  is_monitoring: z.boolean(),
  is_paused: z.boolean(),
  course_name: z.string(),
  asr_mode: z.string(),
  cite_filename: z.string(),
  started_at: z.string().nullable(),
  recognizer_state: z
    .enum(['running', 'paused', 'ended', 'failed'])
    .nullable()
    .describe('How the running class’s recognizer is doing; null when idle.'),
  interruption: MonitorInterruptionSchema.nullable()
    .optional()
    .describe(
      'While a class runs that the backend resumed after dying in it, that gap; while idle, a class that could not be resumed (until the next class starts). null otherwise; absent from backends before this field.',
    ),
  source: ClassSourceSchema.nullable()
    .optional()
    .describe(
      'The recording the running class listens to (its lines are stamped with positions in it); null for live audio or when idle.',
    ),
  current_page: z
    .number()
    .int()
    .min(1)
    .nullable()
    .optional()
    .describe(
      'The page of the class’s material the teacher is on (the page tracker’s; `page.changed` tells each change); null when idle, without material or before a line matched a page; absent from backends before this field.',
    ),
});

/** Alert levels: `danger` (red, a roll call) and `warning` (amber, attention). */
export const AlertLevelSchema = z.enum(['danger', 'warning']);

/** A keyword alert, exactly the original client's WebSocket message. */
export const KeywordAlertSchema = z.object({
  type: z.literal('keyword_alert'),
  level: AlertLevelSchema,
  keywords: z.array(z.string()).describe('The matched keywords, roll-call words first.'),
  text: z.string().describe('The whole line the keywords were heard in.'),
  timestamp: z.string().describe('The line’s clock time, HH:MM:SS.'),
  for_you: z
    .boolean()
    .describe(
      'True when the line names the student (STUDENT_NAME, a homophone of it, or the digits of ' +
        'STUDENT_NUMBER_DIGITS): "you are called"; false for a roll call of someone else or an ' +
        'attention word. The original client ignores it.',
    ),
});

/** Where a background failure happened; a client matches on it (never on the message). */
export const ErrorSourceSchema = z.enum([
  'recognizer',
  'history folding',
  'transcript',
  'notes',
  'library',
  'translation',
]);

/** An `error.raised` payload. */
export const ErrorRaisedSchema = z.object({
  source: ErrorSourceSchema,
  code: z.string(),
  message: z.string().describe('In English.'),
  messages: z
    .object({ zh: z.string(), en: z.string() })
    .optional()
    .describe('The message in both languages, when it has them (e.g. the offline engine stopped).'),
  mode: z.string().optional().describe('For source "recognizer": the ASR_MODE of the class.'),
  fatal: z
    .boolean()
    .optional()
    .describe(
      'For source "recognizer": true when the recognizer stopped and the class no longer listens (the lines so far are kept); false when it carries on.',
    ),
});

/** Why the app window's audio is not reaching the backend. */
export const CaptureProblemSchema = z.enum([
  'disconnected',
  'no-audio',
  'permission-denied',
  'no-device',
  'device-lost',
  'failed',
]);

/**
 * The app window's microphone (AUDIO_INPUT=app) as the backend sees it. `state`:
 * - `off`: no class listens to the app window;
 * - `waiting`: a class listens and the window is opening its microphone;
 * - `receiving`: audio arrives;
 * - `stopped`: no audio — `problem` says why: `disconnected` (no window connected for 2 s: it
 *   was closed or lost the backend), `no-audio` (connected, but nothing for 2 s: hidden and
 *   throttled, frozen), or what the window reported (`permission-denied`, `no-device`,
 *   `device-lost`, `failed`). Listening resumes by itself when audio comes back.
 */
export const CaptureStatusSchema = z.object({
  state: z.enum(['off', 'waiting', 'receiving', 'stopped']),
  connected: z.boolean().describe('A window’s capture socket (/api/ws/capture) is open.'),
  device: z.string().describe('The input device the window captures ("" when none).'),
  problem: CaptureProblemSchema.nullable(),
  message: z.string().describe('The state in a sentence, for logs and clients without their own.'),
});

/** The first event of every SSE connection (it has no id and is not replayed). */
export const StreamOpenedSchema = z.object({
  last_event_id: z.number().int(),
  replayed: z.number().int(),
  gap: z
    .boolean()
    .describe('True when missed events were dropped: reload /api/transcript and the status.'),
  monitor: MonitorStatusSchema,
  partial: z.string(),
  capture: CaptureStatusSchema,
  heartbeat_ms: z
    .number()
    .int()
    .describe(
      'How often a `: heartbeat` comment comes: silence for a few of them means the backend is gone.',
    ),
});

/**
 * What the app window sends on `WS /api/ws/capture` as text: `hello` once its microphone runs
 * (again after a device change), naming the device and the format of the binary frames that
 * follow (little-endian 16-bit PCM, channels interleaved); `problem` when it cannot capture.
 */
export const CaptureWindowMessageSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('hello'),
    device: z.string().max(500),
    sample_rate: z.number().int().min(8000).max(192000),
    channels: z.union([z.literal(1), z.literal(2)]),
  }),
  z.object({
    type: z.literal('problem'),
    problem: CaptureProblemSchema.exclude(['disconnected', 'no-audio']),
    message: z.string().max(1000),
  }),
]);

/**
 * What the backend sends on `WS /api/ws/capture` as text: `format` on connection (and when a
 * class with other settings starts) — the PCM it wants: AUDIO_SAMPLE_RATE, AUDIO_CHANNELS, frames
 * of AUDIO_CHUNK_SIZE bytes; `error` before it closes a socket that broke the protocol;
 * `replaced` before it closes a socket another window took over from.
 */
export const CaptureServerMessageSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('format'),
    sample_rate: z.number().int(),
    channels: z.number().int(),
    chunk_bytes: z.number().int(),
  }),
  z.object({ type: z.literal('error'), code: z.string(), message: z.string() }),
  z.object({ type: z.literal('replaced'), message: z.string() }),
]);

/** A moment the student marked during a class: a line, with when it was marked. */
export const ClassMarkSchema = z.object({
  line_id: z.number().int().min(1).describe('Id of the line marked (the newest line by default).'),
  timestamp: z.string().describe('HH:MM:SS: the line’s time in the class.'),
  text: z.string().describe('The line’s text when it was marked.'),
  note: z.string().describe('The student’s short note ("" without one).'),
  marked_at: z.string().describe('ISO 8601: when it was marked.'),
});

/**
 * A recording being imported (POST /api/import, `class-assistant-backend import`): recognised as
 * fast as the engine goes into a class of the library whose line times are positions in the
 * recording. The same object answers GET /api/import and is the `import.changed` event.
 */
export const ImportStatusSchema = z.object({
  id: z.string().describe('The import’s id.'),
  file_name: z.string().describe('The recording’s file name as the student gave it.'),
  state: z
    .enum(['running', 'done', 'failed', 'cancelled'])
    .describe(
      '`running` while it is recognised; `done` once every line is in the class; `failed` (see `error`; `resumable` says whether it can go on) or `cancelled`.',
    ),
  class_id: z.string().nullable().describe('The library class it fills (null before it starts).'),
  course_name: z.string(),
  fraction: z.number().min(0).max(1).describe('How much of the recording is done, 0–1.'),
  position_ms: z.number().int().describe('Position in the recording reached, ms.'),
  duration_ms: z
    .number()
    .int()
    .nullable()
    .describe('The recording’s length, ms (null while not known).'),
  eta_ms: z.number().int().nullable().describe('Estimated time left, ms (null while not known).'),
  lines: z.number().int().describe('Lines written so far.'),
  notes: z
    .enum(['pending', 'written', 'skipped', 'failed'])
    .describe('Post-class notes: `skipped` without an LLM (with a warning in `warning`).'),
  warning: z
    .object({ zh: z.string(), en: z.string() })
    .nullable()
    .describe('Something the student should know that did not stop the import.'),
  error: z
    .object({ code: z.string(), zh: z.string(), en: z.string(), technical: z.string().nullable() })
    .nullable()
    .describe(
      'Why it failed, in both languages, with the system’s own words behind a details view.',
    ),
  resumable: z
    .boolean()
    .describe(
      'A failed or cancelled import that can go on from `position_ms` (POST /api/import/resume).',
    ),
  started_at: z.string().describe('ISO 8601.'),
  updated_at: z.string().describe('ISO 8601.'),
});

/** Every live event: what it means and its payload schema, by event name. */
export const LIVE_EVENTS = {
  'line.appended': {
    description: 'a transcript line was written',
    data: TranscriptLineSchema,
  },
  'line.updated': {
    description: 'the last line was extended or merged (same id, new text)',
    data: TranscriptLineSchema,
  },
  'line.translated': {
    description:
      'the translation of a line into the student’s language (TRANSLATE_CAPTIONS) as it streams: several with `final: false` (at most five a second per line), then one with `final: true` (kept with the line as `translation`)',
    data: z.object({
      id: z.number().int().min(1).describe('The line’s id (as in `line.appended`).'),
      translation: z.string().describe('The translation so far (the whole of it when `final`).'),
      final: z.boolean().describe('True for the finished translation, kept with the class.'),
    }),
  },
  'page.changed': {
    description:
      'the teacher moved to another page of the class’s material (the page tracker, from the recent lines): the page, how many the material has, the page’s first line',
    data: z.object({
      page: z.number().int().min(1).nullable().describe('1-based; null before any line matched.'),
      page_count: z.number().int().min(0).describe('Pages of the class’s material.'),
      title: z.string().describe('The page’s first non-empty line, shortened ("" for none).'),
    }),
  },
  'partial.changed': {
    description: 'text still being recognised ("" when cleared)',
    data: z.object({ text: z.string() }),
  },
  'alert.raised': {
    description: 'a keyword was heard in a newly written line — the same message as the WebSocket',
    data: KeywordAlertSchema,
  },
  'monitor.changed': {
    description:
      'the /api/monitor_status body — started, paused, resumed, stopped, recognizer ended or failed',
    data: MonitorStatusSchema,
  },
  'history.folded': {
    description:
      'older lines were folded into the history summary; the lines still shown keep their ids',
    data: z.object({
      summary: z.string(),
      folded_entries: z.number().int(),
      remaining_entries: z.number().int(),
      first_id: z
        .number()
        .int()
        .describe('Id of the oldest line still in the file: lines with smaller ids were folded.'),
    }),
  },
  'notes.written': {
    description: 'post-class notes were written',
    data: z.object({ filename: z.string(), course_name: z.string() }),
  },
  'material.uploaded': {
    description: 'a material file was uploaded',
    data: z.object({ cite_filename: z.string(), text_length: z.number().int() }),
  },
  'model.progress': {
    description:
      'a model download is under way (at most five a second per download, and at once when it moves to another source); `id` is the download id POST /api/models/download answered',
    data: z.object({
      id: z.string(),
      name: z.string().describe('The model folder it installs as.'),
      received_bytes: z.number().int(),
      total_bytes: z.number().int().nullable().describe('null while the size is unknown.'),
      source: z
        .string()
        .nullable()
        .describe(
          'The source the current file comes from (mirror, official, huggingface, hf-mirror, modelscope).',
        ),
      source_label: z
        .object({ zh: z.string(), en: z.string() })
        .nullable()
        .describe('That source for people, in both languages.'),
      notice: z
        .object({ zh: z.string(), en: z.string() })
        .nullable()
        .describe(
          'The last switch to another source and why, e.g. "官方源无法连接，正在改用 ModelScope…".',
        ),
    }),
  },
  'model.installed': {
    description: 'a downloaded model was verified and installed',
    data: z.object({ id: z.string(), name: z.string(), path: z.string() }),
  },
  'model.failed': {
    description:
      'a model download failed or was cancelled; `code` is MODEL_CHECKSUM_MISMATCH, MODEL_NETWORK_FAILED, MODEL_DISK_SPACE, MODEL_ARCHIVE_INVALID, MODEL_DOWNLOAD_CANCELLED, …',
    data: z.object({
      id: z.string(),
      name: z.string(),
      code: z.string(),
      message: z.string().describe('In English.'),
      messages: z
        .object({ zh: z.string(), en: z.string() })
        .nullable()
        .describe(
          'The message in both languages, when it has them (e.g. every source that failed and why).',
        ),
      technical: z
        .string()
        .nullable()
        .optional()
        .describe(
          "What the download sources answered or the system's own words (e.g. `getaddrinfo ENOTFOUND …`), for a details view.",
        ),
    }),
  },
  'library.changed': {
    description:
      'a class of the library was added (a class started), updated (ended, notes, re-indexed) or deleted',
    data: z.object({
      class_id: z.string(),
      change: z.enum(['added', 'updated', 'deleted']),
    }),
  },
  'mark.added': {
    description: 'the student marked a moment of the running class (POST /api/marks)',
    data: z.object({ class_id: z.string(), mark: ClassMarkSchema }),
  },
  'error.raised': {
    description:
      'a background failure; `source` is `recognizer` (with `mode`, the ASR_MODE), `history folding`, `transcript`, `notes`, `library` or `translation` (translated captions: no LLM, or it failed; lines keep coming)',
    data: ErrorRaisedSchema,
  },
  'import.changed': {
    description:
      'a recording import started, moved on (at most twice a second), finished, failed or was cancelled — the GET /api/import body',
    data: ImportStatusSchema,
  },
  'capture.changed': {
    description:
      'the app window’s microphone (AUDIO_INPUT=app): a class started or stopped listening to it, audio arrives, or it stopped and why',
    data: CaptureStatusSchema,
  },
} as const;

/** Name of a live event. */
export type LiveEventName = keyof typeof LIVE_EVENTS;

/** Payloads of the live events, by event name. */
export type LiveEventMap = {
  [Name in LiveEventName]: z.infer<(typeof LIVE_EVENTS)[Name]['data']>;
};

/** One live event as a client receives it: narrow `data` by switching on `name`. */
export type LiveMessage = {
  [Name in LiveEventName]: { name: Name; data: LiveEventMap[Name] };
}[LiveEventName];

/** A transcript line. */
export type TranscriptLine = z.infer<typeof TranscriptLineSchema>;
/** What a line carries besides its text: its page, translation and audio position. */
export type LineExtras = Pick<TranscriptLine, 'page' | 'translation' | 'audio_ms'>;
/** The monitor status. */
export type MonitorStatusPayload = z.infer<typeof MonitorStatusSchema>;
/** The recording a class was transcribed from. */
export type ClassSource = z.infer<typeof ClassSourceSchema>;
/** A class the backend died in, resumed or not. */
export type MonitorInterruption = z.infer<typeof MonitorInterruptionSchema>;
/** An alert level. */
export type AlertLevel = z.infer<typeof AlertLevelSchema>;
/** A keyword alert. */
export type KeywordAlertPayload = z.infer<typeof KeywordAlertSchema>;
/** Where a background failure happened. */
export type ErrorSource = z.infer<typeof ErrorSourceSchema>;
/** An `error.raised` payload. */
export type ErrorRaisedPayload = z.infer<typeof ErrorRaisedSchema>;
/** A marked moment of a class (`marks.json`, `mark.added`). */
export type ClassMark = z.infer<typeof ClassMarkSchema>;
/** The `stream.opened` payload. */
export type StreamOpenedPayload = z.infer<typeof StreamOpenedSchema>;
/** Every event of the SSE stream (/api/events) by name: `stream.opened` first, then the live events. */
export type EventStreamMap = LiveEventMap & { 'stream.opened': StreamOpenedPayload };
/** Why the app window's audio is not arriving. */
export type CaptureProblem = z.infer<typeof CaptureProblemSchema>;
/** The app window's microphone as the backend sees it (`capture.changed`). */
export type CaptureStatus = z.infer<typeof CaptureStatusSchema>;
/** A text message of the app window on the capture socket. */
export type CaptureWindowMessage = z.infer<typeof CaptureWindowMessageSchema>;
/** A text message of the backend on the capture socket. */
export type CaptureServerMessage = z.infer<typeof CaptureServerMessageSchema>;

/** `{a, b:"x"|"y", c?}`: the fields of an object schema, literal and enum values spelled out. */
function describeFields(schema: z.ZodObject): string {
  const fields = Object.entries(schema.shape).map(([key, field]) => {
    let inner = field as z.ZodType;
    let optional = '';
    if (inner instanceof z.ZodOptional) {
      optional = '?';
      inner = inner.unwrap() as z.ZodType;
    }
    let nullable = '';
    if (inner instanceof z.ZodNullable) {
      nullable = '\\|null';
      inner = inner.unwrap() as z.ZodType;
    }
    if (inner instanceof z.ZodLiteral) return `${key}${optional}:${JSON.stringify(inner.value)}`;
    if (inner instanceof z.ZodEnum) {
      return `${key}${optional}:${inner.options.map((value) => JSON.stringify(value)).join('\\|')}${nullable}`;
    }
    return `${key}${optional}`;
  });
  return `\`{${fields.join(', ')}}\``;
}

/**
 * The table of live events for the SSE route's documentation, generated from
 * {@link LIVE_EVENTS} so that it cannot drift from the payloads.
 */
export function liveEventsTable(): string {
  const rows = [
    `| \`stream.opened\` (no id) | ${describeFields(StreamOpenedSchema)} — first on every connection; \`gap: true\` when missed events were dropped (reload /api/transcript) |`,
    ...Object.entries(LIVE_EVENTS).map(
      ([name, event]) => `| \`${name}\` | ${describeFields(event.data)} — ${event.description} |`,
    ),
  ];
  return ['| event | data |', '|---|---|', ...rows].join('\n');
}
