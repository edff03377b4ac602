/**
 * ASR_MODE=local with the sherpa engine: the audio source (microphone, app window or WAV file)
 * goes straight to the engine's process — no energy VAD: a streaming transducer finds the ends of
 * utterances itself, SenseVoice has the Silero VAD cut them — and what comes back becomes
 * `partial` events (a streaming model's text while the teacher speaks) and `segment` events (one
 * definite line per utterance, with its times, merged by transcript-core as local mode merges).
 *
 * The class's hot words (its material's terms, the student's keywords) go to a streaming
 * transducer as a hot-words file in a temporary folder of the class in the data folder, removed
 * when it ends (and at the next start after a backend that was killed: hotwords-folder.ts).
 *
 * A streaming transducer's definite lines are punctuated in the engine's process when a
 * punctuation model is at hand (punctuation-model.ts); one that cannot be loaded is logged once
 * and the class runs without it.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type AudioSource,
  inputOf,
  progressOf,
  recordingPositionOf,
} from '../audio/audio-source.ts';
import { RECOGNIZER_SAMPLE_RATE } from '../audio/pcm.ts';
import { isServerError } from '../errors.ts';
import { localized, type MessageText } from '../language.ts';
import { readSherpaModel } from '../models/sherpa-model.ts';
import { recognizerAudioSource } from './class-audio-source.ts';
import type { SherpaEvent } from './engines/sherpa-decoder.ts';
import { modelingUnitOf } from './engines/sherpa-decoder.ts';
import { describeSherpaModel, loadSherpaProcess } from './engines/sherpa-engine.ts';
import { readTokens, sherpaHotwords } from './engines/sherpa-hotwords.ts';
import type { SherpaProcess } from './engines/sherpa-process.ts';
import { contextHotwords } from './hotwords.ts';
import { createHotwordsFolder } from './hotwords-folder.ts';
import { choosePunctuationModel } from './punctuation-model.ts';
import { createErrorReporter, type Recognizer, type RecognizerContext } from './recognizer.ts';

/** Options of {@link createSherpaRecognizer}. */
export interface SherpaRecognizerOptions {
  context: RecognizerContext;
  /** The model folder (SHERPA_MODEL_PATH or an installed model). */
  folder: string;
  /** A source to use instead of AUDIO_INPUT's (tests, benchmarks). */
  source?: AudioSource;
  /** Longest wait at stop for the engine's last line. Default 10 s. */
  drainTimeoutMs?: number;
}

/** Most audio sent to the engine and not yet decoded before reading more waits (a fast file). */
const MAX_BACKLOG_SAMPLES = 10 * RECOGNIZER_SAMPLE_RATE;

/** Writes the class's hot words for a transducer; undefined when there are none it can use. */
async function writeHotwords(
  context: RecognizerContext,
  folder: string,
): Promise<{ file: string; folder: string; count: number } | undefined> {
  const model = readSherpaModel(folder);
  const words = await contextHotwords(context);
  if (model.kind !== 'transducer') {
    if (words.length > 0) {
      context.logger.info(
        { hotwords: 0, offered: words.length },
        'SenseVoice takes no hot words: this class is recognised without its material terms',
      );
    }
    return undefined;
  }
  const tokens = readTokens(await readFile(model.tokens, 'utf8'));
  const hot = sherpaHotwords(words, tokens, modelingUnitOf(model));
  context.logger.info(
    { hotwords: hot.phrases.length, offered: words.length },
    `${hot.phrases.length} hot words reached the sherpa engine`,
  );
  if (hot.phrases.length === 0) return undefined;
  const temporary = await createHotwordsFolder(context.dataDir);
  const file = join(temporary, 'hotwords.txt');
  await writeFile(file, hot.text, { encoding: 'utf8', mode: 0o600 });
  return { file, folder: temporary, count: hot.phrases.length };
}

/** The punctuation graph of a streaming class, if any (a problem with the setting is logged). */
async function punctuationFor(
  context: RecognizerContext,
  folder: string,
): Promise<string | undefined> {
  if (readSherpaModel(folder).kind !== 'transducer') return undefined;
  const choice = await choosePunctuationModel(context.settings, context.dataDir);
  if (choice.found) return choice.model;
  if (choice.problem !== undefined) {
    context.logger.warn(
      { reason: choice.problem },
      'no punctuation model: definite lines are written without punctuation',
    );
  }
  return undefined;
}

/**
 * The live sherpa path of the local mode.
 *
 * @example
 * const recognizer = createSherpaRecognizer({ context, folder: '/models/sherpa-onnx-sense-voice-…' });
 * await recognizer.start();
 */
