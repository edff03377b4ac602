import { basename } from 'node:path';
import {
  type EntryTime,
  type KeywordAlert,
  type KeywordMatcher,
  type Summarize,
  type TranscriptEntry,
  TranscriptPipeline,
  type TranscriptStore,
} from '@class-assistant/transcript-core';
import type { AppCapture } from '../audio/app-capture.ts';
import type { AudioChunk } from '../audio/audio-source.ts';
import { errorMessage, isServerError, ServerError } from '../errors.ts';
import type { EventHub } from '../events/event-hub.ts';
import type {
  ClassSource,
  ErrorSource,
  KeywordAlertPayload,
  LineExtras,
  MonitorInterruption,
  MonitorStatusPayload,
  TranscriptLine,
} from '../events/live-events.ts';
import { createSerialQueue } from '../files.ts';
import { type Localized, localized } from '../language.ts';
import type { CiteStore } from '../material/cite-store.ts';
import { createPageTracker, type PageTracker } from '../material/page-tracker.ts';
import type {
  Recognizer,
  RecognizerEvent,
  RecognizerInput,
  RecognizerLogger,
  RecognizerRegistry,
} from '../recognizers/recognizer.ts';
import {
  type AudioKeeper,
  type AudioTarget,
  createAudioKeeper,
} from '../recording/audio-keeper.ts';
import { maskSecretsInText } from '../secret-rules.ts';
import type { ResolvedSettings } from '../settings/settings-schema.ts';
import type { SettingsStore } from '../settings/settings-store.ts';
import type { KeywordService } from './keyword-service.ts';
import { startFailure } from './start-failure.ts';

/** How the recognizer of the running class is doing. */
type RecognizerState = NonNullable<MonitorStatusPayload['recognizer_state']>;

/** /api/monitor_status and the `monitor.changed` event. */
type MonitorStatus = MonitorStatusPayload;

/** The original's answers: `{status, message}` plus what the new UI needs. */
interface MonitorAnswer {
  status: string;
  /** In both languages: the route answers in the request's. */
  message: Localized;
  effective_asr_mode?: string;
  course_name?: string;
}

/**
 * What the monitor tells the class library about the class it runs, each once the transcript
 * file holds it: the class started (after the transcript was reset), entries are about to be
 * folded out of the transcript file (the fold waits until this resolves, and does not happen
 * when it rejects — so a line never leaves the file before the library has it), an alert was
 * raised on a line, the class ended (every line written). `classContinued`: a class the backend
 * died in goes on (its transcript continues after a marker line of the gap); `keepInterrupted`:
 * it could not.
 */
export interface ClassHooks {
  classStarted(info: {
    courseName: string;
    materialName: string;
    materialText: string;
    /** The moment the status reports as `started_at`. */
    startedAt: Date;
    /** The recording the class listens to; null for live audio. */
    source: ClassSource | null;
  }): Promise<void>;
  classContinued(gap: { at: Date; seconds: number }): Promise<void>;
  /** The class the backend died in could not go on: keep it, ended, with every line. */
  keepInterrupted(): Promise<void>;
  beforeFold(entries: readonly TranscriptEntry[]): Promise<void>;
  alertRaised(alert: KeywordAlertPayload, lineId: number): void;
  /** `source`: the class's recording, its length known now (null for live audio). */
  classEnded(info?: { source: ClassSource | null }): Promise<void>;
  /**
   * An ended class whose lines the live transcript still holds goes on (a recording's import
   * resumed); rejects when it cannot.
   */
  classReopened?(classId: string): Promise<void>;
  /**
   * The extras of a line of the running class (its page, translation, audio position; all null
   * when none): what `line.appended` / `line.updated` carry beside the text.
   */
  lineExtras?(lineId: number): LineExtras;
  /** Changes the extras of a line of the running class; kept in its folder (lines.jsonl). */
  setLineExtras?(lineId: number, patch: Partial<LineExtras>): void;
  /**
   * Where the running class's audio is kept (its folder's audio file, which a class that goes
   * on appends to) and who is told its size; null without a running class. Without this hook
   * no audio is kept.
   */
  audioTarget?(): AudioTarget | null;
}

/** A class made from a recording instead of a live input (an import). */
interface RecordingRequest {
  /** The recording, played as fast as the recognizer takes it. */
  path: string;
  /** Where in the recording to begin, in ms (a resumed import). */
  startAtMs?: number;
  /** The class to go on with (its transcript continues) instead of a new one. */
  continueClassId?: string;
}

/** How far the running recording's class is. */
export interface RecordingStatus {
  fraction: number;
  positionMs: number;
  durationMs: number | null;
  /** The end (a position in the recording) of the last line recognised, ms; null before it. */
  lastLineEndMs: number | null;
}

