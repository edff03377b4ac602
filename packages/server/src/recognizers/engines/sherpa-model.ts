/**
 * What a sherpa-onnx model folder holds, read from its file names: a streaming transducer
 * (Zipformer: encoder, decoder and joiner graphs) or SenseVoice (one graph). Both need the
 * `tokens.txt` that maps the graphs' outputs to text.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { type Localized, localized } from '../../language.ts';

/** A streaming transducer: decoded chunk by chunk, with endpoint detection and hot words. */
export interface SherpaTransducerModel {
  kind: 'transducer';
  folder: string;
  encoder: string;
  decoder: string;
  joiner: string;
  tokens: string;
  /** `bpe.vocab`, when the folder has one (hot words in English then use `cjkchar+bpe`). */
  bpeVocab?: string;
}

/** SenseVoice: one utterance at a time (the Silero VAD cuts them), with punctuation. */
export interface SherpaSenseVoiceModel {
  kind: 'sense-voice';
  folder: string;
  model: string;
  tokens: string;
}

/** A sherpa-onnx model folder this app can run. */
export type SherpaModel = SherpaTransducerModel | SherpaSenseVoiceModel;

/** The files a sherpa-onnx folder must hold, for error messages. */
export const SHERPA_MODEL_FILES =
  'encoder*.onnx, decoder*.onnx, joiner*.onnx and tokens.txt (a streaming transducer), or model*.onnx and tokens.txt (SenseVoice)';

/** The same, in Chinese. */
const SHERPA_MODEL_FILES_ZH =
  'encoder*.onnx、decoder*.onnx、joiner*.onnx 和 tokens.txt（流式模型），或 model*.onnx 和 tokens.txt（SenseVoice）';

/**
 * Why a folder is not a sherpa-onnx model, as thrown by {@link readSherpaModel}: `message` in
 * English, `localized` in both languages.
 */
export class SherpaModelError extends Error {
  readonly code = 'SHERPA_MODEL_INVALID';
  readonly localized: Localized;
  constructor(message: Localized) {
    super(message.en);
    this.name = 'SherpaModelError';
    this.localized = message;
  }
}

/**
 * The graph of one role (`encoder`, `decoder`, `joiner`, `model`): the int8 one where both a
 * float and an int8 graph exist (a quarter of the memory, nearly the same accuracy).
 */
function pick(names: readonly string[], role: string): string | undefined {
  const candidates = names.filter((name) => name.startsWith(role) && name.endsWith('.onnx'));
  return (
    candidates.find((name) => name.endsWith('.int8.onnx')) ??
    candidates.sort((a, b) => a.length - b.length)[0]
  );
}

/**
 * Reads the kind and files of a sherpa-onnx model folder.
 *
 * @throws SherpaModelError naming the files found and the ones expected.
 * @example
 * readSherpaModel('/models/sherpa-onnx-sense-voice-zh-en-ja-ko-yue-2024-07-17');
 * // { kind: 'sense-voice', model: '…/model.int8.onnx', tokens: '…/tokens.txt', … }
 */
export function readSherpaModel(folder: string): SherpaModel {
  let names: string[];
  try {
    if (!statSync(folder).isDirectory())
      throw new SherpaModelError(
        localized(
          `${folder} 是一个文件，不是模型文件夹`,
          `${folder} is a file, not a model folder`,
        ),
      );
    names = readdirSync(folder).sort();
  } catch (error) {
    if (error instanceof SherpaModelError) throw error;
    throw new SherpaModelError(localized(`${folder} 不存在`, `${folder} does not exist`));
  }
  const hasTokens = names.includes('tokens.txt');
  const encoder = pick(names, 'encoder');
  const decoder = pick(names, 'decoder');
  const joiner = pick(names, 'joiner');
  const at = (name: string) => join(folder, name);
  if (hasTokens && encoder && decoder && joiner) {
    return {
      kind: 'transducer',
      folder,
      encoder: at(encoder),
      decoder: at(decoder),
      joiner: at(joiner),
      tokens: at('tokens.txt'),
      ...(names.includes('bpe.vocab') ? { bpeVocab: at('bpe.vocab') } : {}),
    };
  }
  const model = pick(names, 'model');
  if (hasTokens && model) {
    return { kind: 'sense-voice', folder, model: at(model), tokens: at('tokens.txt') };
  }
  const found = names.filter((name) => !name.startsWith('.'));
  throw new SherpaModelError(
    localized(
      `${folder} 里没有本应用能运行的 sherpa-onnx 模型：现有文件：${found.length > 0 ? found.join(', ') : '无'}；需要 ${SHERPA_MODEL_FILES_ZH}`,
      `${folder} holds no sherpa-onnx model this app can run: it has ${found.length > 0 ? found.join(', ') : 'no files'}; expected ${SHERPA_MODEL_FILES}`,
    ),
  );
}

/** Why a folder is not a sherpa-onnx model, or undefined when it is one. */
export function sherpaModelProblem(folder: string): string | undefined {
  try {
    readSherpaModel(folder);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}
