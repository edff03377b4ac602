/**
 * LOCAL_ASR_ENGINE=sherpa: sherpa-onnx (the `sherpa-onnx-node` addon, loaded through native.ts)
 * running SenseVoice with the bundled Silero VAD, or a streaming zh-en transducer. The engine
 * runs in a process of its own (sherpa-child.ts). As an {@link OfflineEngineDefinition} it
 * recognises whole recordings (the quality harness); a class uses the live path in
 * sherpa-recognizer.ts, which streams the audio to the same process.
 */
import { assetPath } from '../../assets.ts';
import { sherpaOnnxAddonPath } from '../../audio/native.ts';
import { isServerError, ServerError } from '../../errors.ts';
import { type Localized, localized } from '../../language.ts';
import {
  type ModelCatalogueEntry,
  type ModelLanguage,
  OFFICIAL_MODEL_CATALOGUE,
  roleOf,
} from '../../models/model-catalogue.ts';
import { readSherpaModel, type SherpaModel, SherpaModelError } from '../../models/sherpa-model.ts';
import type { ResolvedSettings } from '../../settings/settings-store.ts';
import type { RecognizerAvailability } from '../recognizer.ts';
import {
  createTaskQueue,
  type OfflineEngine,
  type OfflineEngineDefinition,
} from './offline-engine.ts';
import type { SherpaDecoderConfig } from './sherpa-decoder.ts';
import {
  lastOutputLines,
  type SherpaProcess,
  SherpaProcessError,
  startSherpaProcess,
} from './sherpa-process.ts';

/** The catalogue model a message about a missing sherpa model recommends. */
const DEFAULT_SHERPA_MODEL_ID = 'sense-voice-small';

const megabytes = (bytes: number) => `${Math.round(bytes / (1024 * 1024))} MB`;

/** How to get a sherpa model: the catalogue's sherpa entries of `language`, SHERPA_MODEL_PATH. */
function sherpaModelHelp(
  language: ModelLanguage,
  catalogue: readonly ModelCatalogueEntry[] = OFFICIAL_MODEL_CATALOGUE,
): Localized {
  const offers = catalogue.filter(
    (entry) =>
      entry.engine === 'sherpa' && entry.language === language && roleOf(entry) === 'recognizer',
  );
  const named =
    offers.length > 0
      ? offers
      : [{ id: DEFAULT_SHERPA_MODEL_ID, sizeBytes: undefined as number | undefined }];
  const pull = named
    .map(
      (entry) =>
        `\`class-assistant-backend models pull ${entry.id}\`${entry.sizeBytes ? ` (${megabytes(entry.sizeBytes)})` : ''}`,
    )
    .join(' / ');
  return localized(
    `在课堂面板下载 sherpa-onnx 模型，或运行 ${pull}；也可以把 SHERPA_MODEL_PATH 设为已解压的 sherpa-onnx 模型文件夹（SenseVoice：model*.onnx 和 tokens.txt；流式模型：encoder/decoder/joiner*.onnx 和 tokens.txt）。`,
    `Download a sherpa-onnx model in the class panel, or run ${pull}; or set SHERPA_MODEL_PATH to the folder of an unpacked sherpa-onnx model (SenseVoice: model*.onnx and tokens.txt; streaming: encoder/decoder/joiner*.onnx and tokens.txt).`,
  );
}

/** The message of LOCAL_ASR_ENGINE=sherpa without a model. */
export function noSherpaModelMessage(
  language: ModelLanguage,
  catalogue?: readonly ModelCatalogueEntry[],
): Localized {
  const help = sherpaModelHelp(language, catalogue);
  return localized(
    `LOCAL_ASR_ENGINE=sherpa 需要一个 sherpa-onnx 模型，但没有安装（LOCAL_ASR_LANGUAGE=${language}）。${help.zh}`,
    `LOCAL_ASR_ENGINE=sherpa needs a sherpa-onnx model and none is installed (LOCAL_ASR_LANGUAGE=${language}). ${help.en}`,
  );
}

/** The settings key naming a model folder, when the folder came from one. */
function fieldOf(settings: ResolvedSettings, folder: string): string {
  return folder === settings.sherpaModelPath ? 'SHERPA_MODEL_PATH' : 'LOCAL_ASR_ENGINE';
}

/** Why a folder could not be read as a model, in both languages where it has them. */
function reasonOf(error: unknown): Localized {
  if (error instanceof SherpaModelError) return error.localized;
  const message = (error as Error)?.message ?? String(error);
  return localized(message, message);
}

/** Reads a model folder, as a ServerError naming the setting. */
function modelOf(settings: ResolvedSettings, folder: string): SherpaModel {
  try {
    return readSherpaModel(folder);
  } catch (error) {
    const message = reasonOf(error);
    const field = fieldOf(settings, folder);
    throw new ServerError(
      'ASR_MODEL_MISSING',
      localized(`${field}：${message.zh}。`, `${field}: ${message.en}.`),
      { field },
    );
  }
}

