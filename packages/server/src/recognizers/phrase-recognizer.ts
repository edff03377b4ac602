/**
 * The chain shared by the local and cloud modes: audio source -> energy VAD (SpeechRecognition's
 * listen) -> one transcription per phrase, in order -> `segment` (local, merged by
 * transcript-core) or `text` (cloud) events.
 */
import {
  type AudioSource,
  chunkMilliseconds,
  inputOf,
  progressOf,
  recordingPositionOf,
} from '../audio/audio-source.ts';
import { EnergyVad, type VadPhrase } from '../audio/energy-vad.ts';
import { RECOGNIZER_SAMPLE_RATE } from '../audio/pcm.ts';
import { isServerError } from '../errors.ts';
import type { ResolvedSettings } from '../settings/settings-store.ts';
import { recognizerAudioSource } from './class-audio-source.ts';
import { createErrorReporter, type Recognizer, type RecognizerContext } from './recognizer.ts';

/** Turns one phrase into text; '' when nothing was said. Throwing reports an error (see below). */
export interface PhraseTranscriber {
  transcribe(phrase: VadPhrase): Promise<string>;
  /** Called once the class is over. */
  close(): void;
}

const marker = Symbol.for('class-assistant.phrase-transcription-error');

/** A transcription failure: `fatal` ends the class's recognition (bad key), others lose one phrase. */
export class PhraseTranscriptionError extends Error {
  readonly code: string;
  readonly fatal: boolean;
  readonly [marker] = true;
  constructor(code: string, message: string, fatal: boolean, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PhraseTranscriptionError';
    this.code = code;
    this.fatal = fatal;
  }
}

/** True for a {@link PhraseTranscriptionError}, also across copies of this package. */
export function isPhraseTranscriptionError(error: unknown): error is PhraseTranscriptionError {
  return (
    typeof error === 'object' &&
    error !== null &&
    (error as Record<symbol, unknown>)[marker] === true
  );
}

/** Options of {@link createPhraseRecognizer}. */
export interface PhraseRecognizerOptions {
  context: RecognizerContext;
  /** Loads the engine or client (called by start(); may take seconds). */
  prepare(): Promise<PhraseTranscriber>;
  /** `segment` for local mode (times kept for merging), `text` for cloud mode. */
  emitAs: 'segment' | 'text';
  /** A source to use instead of AUDIO_INPUT's (tests, benchmarks). */
  source?: AudioSource;
  /** Longest wait at stop for the phrases still being transcribed. Default 10 s. */
  drainTimeoutMs?: number;
}

/** The VAD options from the settings (the original product's values by default). */
function vadOptionsFrom(settings: ResolvedSettings) {
  const bufferMs = chunkMilliseconds(settings);
  return {
    sampleRate: RECOGNIZER_SAMPLE_RATE,
    bufferSamples: Math.max(1, Math.round((bufferMs * RECOGNIZER_SAMPLE_RATE) / 1000)),
    energyThreshold: settings.vadEnergyThreshold,
    dynamicEnergyThreshold: settings.vadDynamicEnergy,
    pauseThreshold: settings.vadPauseThreshold,
    phraseTimeLimit: settings.vadPhraseTimeLimit,
  };
}

/** Most phrases waiting for transcription before reading audio waits (a fast file source). */
const MAX_WAITING_PHRASES = 2;

/**
 * A recognizer that cuts the audio into phrases with {@link EnergyVad} and transcribes each.
 *
 * @example
 * const recognizer = createPhraseRecognizer({ context, emitAs: 'segment', prepare: async () => engineTranscriber });
 * await recognizer.start();
 */
