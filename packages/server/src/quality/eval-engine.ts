/**
 * Which engine, model folder and language `eval` measures: what the command line says, else what
 * the student's own settings and installed models would give a class. Only reads the student's
 * settings file and data folder.
 */
import { resolve } from 'node:path';
import { localized } from '../language.ts';
import type { ModelLanguage } from '../models/model-catalogue.ts';
import { listInstalledModels, modelLayout, modelsFolderOf } from '../models/model-store.ts';
import {
  OFFLINE_ENGINES,
  type OfflineEngineEntry,
  offlineEngine,
} from '../recognizers/engines/offline-engines.ts';
import { chooseLocalModel } from '../recognizers/local-model.ts';
import type { ResolvedSettings } from '../settings/settings-store.ts';
import { EvalInputError, EvalRunError } from './eval-errors.ts';

/** What `eval` runs. */
export interface EvalEngineChoice {
  /** The LOCAL_ASR_ENGINE name (vosk, pocketsphinx, …). */
  name: string;
  entry: OfflineEngineEntry;
  /** The model folder; undefined: the engine's own default (PocketSphinx: the system's). */
  model: string | undefined;
  language: ModelLanguage;
}

/** What the command line asked for. */
export interface EvalEngineRequest {
  /** `auto` (what a class would use) or an engine name. */
  engine: string;
  model?: string | undefined;
  language?: ModelLanguage | undefined;
}

/** The names `--engine` takes in this build. */
export function evalEngineNames(): string[] {
  return ['auto', ...Object.keys(OFFLINE_ENGINES)];
}

function engineEntry(name: string): OfflineEngineEntry {
  const entry = offlineEngine(name);
  if (!entry) {
    const names = Object.keys(OFFLINE_ENGINES).join(', ');
    throw new EvalInputError(
      localized(
        `--engine ${name}：这个版本没有这个离线识别引擎（它有 ${names}；auto 选课堂会用的那个）。`,
        `--engine ${name}: this build has no such offline engine (it has ${names}; auto picks the one a class would use).`,
      ),
      { option: '--engine' },
    );
  }
  return entry;
}

/**
 * Resolves the request against the student's settings and data folder.
 *
 * @throws EvalInputError naming the option that cannot be used.
 */
export async function chooseEvalEngine(
  request: EvalEngineRequest,
  settings: ResolvedSettings,
  dataDir: string,
): Promise<EvalEngineChoice> {
  const model = request.model === undefined ? undefined : resolve(request.model);
  if (model !== undefined && modelLayout(model) === undefined) {
    throw new EvalInputError(
      localized(
        `--model ${model} 不是本应用能读的模型文件夹（Vosk 模型里有 am/final.mdl；PocketSphinx 有 en-us/ 和 en-us.lm.bin；sherpa-onnx 有 tokens.txt 和 .onnx 文件）。`,
        `--model ${model} is not a model folder this app can read (a Vosk model holds am/final.mdl; PocketSphinx en-us/ with en-us.lm.bin; sherpa-onnx tokens.txt with .onnx files).`,
      ),
      { option: '--model' },
    );
  }
  const language = request.language ?? settings.localAsrLanguage;
  if (request.engine === 'auto') {
    if (model !== undefined) {
      const name = modelLayout(model)!;
      return {
        name,
        entry: engineEntry(name),
        model,
        language: request.language ?? (name === 'pocketsphinx' ? 'en' : language),
      };
    }
    const choice = await chooseLocalModel({ ...settings, localAsrLanguage: language }, dataDir);
    if (!choice.found) throw new EvalRunError(choice.message);
    const name = choice.engine.name;
    return {
      name,
      entry: engineEntry(name),
      // A folder named by the engine's setting is passed on as such.
      model: choice.model ?? (settings.values[engineEntry(name).modelSetting] || undefined),
      language: request.language ?? (name === 'pocketsphinx' ? 'en' : language),
    };
  }
  const entry = engineEntry(request.engine);
  let chosen = model ?? (settings.values[entry.modelSetting] || undefined);
  if (chosen === undefined) {
    const installed = (await listInstalledModels(modelsFolderOf(dataDir))).filter(
      (installedModel) => installedModel.engine === request.engine,
    );
    chosen = (
      installed.find((installedModel) => installedModel.language === language) ?? installed[0]
    )?.path;
  }
  return {
    name: request.engine,
    entry,
    model: chosen,
    language: request.language ?? (request.engine === 'pocketsphinx' ? 'en' : language),
  };
}
