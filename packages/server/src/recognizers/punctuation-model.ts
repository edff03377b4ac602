/**
 * Which punctuation graph a streaming sherpa-onnx class uses: SHERPA_PUNCTUATION_MODEL_PATH (a
 * folder or an `.onnx` file), else a punctuation model installed under `<data>/models`, else
 * none. Punctuation is an extra: when the setting names nothing usable, the answer says why and
 * the class runs without it.
 */
import { listInstalledModels, modelsFolderOf } from '../models/model-store.ts';
import { readPunctuationModel } from '../models/sherpa-model.ts';
import type { ResolvedSettings } from '../settings/settings-store.ts';

/** The choice: a graph and where it came from, or none (with why, when the setting is unusable). */
export type PunctuationChoice =
  | { found: true; model: string; source: 'setting' | 'installed' }
  | { found: false; problem?: string };

/**
 * Picks the punctuation graph of a streaming class.
 *
 * @example
 * await choosePunctuationModel(settings, dataDir);
 * // { found: true, model: '<data>/models/sherpa-onnx-punct-…/model.onnx', source: 'installed' }
 */
export async function choosePunctuationModel(
  settings: Pick<ResolvedSettings, 'sherpaPunctuationModelPath'>,
  dataDir: string,
): Promise<PunctuationChoice> {
  const setting = settings.sherpaPunctuationModelPath.trim();
  if (setting !== '') {
    try {
      return { found: true, model: readPunctuationModel(setting), source: 'setting' };
    } catch (error) {
      return {
        found: false,
        problem: `SHERPA_PUNCTUATION_MODEL_PATH: ${(error as Error).message}`,
      };
    }
  }
  const installed = await listInstalledModels(modelsFolderOf(dataDir));
  for (const model of installed) {
    if (model.role !== 'punctuation') continue;
    try {
      return { found: true, model: readPunctuationModel(model.path), source: 'installed' };
    } catch {
      // Removed meanwhile: the next one, if any.
    }
  }
  return { found: false };
}
