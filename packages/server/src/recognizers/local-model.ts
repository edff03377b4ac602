/**
 * Which engine and model folder ASR_MODE=local uses. In order:
 *
 * 1. LOCAL_ASR_ENGINE=pocketsphinx: POCKETSPHINX_MODEL_PATH, else an installed PocketSphinx
 *    model, else the system's (Debian's pocketsphinx-en-us).
 * 2. LOCAL_ASR_ENGINE=sherpa: SHERPA_MODEL_PATH, else an installed sherpa-onnx model of the
 *    class language (SenseVoice first), else one whose catalogue entry also recognises that
 *    language (SenseVoice in an English class), else nothing (ASR_MODEL_MISSING naming the
 *    download).
 * 3. Otherwise (auto, vosk) a model folder setting wins: SHERPA_MODEL_PATH (auto only), then
 *    VOSK_MODEL_PATH;
 * 4. else a model installed under `<data>/models` for the class language (LOCAL_ASR_LANGUAGE):
 *    auto takes a sherpa-onnx one first (SenseVoice, then streaming), then Vosk; vosk takes a
 *    Vosk one first and never a sherpa-onnx one;
 * 5. else, with auto, an installed sherpa-onnx model that also recognises the class language;
 * 6. else, for English, the system's PocketSphinx model (the offline mode then works without
 *    any download);
 * 7. else nothing: the answer says which catalogue models to download.
 */
import { type Localized, localized, type MessageText } from '../language.ts';
import type { ModelCatalogueEntry, ModelLanguage } from '../models/model-catalogue.ts';
import { OFFICIAL_MODEL_CATALOGUE, roleOf } from '../models/model-catalogue.ts';
import {
  type InstalledModel,
  listInstalledModels,
  modelLayout,
  modelsFolderOf,
} from '../models/model-store.ts';
import { readSherpaModel } from '../models/sherpa-model.ts';
import type { ResolvedSettings } from '../settings/settings-store.ts';
import type { OfflineEngineDefinition } from './engines/offline-engine.ts';
import {
  DEFAULT_POCKETSPHINX_MODEL,
  pocketsphinxEngineDefinition,
} from './engines/pocketsphinx-engine.ts';
import { noSherpaModelMessage, sherpaEngineDefinition } from './engines/sherpa-engine.ts';
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
  | {
      found: false;
      message: MessageText;
      settings: string[];
      /** The error start_monitor answers with (default RECOGNIZER_UNAVAILABLE). */
      code?: 'ASR_MODEL_MISSING';
    };

