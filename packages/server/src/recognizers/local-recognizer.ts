/**
 * ASR_MODE=local (the default): fully offline. With Vosk or PocketSphinx, the energy VAD cuts the
 * audio into phrases and the engine transcribes each; with sherpa-onnx, the audio streams to the
 * engine's process, which finds the utterances itself (sherpa-recognizer.ts). Either way the lines
 * go through transcript-core's local-mode merging as `segment` events. LOCAL_ASR_ENGINE=auto
 * takes the best model installed (see local-model.ts).
 */
import { audioInputAvailability } from '../audio/audio-source.ts';
import { ServerError } from '../errors.ts';
import { textIn } from '../language.ts';
import type { ResolvedSettings } from '../settings/settings-store.ts';
import type { OfflineEngine } from './engines/offline-engine.ts';
import { chooseLocalModel, type LocalModelChoice, type LocalModelOptions } from './local-model.ts';
import { createPhraseRecognizer } from './phrase-recognizer.ts';
import type { Recognizer, RecognizerAvailability, RecognizerDefinition } from './recognizer.ts';

type Found = Extract<LocalModelChoice, { found: true }>;

// Loading a model takes from a fraction of a second (PocketSphinx) to many seconds (a large Vosk
// model): the last one loaded stays in memory, so the next class starts at once.
let cached: { key: string; engine: OfflineEngine; busy: boolean } | undefined;

async function acquireEngine(settings: ResolvedSettings, choice: Found): Promise<OfflineEngine> {
  const key = `${choice.engine.name}\u0000${choice.model ?? `${settings.voskModelPath}\u0000${settings.pocketsphinxModelPath}`}`;
  if (cached && cached.key === key && !cached.busy) {
    cached.busy = true;
    return cached.engine;
  }
  const engine = await choice.engine.load(settings, choice.model);
  if (cached && !cached.busy) cached.engine.close();
  cached = { key, engine, busy: true };
  return engine;
}

function releaseEngine(engine: OfflineEngine): void {
  if (cached?.engine === engine) cached.busy = false;
  else engine.close();
}

/** Frees the engine kept between classes (tests, shutdown). */
export function releaseCachedOfflineEngine(): void {
  if (cached && !cached.busy) cached.engine.close();
  cached = undefined;
}

/**
 * ASR_MODE=local, choosing its model as {@link chooseLocalModel} says. `options` name the
 * system's PocketSphinx folders and the catalogue (tests pass `systemPocketsphinxModels: []` to
 * act as a machine without PocketSphinx).
 */
export function createLocalRecognizerDefinition(
  options: LocalModelOptions = {},
): RecognizerDefinition {
  return {
    mode: 'local',
    description:
      'offline recognition: sherpa-onnx (SenseVoice with the Silero VAD, or a streaming transducer), or Vosk or PocketSphinx on the phrases the energy VAD detects',
    needs: { audio: ['microphone', 'app', 'file'], settings: ['LOCAL_ASR_LANGUAGE'], model: true },
    async availability(settings, where): Promise<RecognizerAvailability> {
      const dataDir = where?.dataDir ?? '.';
      const choice = await chooseLocalModel(settings, dataDir, options);
      if (!choice.found)
        return {
          available: false,
          message: choice.message,
          settings: choice.settings,
          ...(choice.code ? { code: choice.code } : {}),
        };
      const engine = await choice.engine.availability(settings, choice.model);
      if (!engine.available) return engine;
      const input = await audioInputAvailability(settings, dataDir);
      if (!input.available) return input;
      return { available: true, detail: `${engine.detail}; listening to ${input.detail}` };
    },
    create: (context) => {
      let inner: Recognizer | undefined;
      const phrases = () =>
        createPhraseRecognizer({
          context,
          emitAs: 'segment',
          async prepare() {
            const choice = await chooseLocalModel(context.settings, context.dataDir, options);
            if (!choice.found) throw new Error(textIn(choice.message, 'en'));
            const engine = await acquireEngine(context.settings, choice);
            return {
              transcribe: (phrase) => engine.transcribe(phrase.samples),
              close: () => releaseEngine(engine),
            };
          },
        });
      let stopped = false;
      return {
        input: () => inner?.input?.(),
        recordingPosition: (atMs) => inner?.recordingPosition?.(atMs),
        progress: () => inner?.progress?.(),
        async start() {
          if (inner || stopped) return;
          const choice = await chooseLocalModel(context.settings, context.dataDir, options);
          if (!choice.found) {
            throw new ServerError(choice.code ?? 'RECOGNIZER_UNAVAILABLE', choice.message, {
              field: choice.settings[0] ?? 'LOCAL_ASR_ENGINE',
            });
          }
          if (choice.engine.name === 'sherpa') {
            // Loaded by the first sherpa class only (hot words bring the recognizer clients).
            const { createSherpaRecognizer } = await import('./sherpa-recognizer.ts');
            inner = createSherpaRecognizer({
              context,
              folder: choice.model ?? context.settings.sherpaModelPath,
            });
          } else {
            inner = phrases();
          }
          if (stopped) return;
          await inner.start();
        },
        pause: async () => inner?.pause(),
        resume: async () => inner?.resume(),
        async stop() {
          stopped = true;
          await inner?.stop();
        },
      };
    },
  };
}

/** ASR_MODE=local with the system's PocketSphinx and the official catalogue. */
export const localRecognizerDefinition: RecognizerDefinition = createLocalRecognizerDefinition();
