/**
 * ASR_MODE=local (the default): fully offline. The energy VAD cuts the audio into phrases; an
 * offline engine (LOCAL_ASR_ENGINE: Vosk by default, or PocketSphinx) transcribes each; the lines
 * go through transcript-core's local-mode merging as `segment` events.
 */
import { audioInputAvailability } from '../audio/audio-source.ts';
import type { ResolvedSettings } from '../settings/settings-store.ts';
import type { OfflineEngine, OfflineEngineDefinition } from './engines/offline-engine.ts';
import { pocketsphinxEngineDefinition } from './engines/pocketsphinx-engine.ts';
import { voskEngineDefinition } from './engines/vosk-engine.ts';
import { createPhraseRecognizer } from './phrase-recognizer.ts';
import type { RecognizerAvailability, RecognizerDefinition } from './recognizer.ts';

/** The engine LOCAL_ASR_ENGINE selects. */
export function offlineEngineFor(settings: ResolvedSettings): OfflineEngineDefinition {
  return settings.localAsrEngine === 'pocketsphinx'
    ? pocketsphinxEngineDefinition
    : voskEngineDefinition;
}

// Loading a model takes from a fraction of a second (PocketSphinx) to many seconds (a large Vosk
// model): the last one loaded stays in memory, so the next class starts at once.
let cached: { key: string; engine: OfflineEngine; busy: boolean } | undefined;

async function acquireEngine(settings: ResolvedSettings): Promise<OfflineEngine> {
  const definition = offlineEngineFor(settings);
  const key = `${definition.name}\u0000${settings.voskModelPath}\u0000${settings.pocketsphinxModelPath}`;
  if (cached && cached.key === key && !cached.busy) {
    cached.busy = true;
    return cached.engine;
  }
  const engine = await definition.load(settings);
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

/** ASR_MODE=local. */
export const localRecognizerDefinition: RecognizerDefinition = {
  mode: 'local',
  description: 'offline recognition (Vosk or PocketSphinx) of the phrases the energy VAD detects',
  async availability(settings, where): Promise<RecognizerAvailability> {
    const engine = await offlineEngineFor(settings).availability(settings);
    if (!engine.available) return engine;
    const input = await audioInputAvailability(settings, where?.dataDir ?? '.');
    if (!input.available) return input;
    return { available: true, detail: `${engine.detail}; listening to ${input.detail}` };
  },
  create: (context) =>
    createPhraseRecognizer({
      context,
      emitAs: 'segment',
      async prepare() {
        const engine = await acquireEngine(context.settings);
        return {
          transcribe: (phrase) => engine.transcribe(phrase.samples),
          close: () => releaseEngine(engine),
        };
      },
    }),
};