/** Options of {@link createMonitor}. */
export interface MonitorOptions {
  dataDir: string;
  settings: SettingsStore;
  recognizers: RecognizerRegistry;
  hub: EventHub;
  cite: CiteStore;
  keywords: KeywordService;
  store: TranscriptStore;
  /** History folding; called by the pipeline every HISTORY_FOLD_ENTRIES entries. */
  summarize: Summarize;
  /**
   * Whether `summarize` can work now (an LLM is configured). A class whose folds failed for want
   * of one has them tried again on its first line after this turns true, instead of at the
   * next fold point. Default: always true.
   */
  summarizeReady?: () => boolean;
  logger: RecognizerLogger;
  /** The app window's capture, for classes with AUDIO_INPUT=app. */
  appCapture?: AppCapture;
  /** The class library (optional: without it classes are not kept). */
  classHooks?: ClassHooks;
}

/** A class the backend died in, to go on with (see {@link Monitor.continueClass}). */
interface ContinuedClass {
  courseName: string;
  /** The material file it was started with ('' for none); the active material is kept. */
  citeFilename: string;
  /** When the class started (the status keeps it: the UI keeps its lines). */
  startedAt: Date;
  /** The last sign of life of the backend that died. */
  lastAliveAt: Date;
}

/** A line without extras (no library, or nothing known of it). */
const NO_LINE_EXTRAS: LineExtras = { page: null, translation: null, audio_ms: null };

/** The marker line of a gap in a class, e.g. `—— 中断 12 秒 ——`. */
function interruptionLine(seconds: number): string {
  return `—— 中断 ${seconds} 秒 ——`;
}

/** The monitoring chain: recognizer -> transcript pipeline -> alerts and live events. */
export interface Monitor {
  /**
   * Starts a class. `recordingName`: the name the student gave the file the class listens to
   * (default: the file's own name), kept as the class's source. With `recording` the class is a
   * recording played as fast as it is recognised: its keyword alerts reach nobody live, and no
   * other class can start meanwhile (409 IMPORT_BUSY).
   */
  start(request: {
    courseName: string;
    citeFilename: string | null;
    recordingName?: string;
    recording?: RecordingRequest;
  }): Promise<MonitorAnswer>;
  /**
   * Goes on with a class the backend died in: the recognizer of ASR_MODE as configured now, the
   * transcript continuing after a marker line of the gap (nothing reset). When the recognizer
   * cannot run, the class is kept as it is (ended), the status says why until the next class
   * (`interruption.reason`), and the error is thrown as `start` throws it.
   */
  continueClass(plan: ContinuedClass): Promise<MonitorAnswer>;
  stop(): Promise<MonitorAnswer>;
  pause(): Promise<MonitorAnswer>;
  resume(): Promise<MonitorAnswer>;
  status(): MonitorStatus;
  /** The current partial (not yet final) text. */
  partial(): string;
  /** Applies a new keyword matcher to the running class. */
  refreshKeywords(): void;
  /** What the running class listens to (microphone, app window or file), if anything. */
  input(): RecognizerInput | undefined;
  /**
   * How far the running recording's class is; once it stopped, where it stopped (every line
   * written). Undefined before a recording's class ran.
   */
  recording(): RecordingStatus | undefined;
  /** Stops monitoring (if running) and waits for every write: for shutdown. */
  close(): Promise<void>;
}

/**
 * The recording a started recognizer listens to, as a class keeps it: the file's name (`name`
 * when the student gave it another) and its length when known; null for live audio.
 */
function recordingSource(recognizer: Recognizer, name?: string): ClassSource | null {
  const input = recognizer.input?.();
  if (input?.kind !== 'file') return null;
  return {
    kind: 'recording',
    file_name: name !== undefined && name !== '' ? basename(name) : basename(input.name),
    duration_ms: input.durationMs === undefined ? null : Math.round(input.durationMs),
  };
}

/** Maps transcript-core's levels to the original client's alert levels (red / yellow). */
function alertMessage(alert: KeywordAlert): KeywordAlertPayload {
  return {
    type: 'keyword_alert',
    level: alert.level === 'alert' ? 'danger' : 'warning',
    keywords: alert.keywords,
    text: alert.text,
    timestamp: alert.timestamp,
    // The line names the student (STUDENT_NAME, a homophone, STUDENT_NUMBER_DIGITS).
    for_you: alert.forYou,
  };
}

