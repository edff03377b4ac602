/**
 * Vosk (Kaldi) through koffi, on libvosk from our per-platform packages
 * (`@class-assistant/libvosk-<platform>`, see src/audio/native.ts; the `vosk` npm package's own
 * binding needs ffi-napi, which no longer builds on current Node). The
 * model is a folder unpacked from https://alphacephei.com/vosk/models — Chinese
 * (vosk-model-small-cn-0.22, vosk-model-cn-0.22) and English (vosk-model-small-en-us-0.15,
 * vosk-model-en-us-0.22) alike; the model decides the language.
 */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { loadLibrary, voskLibraryPath } from '../../audio/native.ts';
import { isServerError, ServerError } from '../../errors.ts';
import type { ResolvedSettings } from '../../settings/settings-store.ts';
import type { RecognizerAvailability } from '../recognizer.ts';
import {
  callAsync,
  createQueuedEngine,
  normalizeRecognizedText,
  type OfflineEngineDefinition,
} from './offline-engine.ts';
import { pocketsphinxInstalled } from './pocketsphinx-engine.ts';

/** Where to get a model, for every message about a missing one. */
export const VOSK_MODEL_HELP =
  'Download a model from https://alphacephei.com/vosk/models — vosk-model-small-cn-0.22 for Chinese or vosk-model-small-en-us-0.15 for English (about 40-50 MB each) — unpack it and set VOSK_MODEL_PATH to the unpacked folder (the one holding am/ and conf/).';

/** Why a folder is not a Vosk model, or undefined when it looks like one. */
export function voskModelProblem(folder: string): string | undefined {
  if (!existsSync(folder)) return `${folder} does not exist`;
  if (!statSync(folder).isDirectory()) return `${folder} is a file, not a model folder`;
  // Current models keep the acoustic model in am/final.mdl; older ones at the top level.
  if (existsSync(join(folder, 'am', 'final.mdl')) || existsSync(join(folder, 'final.mdl'))) {
    return undefined;
  }
  if (existsSync(join(folder, 'conf', 'model.conf'))) return `${folder} has no am/final.mdl`;
  return `${folder} holds no Vosk model (no am/final.mdl); point VOSK_MODEL_PATH at the unpacked model folder itself, not its parent or the .zip`;
}

interface VoskApi {
  setLogLevel: (level: number) => void;
  modelNew: { async: (...args: unknown[]) => void };
  modelFree: (model: unknown) => void;
  recognizerNew: (model: unknown, sampleRate: number) => unknown;
  recognizerFree: (recognizer: unknown) => void;
  acceptWaveform: { async: (...args: unknown[]) => void };
  finalResult: { async: (...args: unknown[]) => void };
}

let api: VoskApi | undefined;

function bind(): VoskApi {
  if (api) return api;
  const library = loadLibrary(voskLibraryPath());
  api = {
    setLogLevel: library.func('void vosk_set_log_level(int log_level)'),
    modelNew: library.func('void* vosk_model_new(const char* model_path)'),
    modelFree: library.func('void vosk_model_free(void* model)'),
    recognizerNew: library.func('void* vosk_recognizer_new(void* model, float sample_rate)'),
    recognizerFree: library.func('void vosk_recognizer_free(void* recognizer)'),
    acceptWaveform: library.func(
      'int vosk_recognizer_accept_waveform_s(void* recognizer, const int16_t* data, int length)',
    ),
    finalResult: library.func('const char* vosk_recognizer_final_result(void* recognizer)'),
  };
  // Kaldi logs every model load line by line on stderr otherwise.
  api.setLogLevel(-1);
  return api;
}

/** The text of a Vosk result JSON (`{"text": "..."}`), '' when absent or unreadable. */
export function voskResultText(json: string | null): string {
  if (!json) return '';
  try {
    const parsed = JSON.parse(json) as { text?: unknown };
    return typeof parsed.text === 'string' ? normalizeRecognizedText(parsed.text) : '';
  } catch {
    return '';
  }
}

