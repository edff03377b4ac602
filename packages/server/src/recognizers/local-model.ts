/**
 * Which engine and model folder ASR_MODE=local uses. In order:
 *
 * 1. LOCAL_ASR_ENGINE=pocketsphinx: POCKETSPHINX_MODEL_PATH, else an installed PocketSphinx
 *    model, else the system's (Debian's pocketsphinx-en-us).
 * 2. Otherwise VOSK_MODEL_PATH when it is set — it always wins;
 * 3. else a model installed under `<data>/models` for the class language (LOCAL_ASR_LANGUAGE),
 *    a Vosk one first;
 * 4. else, for English, the system's PocketSphinx model (the offline mode then works without
 *    any download);
 * 5. else nothing: the answer says which catalogue models to download.
 */
import type { ModelCatalogueEntry, ModelLanguage } from '../models/model-catalogue.ts';
import { OFFICIAL_MODEL_CATALOGUE } from '../models/model-catalogue.ts';
import { listInstalledModels, modelLayout, modelsFolderOf } from '../models/model-store.ts';
import type { ResolvedSettings } from '../settings/settings-store.ts';
import type { OfflineEngineDefinition } from './engines/offline-engine.ts';
import {
  DEFAULT_POCKETSPHINX_MODEL,
  pocketsphinxEngineDefinition,
} from './engines/pocketsphinx-engine.ts';
import { voskEngineDefinition } from './engines/vosk-engine.ts';

/** Options of the local mode's model choice. */
export interface LocalModelOptions {
  /**
   * Folders where the system may hold PocketSphinx's US English model, tried in order (default:
   * Debian's {@link DEFAULT_POCKETSPHINX_MODEL}); `[]` ignores the system's model.
   */
  systemPocketsphinxModels?: readonly string[];
  /** The catalogue named in the message when nothing is installed (default: the official one). */
  catalogue?: readonly ModelCatalogueEntry[];
}

/** The local mode's choice: an engine and its model folder, or why there is none. */
export type LocalModelChoice =
  | {
      found: true;
      engine: OfflineEngineDefinition;
      /** The model folder; undefined: the engine's own setting names it. */
      model: string | undefined;
      source: 'setting' | 'installed' | 'system';
    }
  | { found: false; message: string; settings: string[] };

const LANGUAGE_NAMES: Record<ModelLanguage, string> = { zh: 'Chinese', en: 'English' };

const megabytes = (bytes: number) => `${Math.round(bytes / (1024 * 1024))} MB`;

/** Picks the engine and model folder of ASR_MODE=local (see the module comment for the order). */
export async function chooseLocalModel(
  settings: ResolvedSettings,
  dataDir: string,
  options: LocalModelOptions = {},
): Promise<LocalModelChoice> {
  const system = options.systemPocketsphinxModels ?? [DEFAULT_POCKETSPHINX_MODEL];
  const systemModel = system.find((folder) => modelLayout(folder) === 'pocketsphinx');
  const installed = await listInstalledModels(modelsFolderOf(dataDir));
  if (settings.localAsrEngine === 'pocketsphinx') {
    if (settings.pocketsphinxModelPath !== '') {
      return {
        found: true,
        engine: pocketsphinxEngineDefinition,
        model: undefined,
        source: 'setting',
      };
    }
    const own = installed.find((model) => model.engine === 'pocketsphinx');
    if (own)
      return {
        found: true,
        engine: pocketsphinxEngineDefinition,
        model: own.path,
        source: 'installed',
      };
    return {
      found: true,
      engine: pocketsphinxEngineDefinition,
      model: systemModel ?? system[0] ?? DEFAULT_POCKETSPHINX_MODEL,
      source: 'system',
    };
  }
  if (settings.voskModelPath !== '') {
    return { found: true, engine: voskEngineDefinition, model: undefined, source: 'setting' };
  }
  const language = settings.localAsrLanguage;
  const ofLanguage = installed.filter((model) => model.language === language);
  const chosen = ofLanguage.find((model) => model.engine === 'vosk') ?? ofLanguage[0];
  if (chosen) {
    return {
      found: true,
      engine: chosen.engine === 'vosk' ? voskEngineDefinition : pocketsphinxEngineDefinition,
      model: chosen.path,
      source: 'installed',
    };
  }
  if (language === 'en' && systemModel) {
    return {
      found: true,
      engine: pocketsphinxEngineDefinition,
      model: systemModel,
      source: 'system',
    };
  }
  const offers = (options.catalogue ?? OFFICIAL_MODEL_CATALOGUE).filter(
    (entry) => entry.language === language,
  );
  const pull = offers
    .map(
      (entry) =>
        `\`class-assistant-backend models pull ${entry.id}\` (${megabytes(entry.sizeBytes)})`,
    )
    .join(' or ');
  const english =
    language !== 'en' && systemModel
      ? ' For an English class, LOCAL_ASR_LANGUAGE=en works without a download (the PocketSphinx US English model of this machine).'
      : '';
  return {
    found: false,
    message: `No offline model for ${LANGUAGE_NAMES[language]} (LOCAL_ASR_LANGUAGE=${language}) is installed. Download one in the class panel${pull ? `, or run ${pull}` : ''}; or set VOSK_MODEL_PATH to the folder of an unpacked Vosk model.${english} ASR_MODE=mock runs a scripted demo class.`,
    settings: ['LOCAL_ASR_LANGUAGE', 'VOSK_MODEL_PATH'],
  };
}
