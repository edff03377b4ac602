/**
 * The seam for offline speech engines of the local mode: an engine turns one phrase of 16 kHz
 * mono audio (cut by the energy VAD) into text, off the main thread. Vosk and sherpa-onnx run
 * downloaded models; PocketSphinx runs the system's US English one. (A class with sherpa-onnx
 * streams its audio to the engine instead: see sherpa-recognizer.ts; `transcribe` recognises a
 * whole recording.)
 */
import type { ResolvedSettings } from '../../settings/settings-store.ts';
import type { RecognizerAvailability } from '../recognizer.ts';

/** A loaded engine. One phrase at a time; calls queue. */
export interface OfflineEngine {
  /** `vosk`, `pocketsphinx` or `sherpa`. */
  readonly name: string;
  /** What is loaded, for logs and health (e.g. the model folder). */
  readonly detail: string;
  /** Recognises one phrase (16 kHz mono PCM); '' when it heard no words. */
  transcribe(samples: Int16Array): Promise<string>;
  /** Frees the native resources. */
  close(): void;
}

/**
 * One engine kind. `model` is the model folder to use; absent, the engine's setting names it
 * (VOSK_MODEL_PATH, POCKETSPHINX_MODEL_PATH). The local mode passes the folder it chose: a
 * setting, an installed model of the class language, or the system's PocketSphinx model.
 */
export interface OfflineEngineDefinition {
  name: 'vosk' | 'pocketsphinx' | 'sherpa';
  /** Cheap checks (files, libraries) for /api/health and start_monitor. */
  availability(settings: ResolvedSettings, model?: string): Promise<RecognizerAvailability>;
  /** Loads the model (may take seconds; never blocks the event loop). */
  load(settings: ResolvedSettings, model?: string): Promise<OfflineEngine>;
}

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

/**
 * Cleans an engine's text: whitespace collapsed, and no spaces between CJK characters (Vosk's
 * Chinese models put one between every word: "今天 我们 讲 二叉树" reads "今天我们讲二叉树").
 */
export function normalizeRecognizedText(text: string): string {
  const words = text
    .trim()
    .split(/\s+/)
    .filter((word) => word !== '');
  let out = '';
  for (const word of words) {
    const last = out.at(-1);
    out +=
      out === '' || (last !== undefined && CJK.test(last) && CJK.test(word[0] ?? ''))
        ? word
        : ` ${word}`;
  }
  return out;
}

/** Runs a koffi function on libuv's thread pool, as a promise. */
export function callAsync<T>(
  fn: { async: (...args: unknown[]) => void },
  ...args: unknown[]
): Promise<T> {
  return new Promise((resolve, reject) => {
    fn.async(...args, (error: unknown, result: T) => (error ? reject(error) : resolve(result)));
  });
}

/** A queue that runs tasks one after another (engines are not re-entrant). */
export function createTaskQueue(): <T>(task: () => Promise<T>) => Promise<T> {
  let tail: Promise<unknown> = Promise.resolve();
  return (task) => {
    const next = tail.then(task, task);
    tail = next.catch(() => undefined);
    return next;
  };
}

/**
 * An engine from its decode and free functions: phrases are decoded one at a time (native
 * decoders are not re-entrant), an empty phrase is ''. Closing refuses new phrases and frees the
 * decoder once those already queued are decoded.
 */
export function createQueuedEngine(
  name: string,
  detail: string,
  decode: (samples: Int16Array) => Promise<string>,
  free: () => void,
): OfflineEngine {
  const queue = createTaskQueue();
  let closed = false;
  return {
    name,
    detail,
    transcribe: (samples) =>
      closed
        ? Promise.reject(new Error(`the ${name} engine is closed`))
        : queue(async () => (samples.length === 0 ? '' : decode(samples))),
    close() {
      if (closed) return;
      closed = true;
      void queue(async () => free());
    },
  };
}
