/**
 * The recognizer seam: one implementation per ASR_MODE, chosen through a
 * {@link RecognizerRegistry}. A recognizer only turns sound (or a script) into text events; the
 * monitor session feeds those events into the transcript pipeline, so a new mode never touches
 * cleaning, merging, alerts or files.
 */
import type { AppCapture } from '../audio/app-capture.ts';
import type { AudioChunk } from '../audio/audio-source.ts';
import type {
  RecognizerAvailability,
  RecognizerInput,
  RecordingProgress,
} from '../audio/recognizer-input.ts';
import { type MessageText, textIn } from '../language.ts';
import type { ResolvedSettings } from '../settings/settings-store.ts';

export type { RecognizerAvailability, RecognizerInput };

/**
 * What a recognizer reports:
 * - `text`: one finished sentence, new to the transcript (mock and cloud modes; the streaming
 *   mode's definite utterances, each handed over once), with `startMs`, where its speech starts
 *   on the class clock, when the recognizer knows it;
 * - `segment`: one local-mode segment with its audio times, subject to short-segment merging;
 * - `partial`: text still being recognised (shown live, never written; the monitor is its only
 *   owner on the server);
 * - `error`: a problem; `fatal` ones end the recognizer (the monitor reports and stops it);
 * - `end`: the source ran out (script over, WAV file finished).
 */
export type RecognizerEvent =
  /**
   * `startMs` / `endMs`: where the phrase started and ended on the source's clock, when the
   * recognizer knows it.
   */
  | { type: 'text'; text: string; startMs?: number; endMs?: number }
  | { type: 'segment'; text: string; startMs: number; endMs: number }
  | { type: 'partial'; text: string }
  /** `message`: in both languages where the student reads it (the UI shows it in its own). */
  | { type: 'error'; code: string; message: MessageText; fatal: boolean }
  | { type: 'end'; reason: string };

/**
 * A running recognizer. Every method is idempotent. Events emitted while `stop()` runs are still
 * taken (the phrase being spoken when the student presses stop is written); none after it resolves.
 */
export interface Recognizer {
  /** What it is listening to, when it listens to audio. */
  input?(): RecognizerInput | undefined;
  /**
   * When it listens to a recording (a file): the position in the file (ms) of class-clock time
   * `atMs` (the clock of its events' `startMs`), or without `atMs` of the audio it has been given
   * so far. `undefined` for live audio.
   */
  recordingPosition?(atMs?: number): number | undefined;
  /** How far it is through a recording (listening to a file), else undefined. */
  progress?(): RecordingProgress | undefined;
  /** Starts capturing; resolves once running, rejects when the source cannot be opened. */
  start(): Promise<void>;
  /** Stops listening without releasing what `resume()` needs. */
  pause(): Promise<void>;
  resume(): Promise<void>;
  /** Stops for good and releases the source (microphone, socket, timers). */
  stop(): Promise<void>;
}

/** Minimal logger a recognizer may use (pino's and fastify's loggers fit). */
export interface RecognizerLogger {
  info(object: object, message?: string): void;
  warn(object: object, message?: string): void;
  error(object: object, message?: string): void;
  /** Details nobody needs unless debugging (LOG_LEVEL=debug); optional. */
  debug?(object: object, message?: string): void;
}

/** What a recognizer is created with. */
export interface RecognizerContext {
  /** The settings at the moment monitoring starts. */
  settings: ResolvedSettings;
  /** The data folder (for models or recordings a mode may keep). */
  dataDir: string;
  /** Reports an event to the monitor session. */
  emit(event: RecognizerEvent): void;
  logger: RecognizerLogger;
  /** The class's alert keywords (names first of all): hot words for the online recognizers. */
  keywords?: readonly string[];
  /**
   * The text of the material this class activates ('' without one). start_monitor writes it to
   * data/current_class_material.txt only once the recognizer has started, so read it from here.
   */
  material?: string;
  /** The app window's capture, for AUDIO_INPUT=app (buildApp provides it). */
  appCapture?: AppCapture;
  /** A file source begins this far into the recording, in ms (a resumed import). */
  startAtMs?: number;
  /**
   * Given every chunk of audio the recognizer hears, as it hears it (the class's audio is kept
   * from it). A mode that listens to audio passes its source through `tapAudio`.
   */
  onAudio?(chunk: AudioChunk): void;
}

/** What an ASR_MODE needs, for a settings form and the checks before a class. */
export interface RecognizerNeeds {
  /**
   * The kinds of AUDIO_INPUT it listens to: `microphone` (mic, mic:NAME), `app` (the app
   * window's microphone), `file` (file:PATH). Empty: it listens to no audio.
   */
  audio: ReadonlyArray<'microphone' | 'app' | 'file'>;
  /** The settings a student fills in for it, those it cannot start without first. */
  settings: readonly string[];
  /** Whether it needs a speech model on this computer. */
  model: boolean;
}

/** One ASR_MODE. */
export interface RecognizerDefinition {
  /** The ASR_MODE value. */
  mode: string;
  /** One line for /docs, health and errors. */
  description: string;
  /** What it needs (absent: nothing declared — no audio, no settings, no model). */
  needs?: RecognizerNeeds;
  /**
   * Checked by /api/health (often: keep it cheap, no device access) and before start_monitor
   * creates the recognizer. `where.dataDir` resolves relative paths in the settings.
   */
  availability(
    settings: ResolvedSettings,
    where?: { dataDir: string },
  ): Promise<RecognizerAvailability>;
  create(context: RecognizerContext): Recognizer;
}

/** The modes the server knows, by ASR_MODE value. */
export interface RecognizerRegistry {
  get(mode: string): RecognizerDefinition | undefined;
  modes(): string[];
}

/**
 * Builds a registry from definitions (a later definition of the same mode replaces an earlier one,
 * so a build can override a mode).
 *
 * @example
 * const registry = createRecognizerRegistry([...defaultRecognizerDefinitions(), myLocalMode]);
 * buildApp({ recognizers: registry });
 */
export function createRecognizerRegistry(
  definitions: readonly RecognizerDefinition[],
): RecognizerRegistry {
  const byMode = new Map<string, RecognizerDefinition>();
  for (const definition of definitions) byMode.set(definition.mode, definition);
  return {
    get: (mode) => byMode.get(mode),
    modes: () => [...byMode.keys()],
  };
}

/**
 * Reports a recognizer's problems as `error` events: each non-fatal code once per class (later
 * ones go to the log only, so a flaky network does not flood the student), fatal ones always.
 *
 * @example
 * const report = createErrorReporter(context);
 * report('CLOUD_ASR_RATE_LIMITED', 'The transcription service is rate-limiting', false);
 */
export function createErrorReporter(
  context: Pick<RecognizerContext, 'emit' | 'logger'>,
): (code: string, message: MessageText, fatal: boolean) => void {
  const reported = new Set<string>();
  return (code, message, fatal) => {
    if (!fatal && reported.has(code)) {
      context.logger.warn({ code }, textIn(message, 'en'));
      return;
    }
    reported.add(code);
    context.emit({ type: 'error', code, message, fatal });
  };
}