/** What the engine's process is started with. */
function sherpaDecoderConfig(
  settings: ResolvedSettings,
  model: SherpaModel,
  hotwordsFile?: string,
  punctuationModel?: string,
): SherpaDecoderConfig {
  return {
    model,
    numThreads: settings.localAsrThreads,
    vadModel: assetPath('silero-vad/silero_vad.onnx'),
    ...(hotwordsFile !== undefined ? { hotwordsFile, hotwordsScore: 2 } : {}),
    // SenseVoice punctuates itself: only a streaming transducer takes the punctuation graph.
    ...(punctuationModel !== undefined && model.kind === 'transducer' ? { punctuationModel } : {}),
  };
}

/** What {@link loadSherpaProcess} loaded. */
export interface LoadedSherpaProcess {
  model: SherpaModel;
  process: SherpaProcess;
  /**
   * Why the punctuation graph asked for is not used (the class then runs without it): the
   * reason sherpa-onnx gave, or the last lines it printed before the process ended on it.
   */
  punctuationProblem?: string;
}

/**
 * Starts the engine's process on a model folder.
 *
 * @throws ServerError ASR_MODEL_MISSING naming the file sherpa-onnx refused.
 */
export async function loadSherpaProcess(
  settings: ResolvedSettings,
  folder: string,
  options: { hotwordsFile?: string; punctuationModel?: string } = {},
): Promise<LoadedSherpaProcess> {
  const model = modelOf(settings, folder);
  const config = sherpaDecoderConfig(
    settings,
    model,
    options.hotwordsFile,
    options.punctuationModel,
  );
  try {
    let process: SherpaProcess;
    let crash: string | undefined;
    try {
      process = await startSherpaProcess(config);
    } catch (error) {
      if (!(error instanceof SherpaProcessError && error.duringPunctuation)) throw error;
      // The recognizer loaded and the punctuation graph ended the process: go on without it.
      crash = lastOutputLines(error.output) || error.message;
      const { punctuationModel: _left, ...withoutPunctuation } = config;
      process = await startSherpaProcess(withoutPunctuation);
    }
    const problem = crash ?? process.punctuationProblem;
    return { model, process, ...(problem !== undefined ? { punctuationProblem: problem } : {}) };
  } catch (error) {
    const reason = (error as Error).message;
    const field = fieldOf(settings, folder);
    throw new ServerError(
      'ASR_MODEL_MISSING',
      localized(
        `sherpa-onnx 无法加载 ${folder} 中的模型（下载不完整，或不是这个引擎的模型）：${reason}。请删除后重新下载（设置面板，或 \`class-assistant-backend models remove <名称>\`）。`,
        `sherpa-onnx could not load the model in ${folder} (an incomplete download, or a model of another kind): ${reason}. Remove it (settings panel, or \`class-assistant-backend models remove <name>\`) and download it again.`,
      ),
      { field },
      { cause: error },
    );
  }
}

/** A human line about a loaded model, for logs and health. */
export function describeSherpaModel(model: SherpaModel): string {
  return model.kind === 'transducer'
    ? `sherpa-onnx streaming transducer ${model.folder}`
    : `sherpa-onnx SenseVoice ${model.folder} with the Silero VAD`;
}

/** LOCAL_ASR_ENGINE=sherpa. */
export const sherpaEngineDefinition: OfflineEngineDefinition = {
  name: 'sherpa',
  async availability(settings, model): Promise<RecognizerAvailability> {
    const folder = model ?? settings.sherpaModelPath;
    if (folder === '') {
      return {
        available: false,
        code: 'ASR_MODEL_MISSING',
        message: noSherpaModelMessage(settings.localAsrLanguage),
        settings: ['SHERPA_MODEL_PATH', 'LOCAL_ASR_ENGINE'],
      };
    }
    let found: SherpaModel;
    try {
      found = readSherpaModel(folder);
    } catch (error) {
      const field = fieldOf(settings, folder);
      const message = reasonOf(error);
      const help = sherpaModelHelp(settings.localAsrLanguage);
      return {
        available: false,
        code: 'ASR_MODEL_MISSING',
        message: localized(
          `${field}：${message.zh}。${help.zh}`,
          `${field}: ${message.en}. ${help.en}`,
        ),
        settings: [field],
      };
    }
    try {
      sherpaOnnxAddonPath();
    } catch (error) {
      return {
        available: false,
        message:
          `${(error as Error).message} ${isServerError(error) ? (error.details.hint ?? '') : ''}`.trim(),
        settings: ['LOCAL_ASR_ENGINE'],
      };
    }
    return { available: true, detail: describeSherpaModel(found) };
  },
  async load(settings, model): Promise<OfflineEngine> {
    const folder = model ?? settings.sherpaModelPath;
    if (folder === '') {
      throw new ServerError('ASR_MODEL_MISSING', noSherpaModelMessage(settings.localAsrLanguage), {
        field: 'SHERPA_MODEL_PATH',
      });
    }
    const loaded = await loadSherpaProcess(settings, folder);
    const queue = createTaskQueue();
    let closed = false;
    let crashed: SherpaProcessError | undefined;
    loaded.process.onExit((error) => {
      crashed = error;
    });
    return {
      name: 'sherpa',
      detail: describeSherpaModel(loaded.model),
      transcribe: (samples) =>
        closed
          ? Promise.reject(new Error('the sherpa engine is closed'))
          : queue(async () => {
              if (crashed) throw crashed;
              return samples.length === 0 ? '' : loaded.process.transcribe(samples);
            }),
      close() {
        if (closed) return;
        closed = true;
        void queue(() => loaded.process.close());
      },
    };
  },
};