export function createSherpaRecognizer(options: SherpaRecognizerOptions): Recognizer {
  const { context } = options;
  const settings = context.settings;
  let source: AudioSource | undefined;
  let engine: SherpaProcess | undefined;
  let hotwordsFolder: string | undefined;
  let loop: Promise<void> | undefined;
  let stopped = false;
  let failed = false;
  let paused = false;
  /** Events are handed on until stop() resolves. */
  let open = true;
  const emitError = createErrorReporter(context);

  const report = (code: string, message: MessageText, fatal: boolean) => {
    if (stopped && !fatal) return;
    if (fatal) failed = true;
    emitError(code, message, fatal);
  };

  const hand = (events: SherpaEvent[]) => {
    if (!open) return;
    for (const event of events) {
      if (event.type === 'partial') context.emit({ type: 'partial', text: event.text });
      else
        context.emit({
          type: 'segment',
          text: event.text,
          startMs: event.startMs,
          endMs: event.endMs,
        });
    }
  };

  const removeHotwords = async () => {
    const folder = hotwordsFolder;
    hotwordsFolder = undefined;
    if (folder) await rm(folder, { recursive: true, force: true });
  };

  const run = async (current: AudioSource, loaded: SherpaProcess) => {
    try {
      for await (const chunk of current.chunks()) {
        if (stopped || failed) break;
        if (paused) continue;
        loaded.audio(chunk.samples, chunk.atMs);
        await loaded.caughtUp(MAX_BACKLOG_SAMPLES);
      }
      if (stopped || failed) return;
      await loaded.finish();
      if (!stopped && !failed) context.emit({ type: 'end', reason: 'the audio file is over' });
    } catch (error) {
      if (stopped || failed) return;
      const reason = isServerError(error)
        ? (error.localized ?? localized(error.message, error.message))
        : localized((error as Error).message, (error as Error).message);
      report(
        isServerError(error) ? error.code : 'AUDIO_INPUT_FAILED',
        localized(`听写停止了：${reason.zh}`, `Listening stopped: ${reason.en}`),
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
      const hot = await writeHotwords(context, options.folder);
      hotwordsFolder = hot?.folder;
      let loaded: Awaited<ReturnType<typeof loadSherpaProcess>>;
      let punctuation: string | undefined;
      try {
        punctuation = await punctuationFor(context, options.folder);
        loaded = await loadSherpaProcess(settings, options.folder, {
          ...(hot ? { hotwordsFile: hot.file } : {}),
          ...(punctuation !== undefined ? { punctuationModel: punctuation } : {}),
        });
      } catch (error) {
        await removeHotwords();
        throw error;
      }
      if (loaded.punctuationProblem !== undefined) {
        context.logger.warn(
          { punctuation_model: punctuation, reason: loaded.punctuationProblem },
          'the punctuation model could not be loaded: definite lines are written without punctuation',
        );
      }
      if (stopped) {
        await loaded.process.close();
        await removeHotwords();
        return;
      }
      engine = loaded.process;
      engine.onEvents(hand);
      engine.onExit((error) => {
        if (stopped) return;
        report(
          'ASR_ENGINE_FAILED',
          localized(
            `sherpa-onnx 引擎停止了：${error.message}。已有的字幕都保留着；重新开始课堂即可继续。`,
            `The sherpa-onnx engine stopped: ${error.message}. The lines so far are kept; start the class again to go on.`,
          ),
          true,
        );
        void source?.close();
      });
      const current = recognizerAudioSource(settings, context, options.source, (message) =>
        report('AUDIO_DROPPED', message, false),
      );
      try {
        await current.open();
      } catch (error) {
        await engine.close();
        engine = undefined;
        await removeHotwords();
        throw error;
      }
      source = current;
      context.logger.info(
        {
          input: current.info,
          engine: describeSherpaModel(loaded.model),
          threads: settings.localAsrThreads,
          hotwords: hot?.count ?? 0,
          punctuation: loaded.process.punctuated ? punctuation : null,
        },
        'listening with sherpa-onnx',
      );
      loop = run(current, engine);
    },
    async pause() {
      paused = true;
      source?.pause();
      // The utterance being spoken ends here: its line is written now, not after the pause.
      await engine?.finish().catch(() => undefined);
    },
    async resume() {
      paused = false;
      source?.resume();
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      const drainTimeout = options.drainTimeoutMs ?? 10_000;
      await source?.close();
      let timer: NodeJS.Timeout | undefined;
      const limit = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, drainTimeout);
      });
      // The utterance being spoken when the student stops is still written, within reason.
      await Promise.race([
        (async () => {
          await loop;
          if (!failed) await engine?.finish();
        })().catch(() => undefined),
        limit,
      ]);
      clearTimeout(timer);
      open = false;
      await engine?.close();
      engine = undefined;
      await removeHotwords();
    },
  };
}
