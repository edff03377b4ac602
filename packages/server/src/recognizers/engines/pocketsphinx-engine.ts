/**
 * PocketSphinx 5prealpha (Debian's libpocketsphinx3 with pocketsphinx-en-us) through koffi: the
 * offline engine that works on a stock Debian machine without downloading a model. US English
 * only. Each phrase is decoded as one full utterance, as SpeechRecognition's recognize_sphinx
 * does (`process_raw(..., full_utt=True)`): whole-utterance cepstral normalisation is markedly
 * more accurate than streaming it in pieces.
 */
import { existsSync, statSync } from 'node:fs';
import { devNull } from 'node:os';
import { join } from 'node:path';
import { loadPocketsphinxLibraries } from '../../audio/native.ts';
import { isServerError, ServerError } from '../../errors.ts';
import type { ResolvedSettings } from '../../settings/settings-store.ts';
import type { RecognizerAvailability } from '../recognizer.ts';
import {
  callAsync,
  createQueuedEngine,
  normalizeRecognizedText,
  type OfflineEngineDefinition,
} from './offline-engine.ts';

/** Where Debian's pocketsphinx-en-us puts the US English model. */
export const DEFAULT_POCKETSPHINX_MODEL = '/usr/share/pocketsphinx/model/en-us';

/** The three model files PocketSphinx needs, from POCKETSPHINX_MODEL_PATH. */
function pocketsphinxModelFiles(
  settings: ResolvedSettings,
  model?: string,
): {
  folder: string;
  hmm: string;
  lm: string;
  dict: string;
} {
  const folder = model ?? (settings.pocketsphinxModelPath || DEFAULT_POCKETSPHINX_MODEL);
  return {
    folder,
    hmm: join(folder, 'en-us'),
    lm: join(folder, 'en-us.lm.bin'),
    dict: join(folder, 'cmudict-en-us.dict'),
  };
}

function missingModelFiles(settings: ResolvedSettings, model?: string): string[] {
  const files = pocketsphinxModelFiles(settings, model);
  const missing: string[] = [];
  const isDirectory = (path: string) => existsSync(path) && statSync(path).isDirectory();
  if (!isDirectory(files.hmm)) missing.push(files.hmm);
  if (!existsSync(files.lm)) missing.push(files.lm);
  if (!existsSync(files.dict)) missing.push(files.dict);
  return missing;
}

/** Whether PocketSphinx and its model are on this machine (for messages about the default engine). */
export function pocketsphinxInstalled(settings: ResolvedSettings): boolean {
  if (missingModelFiles(settings).length > 0) return false;
  try {
    loadPocketsphinxLibraries();
    return true;
  } catch {
    return false;
  }
}

interface PocketsphinxApi {
  psArgs: () => unknown;
  cmdLnInit: (...args: unknown[]) => unknown;
  cmdLnFree: (config: unknown) => number;
  psInit: { (config: unknown): unknown; async: (...args: unknown[]) => void };
  psFree: (decoder: unknown) => number;
  startUtt: (decoder: unknown) => number;
  processRaw: { async: (...args: unknown[]) => void };
  endUtt: { async: (...args: unknown[]) => void };
  getHyp: (decoder: unknown, score: number[]) => string | null;
}

let api: PocketsphinxApi | undefined;

function bind(): PocketsphinxApi {
  if (api) return api;
  const { sphinxbase, pocketsphinx } = loadPocketsphinxLibraries();
  api = {
    psArgs: pocketsphinx.func('void* ps_args()'),
    // Variadic: pairs of 'str' arguments, then a terminating NULL.
    cmdLnInit: sphinxbase.func('void* cmd_ln_init(void* inout, void* defn, int strict, ...)'),
    cmdLnFree: sphinxbase.func('int cmd_ln_free_r(void* cmdln)'),
    psInit: pocketsphinx.func('void* ps_init(void* config)'),
    psFree: pocketsphinx.func('int ps_free(void* ps)'),
    startUtt: pocketsphinx.func('int ps_start_utt(void* ps)'),
    processRaw: pocketsphinx.func(
      'int ps_process_raw(void* ps, const int16_t* data, size_t n_samples, int no_search, int full_utt)',
    ),
    endUtt: pocketsphinx.func('int ps_end_utt(void* ps)'),
    getHyp: pocketsphinx.func('const char* ps_get_hyp(void* ps, _Out_ int32_t* out_best_score)'),
  };
  return api;
}

/** LOCAL_ASR_ENGINE=pocketsphinx. */
export const pocketsphinxEngineDefinition: OfflineEngineDefinition = {
  name: 'pocketsphinx',
  async availability(settings, model): Promise<RecognizerAvailability> {
    const missing = missingModelFiles(settings, model);
    if (missing.length > 0) {
      return {
        available: false,
        message: `LOCAL_ASR_ENGINE=pocketsphinx needs its US English model, and ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} missing. Debian/Ubuntu: apt install pocketsphinx-en-us libpocketsphinx3; or set POCKETSPHINX_MODEL_PATH to a folder with en-us/, en-us.lm.bin and cmudict-en-us.dict.`,
        settings: ['POCKETSPHINX_MODEL_PATH', 'LOCAL_ASR_ENGINE'],
      };
    }
    try {
      bind();
    } catch (error) {
      return {
        available: false,
        message:
          `LOCAL_ASR_ENGINE=pocketsphinx: ${(error as Error).message} ${isServerError(error) ? (error.details.hint ?? '') : ''}`.trim(),
        settings: ['LOCAL_ASR_ENGINE'],
      };
    }
    return {
      available: true,
      detail: `PocketSphinx (US English) with ${pocketsphinxModelFiles(settings, model).folder}`,
    };
  },
  async load(settings, model) {
    const ps = bind();
    const files = pocketsphinxModelFiles(settings, model);
    const config = ps.cmdLnInit(
      null,
      ps.psArgs(),
      1,
      ...['-hmm', files.hmm, '-lm', files.lm, '-dict', files.dict, '-logfn', devNull].flatMap(
        (value) => ['str', value],
      ),
      'str',
      null,
    );
    if (!config) {
      throw new ServerError(
        'ASR_MODEL_MISSING',
        `PocketSphinx refused its configuration (model ${files.folder}).`,
        { field: 'POCKETSPHINX_MODEL_PATH' },
      );
    }
    const decoder = await callAsync<unknown>(ps.psInit, config);
    if (!decoder) {
      ps.cmdLnFree(config);
      throw new ServerError(
        'ASR_MODEL_MISSING',
        `PocketSphinx could not load the model in ${files.folder} (damaged or not a PocketSphinx 5prealpha model).`,
        { field: 'POCKETSPHINX_MODEL_PATH' },
      );
    }
    return createQueuedEngine(
      'pocketsphinx',
      files.folder,
      async (samples) => {
        if (ps.startUtt(decoder) < 0) throw new Error('PocketSphinx could not start an utterance');
        const processed = await callAsync<number>(
          ps.processRaw,
          decoder,
          samples,
          samples.length,
          0,
          1,
        );
        const ended = await callAsync<number>(ps.endUtt, decoder);
        if (processed < 0 || ended < 0) throw new Error('PocketSphinx failed to decode a phrase');
        return normalizeRecognizedText(ps.getHyp(decoder, [0]) ?? '');
      },
      () => {
        ps.psFree(decoder);
        ps.cmdLnFree(config);
      },
    );
  },
};