function noModelMessage(settings: ResolvedSettings): string {
  const alternative = pocketsphinxInstalled(settings)
    ? ' For English lectures without a download, LOCAL_ASR_ENGINE=pocketsphinx uses the PocketSphinx US English model installed on this machine.'
    : '';
  return `ASR_MODE=local recognises speech offline with a Vosk model, and VOSK_MODEL_PATH is not set. ${VOSK_MODEL_HELP}${alternative} ASR_MODE=mock runs a scripted demo class.`;
}

/** The settings key naming a model folder, when the folder came from one. */
function fieldOf(settings: ResolvedSettings, folder: string): { field?: string } {
  return folder === settings.voskModelPath ? { field: 'VOSK_MODEL_PATH' } : {};
}

/** What to do about a model folder libvosk refused. */
function refusedHelp(settings: ResolvedSettings, folder: string): string {
  return folder === settings.voskModelPath
    ? VOSK_MODEL_HELP
    : 'Remove it (settings panel, or `class-assistant-backend models remove <name>`) and download it again.';
}

/** LOCAL_ASR_ENGINE=vosk (the default). */
export const voskEngineDefinition: OfflineEngineDefinition = {
  name: 'vosk',
  async availability(settings, model): Promise<RecognizerAvailability> {
    const folder = model ?? settings.voskModelPath;
    if (folder === '') {
      return {
        available: false,
        message: noModelMessage(settings),
        settings: ['VOSK_MODEL_PATH', 'LOCAL_ASR_ENGINE'],
      };
    }
    const problem = voskModelProblem(folder);
    if (problem) {
      return {
        available: false,
        message:
          folder === settings.voskModelPath
            ? `VOSK_MODEL_PATH: ${problem}. ${VOSK_MODEL_HELP}`
            : `The installed model ${problem}. ${refusedHelp(settings, folder)}`,
        settings: folder === settings.voskModelPath ? ['VOSK_MODEL_PATH'] : ['LOCAL_ASR_LANGUAGE'],
      };
    }
    try {
      voskLibraryPath();
    } catch (error) {
      return {
        available: false,
        message:
          `${(error as Error).message} ${isServerError(error) ? (error.details.hint ?? '') : ''}`.trim(),
        settings: ['LOCAL_ASR_ENGINE'],
      };
    }
    return { available: true, detail: `Vosk with the model ${folder}` };
  },
  async load(settings, model) {
    const vosk = bind();
    const folder = model ?? settings.voskModelPath;
    const problem = voskModelProblem(folder);
    if (problem) {
      throw new ServerError(
        'ASR_MODEL_MISSING',
        `VOSK_MODEL_PATH: ${problem}. ${VOSK_MODEL_HELP}`,
        fieldOf(settings, folder),
      );
    }
    const loaded = await callAsync<unknown>(vosk.modelNew, folder);
    if (!loaded) {
      throw new ServerError(
        'ASR_MODEL_MISSING',
        `Vosk could not load the model in ${folder} (incomplete download or a model for another Vosk version). ${refusedHelp(settings, folder)}`,
        fieldOf(settings, folder),
      );
    }
    const recognizer = vosk.recognizerNew(loaded, 16000);
    if (!recognizer) {
      vosk.modelFree(loaded);
      throw new ServerError(
        'ASR_MODEL_MISSING',
        `Vosk could not use the model in ${folder}.`,
        fieldOf(settings, folder),
      );
    }
    return createQueuedEngine(
      'vosk',
      folder,
      async (samples) => {
        await callAsync<number>(vosk.acceptWaveform, recognizer, samples, samples.length);
        // The final result also resets the recognizer for the next phrase.
        return voskResultText(await callAsync<string | null>(vosk.finalResult, recognizer));
      },
      () => {
        vosk.recognizerFree(recognizer);
        vosk.modelFree(loaded);
      },
    );
  },
};