/** A class cannot start while a recording is imported. */
function importBusy(): ServerError {
  return new ServerError(
    'IMPORT_BUSY',
    localized(
      '正在导入一份录音：等它完成或取消它，再开始上课。',
      'A recording is being imported: wait until it is done, or cancel it, before starting a class.',
    ),
  );
}

/** A recording cannot be imported while a class runs. */
function classBusy(): ServerError {
  return new ServerError(
    'IMPORT_BUSY',
    localized(
      '正在上课：下课后再导入录音。',
      'A class is running: import the recording after the class has ended.',
    ),
  );
}

/** The original's answer to stop/pause/resume without a running class (HTTP 200). */
const NOT_RUNNING: MonitorAnswer = {
  status: 'not_running',
  message: localized('现在没有在上课。', 'No class is running.'),
};

interface Session {
  courseName: string;
  citeFilename: string;
  asrMode: string;
  startedAt: Date;
  pipeline: TranscriptPipeline;
  recognizer: Recognizer;
  recognizerState: RecognizerState;
  paused: boolean;
  partial: string;
  /** Error codes already reported this class (folding retries must not flood the UI). */
  reported: Set<string>;
  /** History folding failed for want of an LLM: retried as soon as one is configured. */
  foldWaitsForLlm: boolean;
  /** The last fold failed (the next success is logged). */
  foldFailing: boolean;
  /** False once the recognizer has stopped: later events are ignored. */
  accepting: boolean;
  /** Set when this class went on after the backend died in it. */
  interruption: MonitorInterruption | null;
  /** The recording the class listens to (its lines are stamped with positions in it). */
  source: ClassSource | null;
  /** A recording's class (an import): alerts are kept with the class, never sent live. */
  recording: boolean;
  /** The end of the last segment recognised, ms (a recording's position). */
  lastSegmentEndMs: number | null;
  /** The class's audio being kept (KEEP_AUDIO=on and a mode that hears audio). */
  keeper: AudioKeeper | undefined;
  /**
   * Where in the kept audio each line given to the pipeline starts, in the order given: the
   * pipeline answers each with one appended, updated or dropped line, in the same order.
   */
  audioStarts: Array<{ ms: number | null }>;
  /** Which page of the class's material the teacher is on (null pages without material). */
  pages: PageTracker;
}

/** A recognizer started and what it said while starting. */
interface Launched {
  recognizer: Recognizer;
  matcher: KeywordMatcher;
  /** Stops it (the class did not start after all). */
  abandon(): Promise<void>;
  /** Sends its events, those said while starting first, to the session. */
  deliverTo(current: Session): void;
  /** Keeps the audio the recognizer hears, once {@link openKeeper} gives it the class's file. */
  keeper: AudioKeeper | undefined;
}

/**
 * Creates the monitor. One class at a time; start/stop/pause/resume run one after another.
 *
 * @example
 * const monitor = createMonitor({ dataDir, settings, recognizers, hub, cite, keywords, store, summarize, logger });
 * await monitor.start({ courseName: '数据结构', citeFilename: null });
 */
