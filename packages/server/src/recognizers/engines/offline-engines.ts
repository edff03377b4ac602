/**
 * The offline engines of this build by name (LOCAL_ASR_ENGINE), with the setting that names each
 * one's model folder: for tools that run an engine on its own (`class-assistant-backend eval`,
 * the engines benchmark) and then the same engine in a class.
 */
import type { OfflineEngineDefinition } from './offline-engine.ts';
import { pocketsphinxEngineDefinition } from './pocketsphinx-engine.ts';
import { sherpaEngineDefinition } from './sherpa-engine.ts';
import { voskEngineDefinition } from './vosk-engine.ts';

/** One engine and the settings key of its model folder. */
export interface OfflineEngineEntry {
  definition: OfflineEngineDefinition;
  /** The key naming its model folder (VOSK_MODEL_PATH, POCKETSPHINX_MODEL_PATH, …). */
  modelSetting: string;
}

/** Every offline engine of this build, by its LOCAL_ASR_ENGINE name. */
export const OFFLINE_ENGINES: Readonly<Record<string, OfflineEngineEntry>> = {
  vosk: { definition: voskEngineDefinition, modelSetting: 'VOSK_MODEL_PATH' },
  pocketsphinx: {
    definition: pocketsphinxEngineDefinition,
    modelSetting: 'POCKETSPHINX_MODEL_PATH',
  },
  sherpa: { definition: sherpaEngineDefinition, modelSetting: 'SHERPA_MODEL_PATH' },
};

/** The engine named `name`, or undefined when this build has none of that name. */
export function offlineEngine(name: string): OfflineEngineEntry | undefined {
  return Object.hasOwn(OFFLINE_ENGINES, name) ? OFFLINE_ENGINES[name] : undefined;
}