export function createPhraseRecognizer(options: PhraseRecognizerOptions): Recognizer {
  const { context } = options;
  const settings = context.settings;
  let source: AudioSource | undefined;
  let transcriber: PhraseTranscriber | undefined;
  let vad: EnergyVad | undefined;
  let stopped = false;
  let failed = false;
  let paused = false;
  let loop: Promise<void> | undefined;
  let waiting = 0;
  let tail: Promise<void> = Promise.resolve();
  let drained: (() => void) | undefined;
  const emitError = createErrorReporter(context);

  const report = (code: string, message: string, fatal: boolean) => {
    if (stopped && !fatal) return;
    if (fatal) failed = true;
    emitError(code, message, fatal);
  };

  const transcribe = (phrase: VadPhrase) => {
    waiting += 1;
    tail = tail.then(async () => {
      try {
        if (failed || !transcriber) return;
        const text = (await transcriber.transcribe(phrase)).trim();
        if (text === '' || failed) return;
        // Times on the class clock; a line starts where its speech does, not at the pre-roll.
        const startMs = Math.round(phrase.speechStartMs);
        if (options.emitAs === 'segment') {
          context.emit({ type: 'segment', text, startMs, endMs: Math.round(phrase.endMs) });
        } else {
          context.emit({ type: 'text', text, startMs, endMs: Math.round(phrase.endMs) });
        }
      } catch (error) {
        const known = isPhraseTranscriptionError(error);
        const fatal = known && error.fatal;
        const code = known ? error.code : 'PHRASE_TRANSCRIPTION_FAILED';
        report(code, `A phrase could not be transcribed: ${(error as Error).message}`, fatal);
        if (fatal) void closeSource();
      } finally {
        waiting -= 1;
        const resolve = drained;
        drained = undefined;
        resolve?.();
      }
    });
  };

  const closeSource = async () => {
    const current = source;
    await current?.close();
  };

  const run = async (current: AudioSource, detector: EnergyVad) => {
    let expectedMs = 0;
    try {
      for await (const chunk of current.chunks()) {
        if (stopped || failed) break;
        // A jump in the class clock is a pause: start listening afresh, keep true times.
        if (chunk.atMs > expectedMs + 1) detector.reset(chunk.atMs - expectedMs);
        expectedMs = chunk.atMs + (chunk.samples.length / RECOGNIZER_SAMPLE_RATE) * 1000;
        if (paused) continue;
        for (const phrase of detector.push(chunk.samples)) transcribe(phrase);
        while (waiting > MAX_WAITING_PHRASES && !stopped && !failed) {
          await new Promise<void>((resolve) => {
            drained = resolve;
          });
        }
      }
      if (!failed) for (const phrase of detector.flush()) transcribe(phrase);
      await tail;
      if (!stopped && !failed) context.emit({ type: 'end', reason: 'the audio file is over' });
    } catch (error) {
      if (stopped) return;
      report(
        isServerError(error) ? error.code : 'AUDIO_INPUT_FAILED',
        `Listening stopped: ${(error as Error).message}`,
        true,
      );
    }
  };

  return {
    input: () => inputOf(source),
    recordingPosition: (atMs) => recordingPositionOf(source, atMs),
    progress: () => progressOf(source),
    async start() {
      if (loop || stopped) return;
      const prepared = await options.prepare();
      if (stopped) {
        prepared.close();
        return;
      }
      transcriber = prepared;
      const current = recognizerAudioSource(settings, context, options.source, (message) =>
        report('AUDIO_DROPPED', message, false),
      );
      try {
        await current.open();
      } catch (error) {
        prepared.close();
        transcriber = undefined;
        throw error;
      }
      source = current;
      const detector = new EnergyVad(vadOptionsFrom(settings));
      if (settings.vadCalibrationSeconds > 0) detector.calibrate(settings.vadCalibrationSeconds);
      vad = detector;
      context.logger.info(
        { input: current.info, vad: vadOptionsFrom(settings) },
        'listening for phrases',
      );
      loop = run(current, detector);
    },
    async pause() {
      paused = true;
      source?.pause();
      vad?.reset();
    },
    async resume() {
      paused = false;
      source?.resume();
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      const drainTimeout = options.drainTimeoutMs ?? 10_000;
      await closeSource();
      const finished = loop ?? Promise.resolve();
      let timer: NodeJS.Timeout | undefined;
      // The phrase being spoken and those in the queue are still transcribed, within reason.
      await Promise.race([
        finished,
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, drainTimeout);
        }),
      ]);
      clearTimeout(timer);
      failed = true;
      transcriber?.close();
      transcriber = undefined;
    },
  };
}