export function createMonitor(options: MonitorOptions): Monitor {
  const serial = createSerialQueue();
  let session: Session | undefined;
  /** A class that could not go on after a crash, shown in the status until the next class. */
  let idleInterruption: MonitorInterruption | null = null;
  /** Where the last recording's class stopped, once it has (see {@link Monitor.recording}). */
  let lastRecording: RecordingStatus | undefined;

  const recordingOf = (current: Session): RecordingStatus => {
    const progress = current.recognizer.progress?.();
    return {
      fraction: progress?.fraction ?? 0,
      positionMs: progress?.positionMs ?? 0,
      durationMs: progress?.durationMs ?? null,
      lastLineEndMs: current.lastSegmentEndMs,
    };
  };

  const status = (): MonitorStatus => ({
    state: session ? (session.paused ? 'paused' : 'running') : 'idle',
    is_monitoring: session !== undefined,
    is_paused: session?.paused ?? false,
    course_name: session?.courseName ?? '',
    asr_mode: session?.asrMode ?? options.settings.current().asrMode,
    cite_filename: session?.citeFilename ?? '',
    started_at: session?.startedAt.toISOString() ?? null,
    recognizer_state: session?.recognizerState ?? null,
    interruption: session ? session.interruption : idleInterruption,
    source: session?.source ?? null,
    current_page: session?.pages.current ?? null,
  });

  const publishStatus = () => options.hub.publish('monitor.changed', status());

  const reportError = (
    current: Session | undefined,
    source: ErrorSource,
    error: unknown,
    fatal?: boolean,
  ) => {
    const code = isServerError(error)
      ? error.code
      : ((error as { code?: string })?.code ?? 'INTERNAL_ERROR');
    // A service's message may quote its address (with a password) or a key: masked.
    const message = maskSecretsInText((error as Error)?.message ?? String(error));
    const mode = source === 'recognizer' ? current?.asrMode : undefined;
    options.logger.error(
      { source, mode, code, err: error },
      `${source}${mode ? ` (${mode})` : ''} failed`,
    );
    // A failure that stops the recognizer is told even after a hiccup of the same kind.
    const key = `${source}:${code}${fatal ? ':fatal' : ''}`;
    if (current?.reported.has(key)) return;
    current?.reported.add(key);
    const messages =
      isServerError(error) && error.localized
        ? { zh: errorMessage(error, 'zh'), en: errorMessage(error, 'en') }
        : undefined;
    options.hub.publish('error.raised', {
      source,
      code,
      message,
      ...(messages ? { messages } : {}),
      ...(mode ? { mode } : {}),
      ...(fatal === undefined ? {} : { fatal }),
    });
  };

  // A fold that fails loses nothing: its lines stay in the transcript file and the fold is tried
  // again at the next fold point (HISTORY_FOLD_ENTRIES − kept lines later). One warning per
  // cause per class; the UI hears of each cause once too.
  const reportFoldFailure = (current: Session, error: unknown) => {
    const code = isServerError(error)
      ? error.code
      : ((error as { code?: string })?.code ?? 'INTERNAL_ERROR');
    const message = (error as Error)?.message ?? String(error);
    current.foldFailing = true;
    if (code === 'LLM_NOT_CONFIGURED') current.foldWaitsForLlm = true;
    const key = `history folding:${code}`;
    const details = { source: 'history folding', code, reason: message };
    if (current.reported.has(key)) {
      options.logger.debug?.(
        details,
        'history folding failed again; retried at the next fold point',
      );
      return;
    }
    current.reported.add(key);
    options.logger.warn(
      details,
      code === 'LLM_NOT_CONFIGURED'
        ? 'history folding is waiting for an LLM: the lines stay in the transcript until one is configured, then they are summarised'
        : 'history folding failed: the lines stay in the transcript; retried at the next fold point',
    );
    options.hub.publish('error.raised', { source: 'history folding', code, message });
  };

  // On each line of a class whose folds wait for an LLM: one configured since? Fold now.
  const retryFoldWhenReady = (current: Session) => {
    if (!current.foldWaitsForLlm || !(options.summarizeReady?.() ?? true)) return;
    current.foldWaitsForLlm = false;
    options.logger.info({}, 'an LLM is configured now: summarising the lines waiting to be folded');
    current.pipeline.retryFold();
  };

  const setPartial = (current: Session, text: string) => {
    if (current.partial === text) return;
    current.partial = text;
    options.hub.publish('partial.changed', { text });
  };

  // The pipeline's events fire right after the store wrote the line, so the line is the
  // file's last entry.
  const lastLine = (entry: TranscriptEntry): TranscriptLine => ({
    id: entry.id,
    index: options.store.entryCount - 1,
    timestamp: entry.time ?? '',
    text: entry.text,
    ...(options.classHooks?.lineExtras?.(entry.id) ?? NO_LINE_EXTRAS),
  });

  const publishPage = (current: Session) => {
    const page = current.pages.current;
    options.hub.publish('page.changed', {
      page,
      page_count: current.pages.pages.length,
      title: current.pages.pages.find((candidate) => candidate.page === page)?.title ?? '',
    });
  };

  /** The page of the class's last line that has one (a class going on starts from it). */
  const lastPage = (): number | null => {
    const extrasOf = options.classHooks?.lineExtras;
    if (!extrasOf) return null;
    for (let id = options.store.lastId; id >= 1 && id > options.store.lastId - 50; id--) {
      const { page } = extrasOf(id);
      if (page !== null) return page;
    }
    return null;
  };

  const wirePipeline = (current: Session) => {
    const { pipeline } = current;
    pipeline.on('line-appended', ({ entry }) => {
      // The line's place in the kept audio and its page travel with its first event: both are
      // set before it is published.
      const start = current.audioStarts.shift();
      if (start?.ms != null) options.classHooks?.setLineExtras?.(entry.id, { audio_ms: start.ms });
      const { page, changed } = current.pages.push(entry.text, Date.now());
      if (page !== null) options.classHooks?.setLineExtras?.(entry.id, { page });
      options.hub.publish('line.appended', {
        ...lastLine(entry),
        ...(options.classHooks?.setLineExtras ? {} : { page }),
      });
      if (changed) publishPage(current);
      retryFoldWhenReady(current);
    });
    pipeline.on('line-updated', ({ entry }) => {
      // A line extended or joined keeps where it started.
      const start = current.audioStarts.shift();
      if (start?.ms != null && options.classHooks?.lineExtras?.(entry.id).audio_ms == null) {
        options.classHooks?.setLineExtras?.(entry.id, { audio_ms: start.ms });
      }
      options.hub.publish('line.updated', lastLine(entry));
    });
    pipeline.on('line-dropped', () => {
      current.audioStarts.shift();
    });
    pipeline.on('alert-raised', (alert) => {
      const message = alertMessage(alert);
      // A recording is not the student's class now: nobody is called, the class keeps the alert.
      if (!current.recording) options.hub.publish('alert.raised', message);
      options.classHooks?.alertRaised(message, alert.lineId);
    });
    pipeline.on('history-folded', (event) => {
      if (current.foldFailing) {
        current.foldFailing = false;
        options.logger.info(
          { folded: event.foldedCount, remaining: event.keptCount },
          'history folding works again',
        );
      }
      options.hub.publish('history.folded', {
        summary: event.summary,
        folded_entries: event.foldedCount,
        remaining_entries: event.keptCount,
        first_id: event.firstKeptId,
      });
    });
    pipeline.on('fold-failed', (event) => {
      if (event.reason === 'entries-changed') return;
      reportFoldFailure(current, event.error ?? new Error(event.reason));
    });
  };

  // A recording's line is stamped with the position in the file where its speech starts: the
  // recognizer's `startMs` on the class clock mapped back to the file (pauses taken out). A line
  // without a start (a streaming service's) takes the position of the audio given so far.
  // Live audio: the clock, as the store stamps it.
  const timeOf = (current: Session, startMs?: number): EntryTime | undefined => {
    if (!current.source) return undefined;
    const positionMs = current.recognizer.recordingPosition?.(startMs);
    return positionMs === undefined ? undefined : { positionMs };
  };

  const intake = (current: Session, work: () => Promise<unknown>, startMs?: number) => {
    // Where the line starts in the kept audio (a line without a start: the audio kept so far).
    const start = { ms: current.keeper?.positionAt(startMs) ?? null };
    current.audioStarts.push(start);
    work().catch((error: unknown) => {
      // Refused by the pipeline: no line answers this one.
      const at = current.audioStarts.indexOf(start);
      if (at !== -1) current.audioStarts.splice(at, 1);
      if (session !== current) return;
      reportError(current, 'transcript', error);
    });
  };

  const onRecognizerEvent = (current: Session, event: RecognizerEvent) => {
    // While stop() runs the recognizer may still deliver the phrase being spoken: take it.
    if (!current.accepting || current.paused) return;
    if (session !== current && event.type !== 'text' && event.type !== 'segment') return;
    switch (event.type) {
      case 'text': {
        setPartial(current, '');
        if (event.endMs !== undefined) {
          current.lastSegmentEndMs = Math.max(current.lastSegmentEndMs ?? 0, event.endMs);
        }
        const time = timeOf(current, event.startMs);
        intake(
          current,
          () => current.pipeline.pushLine(event.text, time ? { time } : {}),
          event.startMs,
        );
        return;
      }
      case 'segment': {
        setPartial(current, '');
        current.lastSegmentEndMs = Math.max(current.lastSegmentEndMs ?? 0, event.endMs);
        const time = timeOf(current, event.startMs);
        intake(
          current,
          () =>
            current.pipeline.pushSegment({
              text: event.text,
              startMs: event.startMs,
              endMs: event.endMs,
              ...(time ? { time } : {}),
            }),
          event.startMs,
        );
        return;
      }
      case 'partial':
        setPartial(current, event.text);
        return;
      case 'error':
        reportError(
          current,
          'recognizer',
          new ServerError('RECOGNIZER_FAILED', event.message),
          event.fatal,
        );
        if (event.fatal) {
          current.recognizerState = 'failed';
          void current.recognizer.stop();
          publishStatus();
        }
        return;
      case 'end':
        setPartial(current, '');
        options.logger.info({ reason: event.reason }, 'the recognizer ended');
        // Report the end once the last lines are written, so the UI sees them first.
        void current.pipeline
          .flush()
          .catch(() => undefined)
          .then(() => {
            if (session !== current) return;
            current.recognizerState = 'ended';
            publishStatus();
          });
        return;
    }
  };

  const stopSession = async (current: Session) => {
    session = undefined;
    try {
      await current.recognizer.stop();
    } catch (error) {
      options.logger.error({ err: error }, 'stopping the recognizer failed');
    }
    current.accepting = false;
    // Waits for every queued line to be written (a running fold is abandoned, nothing lost).
    await current.pipeline.close();
    // The rest of the audio is written before the class is finished (its size is known then).
    await current.keeper?.close();
    if (current.recording) lastRecording = recordingOf(current);
    if (current.partial !== '') options.hub.publish('partial.changed', { text: '' });
    // A recording read to its end says its true length (its header may have said none, or a
    // wrong one); one stopped before is at least as long as the audio it gave.
    if (current.source) {
      const read = current.recognizer.progress?.()?.durationMs;
      const reached = current.recognizer.recordingPosition?.();
      let length = read ?? current.source.duration_ms;
      if (reached !== undefined && (length === null || reached > length)) length = reached;
      if (length !== null && length !== current.source.duration_ms) {
        current.source = { ...current.source, duration_ms: Math.round(length) };
      }
    }
    try {
      await options.classHooks?.classEnded({ source: current.source });
    } catch (error) {
      reportError(current, 'library', error);
    }
  };

  /** The recognition mode of `settings`, if it can run here; else a 503 naming what to set. */
  const checkMode = async (settings: ResolvedSettings) => {
    const definition = options.recognizers.get(settings.asrMode);
    if (!definition) {
      throw new ServerError(
        'RECOGNIZER_UNAVAILABLE',
        localized(
          `ASR_MODE=${settings.asrMode} 不是这个版本支持的识别方式（${options.recognizers.modes().join('、')}）。`,
          `ASR_MODE=${settings.asrMode} is not a recognition mode of this build (${options.recognizers.modes().join(', ')}).`,
        ),
        { field: 'ASR_MODE' },
      );
    }
    const availability = await definition.availability(settings, {
      dataDir: options.dataDir,
    });
    if (!availability.available) {
      throw startFailure(
        new ServerError(availability.code ?? 'RECOGNIZER_UNAVAILABLE', availability.message, {
          field: availability.settings[0] ?? 'ASR_MODE',
          hint: `Settings to check: ${availability.settings.join(', ')}.`,
        }),
        settings.asrMode,
      );
    }
    return definition;
  };

  /** Reloads the keywords, creates and starts the recognizer; keeps what it says meanwhile. */
  const launch = async (
    definition: NonNullable<ReturnType<RecognizerRegistry['get']>>,
    settings: ResolvedSettings,
    materialText: string,
    startAtMs = 0,
  ): Promise<Launched> => {
    const matcher = await options.keywords.reload(settings.keywordHomophones);
    const early: RecognizerEvent[] = [];
    let deliver: (event: RecognizerEvent) => void = (event) => early.push(event);
    // A mode that hears audio keeps it (KEEP_AUDIO); the demo mode hears none.
    const keeper =
      settings.keepAudio === 'on' &&
      options.classHooks?.audioTarget &&
      (definition.needs?.audio.length ?? 0) > 0
        ? createAudioKeeper({
            onError: (message) =>
              options.logger.warn({ err: message }, 'the class audio cannot be kept'),
          })
        : undefined;
    const recognizer = definition.create({
      settings,
      dataDir: options.dataDir,
      emit: (event) => deliver(event),
      logger: options.logger,
      keywords: options.keywords.hotwords(),
      material: materialText,
      ...(options.appCapture ? { appCapture: options.appCapture } : {}),
      ...(startAtMs > 0 ? { startAtMs } : {}),
      ...(keeper ? { onAudio: (chunk: AudioChunk) => keeper.hear(chunk) } : {}),
    });
    const abandon = async () => {
      deliver = () => undefined;
      void keeper?.close();
      try {
        await recognizer.stop();
      } catch (error) {
        options.logger.error({ err: error }, 'stopping the recognizer failed');
      }
    };
    try {
      await recognizer.start();
    } catch (error) {
      await abandon();
      // Configuration problems (no microphone, no model, a bad file) keep their own code
      // and the setting to fix.
      if (
        isServerError(error) &&
        (error.statusCode === 503 || error.code === 'RECORDING_UNSUPPORTED')
      )
        throw startFailure(error, settings.asrMode);
      // Anything else is a recognizer that failed to start.
      throw startFailure(
        isServerError(error) && error.code !== 'RECOGNIZER_FAILED'
          ? new ServerError(
              'RECOGNIZER_FAILED',
              error.localized ?? error.message,
              { ...error.details, field: error.details.field ?? 'ASR_MODE' },
              { cause: error },
            )
          : error,
        settings.asrMode,
      );
    }
    return {
      recognizer,
      matcher,
      abandon,
      keeper,
      deliverTo(current) {
        deliver = (event) => onRecognizerEvent(current, event);
        for (const event of early.splice(0)) deliver(event);
      },
    };
  };

  /**
   * The class's folder is known: its audio is kept there from now on (with what was heard while
   * starting). A class going on appends, its audio's length known before the first line.
   */
  const openKeeper = async (launched: Launched) => {
    const target = launched.keeper ? options.classHooks?.audioTarget?.() : null;
    if (!launched.keeper || !target) return;
    try {
      await launched.keeper.open(target);
    } catch (error) {
      options.logger.warn({ err: error }, 'the class audio cannot be kept');
    }
  };

  /** The class runs: its pipeline over the transcript store, the recognizer's events to it. */
  const openSession = (
    launched: Launched,
    settings: ResolvedSettings,
    info: Pick<Session, 'courseName' | 'citeFilename' | 'startedAt' | 'interruption' | 'source'> & {
      recording?: boolean;
      /** The class's material text ('' for none): the pages the tracker follows. */
      materialText: string;
    },
  ) => {
    const { materialText, ...sessionInfo } = info;
    const pages = createPageTracker(materialText);
    // A class going on (after a crash, or an import resumed) starts from its last line's page.
    pages.resume(lastPage());
    const hooks = options.classHooks;
    const pipeline = new TranscriptPipeline({
      store: options.store,
      keywords: launched.matcher,
      ...(settings.historyFoldEntries > 0
        ? {
            summarize: hooks
              ? async (previousSummary, entries, context) => {
                  await hooks.beforeFold(entries);
                  return options.summarize(previousSummary, entries, context);
                }
              : options.summarize,
            // 50 entries keep the last 20 unfolded (the rescue/catch-up windows); smaller
            // thresholds keep half.
            fold: {
              threshold: settings.historyFoldEntries,
              keepRecent: Math.min(20, Math.floor(settings.historyFoldEntries / 2)),
            },
          }
        : {}),
    });
    const current: Session = {
      ...sessionInfo,
      pages,
      asrMode: settings.asrMode,
      pipeline,
      recognizer: launched.recognizer,
      recognizerState: 'running',
      paused: false,
      partial: '',
      reported: new Set(),
      foldWaitsForLlm: false,
      foldFailing: false,
      accepting: true,
      recording: info.recording ?? false,
      lastSegmentEndMs: null,
      keeper: launched.keeper,
      audioStarts: [],
    };
    wirePipeline(current);
    session = current;
    publishStatus();
    launched.deliverTo(current);
  };

  return {
    start: (request) =>
      serial(async () => {
        if (session?.recording) throw importBusy();
        if (session) {
          if (request.recording) throw classBusy();
          return {
            status: 'already_running',
            message: localized('已经在上课了。', 'A class is already running.'),
          };
        }
        const { recording } = request;
        const settings = recording
          ? {
              ...options.settings.current(),
              audioInput: `file:${recording.path}`,
              audioFilePace: 'fast' as const,
            }
          : options.settings.current();
        const definition = await checkMode(settings);
        if (recording && !(definition.needs?.audio ?? []).includes('file')) {
          throw new ServerError(
            'RECOGNIZER_UNAVAILABLE',
            localized(
              `识别方式 ASR_MODE=${settings.asrMode} 不识别录音文件：请在设置里选本地识别（local）或云端识别。`,
              `ASR_MODE=${settings.asrMode} does not recognise recordings: choose local or cloud recognition in the settings.`,
            ),
            { field: 'ASR_MODE' },
          );
        }
        // Nothing changes unless the class really starts: the material is checked and read
        // now but activated, and the transcript reset, only once the recognizer runs. What it
        // says while starting is kept and delivered after the reset.
        const material = await options.cite.prepareActivation(request.citeFilename);
        const launched = await launch(definition, settings, material.text, recording?.startAtMs);
        if (recording) lastRecording = undefined;
        const startedAt = new Date();
        const source = recordingSource(launched.recognizer, request.recordingName);
        try {
          await material.commit();
          if (recording?.continueClassId) {
            if (!options.classHooks?.classReopened) {
              throw new ServerError('CLASS_NOT_FOUND', 'No class library to go on with.');
            }
            await options.classHooks.classReopened(recording.continueClassId);
          } else {
            await options.store.reset({
              courseName: request.courseName,
              ...(request.citeFilename ? { materialName: request.citeFilename } : {}),
            });
            await options.classHooks?.classStarted({
              courseName: request.courseName,
              materialName: request.citeFilename ?? '',
              materialText: material.text,
              startedAt,
              source,
            });
          }
        } catch (error) {
          await launched.abandon();
          throw error;
        }
        await openKeeper(launched);
        idleInterruption = null;
        openSession(launched, settings, {
          courseName: request.courseName,
          citeFilename: request.citeFilename ?? '',
          startedAt,
          interruption: null,
          source,
          recording: recording !== undefined,
          materialText: material.text,
        });
        return {
          status: 'started',
          message: localized(
            `开始上课（${settings.asrMode}）：正在听写和留意关键词。`,
            `Class started (${settings.asrMode}): transcribing and watching for keywords.`,
          ),
          effective_asr_mode: settings.asrMode,
        };
      }),
    continueClass: (plan) =>
      serial(async () => {
        if (session) {
          return {
            status: 'already_running',
            message: localized('已经在上课了。', 'A class is already running.'),
          };
        }
        const gapUntil = (at: Date) =>
          Math.max(0, Math.round((at.getTime() - plan.lastAliveAt.getTime()) / 1000));
        const settings = options.settings.current();
        let launched: Launched | undefined;
        let materialText = '';
        let at: Date;
        let seconds: number;
        try {
          const definition = await checkMode(settings);
          // The class's material is still the active one: it is not activated again.
          materialText = await options.cite.readCurrent();
          launched = await launch(definition, settings, materialText);
          at = new Date();
          seconds = gapUntil(at);
          const marker = await options.store.append(interruptionLine(seconds), { time: at });
          options.hub.publish('line.appended', lastLine(marker));
          await options.classHooks?.classContinued({ at, seconds });
        } catch (error) {
          await launched?.abandon();
          const failedAt = new Date();
          try {
            await options.classHooks?.keepInterrupted();
          } catch (keepError) {
            reportError(undefined, 'library', keepError);
          }
          const known = isServerError(error)
            ? error
            : new ServerError('RECOGNIZER_FAILED', (error as Error)?.message ?? String(error));
          idleInterruption = {
            at: failedAt.toISOString(),
            seconds: gapUntil(failedAt),
            resumed: false,
            reason: {
              code: known.code,
              zh: errorMessage(known, 'zh'),
              en: errorMessage(known, 'en'),
            },
          };
          publishStatus();
          throw error;
        }
        await openKeeper(launched);
        idleInterruption = null;
        openSession(launched, settings, {
          courseName: plan.courseName,
          citeFilename: plan.citeFilename,
          startedAt: plan.startedAt,
          interruption: { at: at.toISOString(), seconds, resumed: true, reason: null },
          source: recordingSource(launched.recognizer),
          materialText,
        });
        return {
          status: 'started',
          message: localized(
            `接着上课（${settings.asrMode}）：中断 ${seconds} 秒后继续记录。`,
            `Class continued (${settings.asrMode}): recording again after a ${seconds} s gap.`,
          ),
          effective_asr_mode: settings.asrMode,
        };
      }),
    stop: () =>
      serial(async () => {
        const current = session;
        if (!current) return { ...NOT_RUNNING };
        await stopSession(current);
        publishStatus();
        return {
          status: 'stopped',
          message: localized('已下课。', 'Class ended.'),
          course_name: current.courseName,
        };
      }),
    pause: () =>
      serial(async () => {
        const current = session;
        if (!current) return { ...NOT_RUNNING };
        if (current.paused)
          return {
            status: 'already_paused',
            message: localized('课堂已经暂停了。', 'The class is already paused.'),
          };
        try {
          // What the recognizer writes while pausing (the sentence being spoken) is kept.
          await current.recognizer.pause();
        } finally {
          current.paused = true;
        }
        if (current.recognizerState === 'running') current.recognizerState = 'paused';
        setPartial(current, '');
        publishStatus();
        return { status: 'paused', message: localized('课堂已暂停。', 'Class paused.') };
      }),
    resume: () =>
      serial(async () => {
        const current = session;
        if (!current) return { ...NOT_RUNNING };
        if (!current.paused)
          return {
            status: 'not_paused',
            message: localized('课堂没有暂停。', 'The class is not paused.'),
          };
        current.paused = false;
        await current.recognizer.resume();
        if (current.recognizerState === 'paused') current.recognizerState = 'running';
        publishStatus();
        return {
          status: 'resumed',
          message: localized('课堂已继续。', 'Class resumed.'),
          effective_asr_mode: current.asrMode,
        };
      }),
    status,
    partial: () => session?.partial ?? '',
    refreshKeywords() {
      session?.pipeline.setKeywords(options.keywords.matcher());
    },
    input: () => session?.recognizer.input?.(),
    recording: () => (session?.recording ? recordingOf(session) : lastRecording),
    close: () =>
      serial(async () => {
        if (session) {
          await stopSession(session);
          publishStatus();
        }
      }),
  };
}