const LANGUAGE_NAMES: Record<ModelLanguage, Localized> = {
  zh: { zh: '中文', en: 'Chinese' },
  en: { zh: '英文', en: 'English' },
};

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
  const language = settings.localAsrLanguage;
  const catalogue = options.catalogue ?? OFFICIAL_MODEL_CATALOGUE;
  const ofLanguage = installed.filter((model) => model.language === language);
  // SenseVoice before a streaming model: its lines are markedly more accurate.
  const runnable = (models: readonly InstalledModel[]) =>
    models
      // A punctuation model is no recognizer (it punctuates a streaming model's lines).
      .filter((model) => model.engine === 'sherpa' && model.role === 'recognizer')
      .map((model) => ({ model, rank: sherpaRank(model.path) }))
      .filter((entry) => entry.rank < 2)
      .sort((a, b) => a.rank - b.rank)
      .map((entry) => entry.model);
  const sherpaModels = runnable(ofLanguage);
  // Catalogue models made for another class language that recognise this one as well
  // (SenseVoice and the bilingual transducer hear English too).
  const alsoSpeaks = runnable(
    installed.filter(
      (model) =>
        model.language !== language &&
        catalogue
          .find((entry) => entry.id === model.id || entry.name === model.name)
          ?.languages.includes(language) === true,
    ),
  );
  const engine = settings.localAsrEngine;
  if (engine === 'sherpa' || (engine === 'auto' && settings.sherpaModelPath !== '')) {
    if (settings.sherpaModelPath !== '') {
      return { found: true, engine: sherpaEngineDefinition, model: undefined, source: 'setting' };
    }
    const own = sherpaModels[0] ?? alsoSpeaks[0];
    if (own)
      return { found: true, engine: sherpaEngineDefinition, model: own.path, source: 'installed' };
    return {
      found: false,
      code: 'ASR_MODEL_MISSING',
      message: noSherpaModelMessage(language, options.catalogue),
      // LOCAL_ASR_LANGUAGE first: the class panel then offers the download.
      settings: ['LOCAL_ASR_LANGUAGE', 'SHERPA_MODEL_PATH', 'LOCAL_ASR_ENGINE'],
    };
  }
  if (settings.voskModelPath !== '') {
    return { found: true, engine: voskEngineDefinition, model: undefined, source: 'setting' };
  }
  const bestSherpa = engine === 'auto' ? sherpaModels[0] : undefined;
  if (bestSherpa) {
    return {
      found: true,
      engine: sherpaEngineDefinition,
      model: bestSherpa.path,
      source: 'installed',
    };
  }
  const others = ofLanguage.filter((model) => model.engine !== 'sherpa');
  const chosen = others.find((model) => model.engine === 'vosk') ?? others[0];
  if (chosen) {
    return {
      found: true,
      engine: chosen.engine === 'vosk' ? voskEngineDefinition : pocketsphinxEngineDefinition,
      model: chosen.path,
      source: 'installed',
    };
  }
  // A model made for this language comes first; one that also speaks it beats none at all.
  const alsoSherpa = engine === 'auto' ? alsoSpeaks[0] : undefined;
  if (alsoSherpa) {
    return {
      found: true,
      engine: sherpaEngineDefinition,
      model: alsoSherpa.path,
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
  const offers = catalogue.filter(
    (entry) =>
      entry.language === language &&
      roleOf(entry) === 'recognizer' &&
      (engine === 'auto' || entry.engine === engine),
  );
  const pull = offers.map(
    (entry) =>
      `\`class-assistant-backend models pull ${entry.id}\` (${megabytes(entry.sizeBytes)})`,
  );
  const otherEnglish = language !== 'en' && systemModel !== undefined;
  const sherpaPath = engine === 'auto';
  return {
    found: false,
    message: localized(
      `没有安装${LANGUAGE_NAMES[language].zh}离线模型（LOCAL_ASR_LANGUAGE=${language}）。请在课堂面板下载一个${pull.length > 0 ? `，或运行 ${pull.join(' 或 ')}` : ''}；也可以把 VOSK_MODEL_PATH 设为已解压的 Vosk 模型文件夹${sherpaPath ? '（SHERPA_MODEL_PATH：sherpa-onnx 模型文件夹）' : ''}。${otherEnglish ? '英文课设 LOCAL_ASR_LANGUAGE=en 即可，无需下载（使用本机的 PocketSphinx 美式英语模型）。' : ''}ASR_MODE=mock 可运行模拟课堂。`,
      `No offline model for ${LANGUAGE_NAMES[language].en} (LOCAL_ASR_LANGUAGE=${language}) is installed. Download one in the class panel${pull.length > 0 ? `, or run ${pull.join(' or ')}` : ''}; or set VOSK_MODEL_PATH to the folder of an unpacked Vosk model${sherpaPath ? ' (SHERPA_MODEL_PATH: of a sherpa-onnx model)' : ''}.${otherEnglish ? ' For an English class, LOCAL_ASR_LANGUAGE=en works without a download (the PocketSphinx US English model of this machine).' : ''} ASR_MODE=mock runs a scripted demo class.`,
    ),
    settings: ['LOCAL_ASR_LANGUAGE', 'VOSK_MODEL_PATH'],
  };
}

/** 0: SenseVoice, 1: a streaming transducer, 2: a sherpa-onnx folder this app cannot run. */
function sherpaRank(folder: string): number {
  try {
    return readSherpaModel(folder).kind === 'sense-voice' ? 0 : 1;
  } catch {
    return 2;
  }
}
