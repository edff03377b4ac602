/**
 * What a sherpa-onnx model folder holds, read from its file names: a streaming transducer
 * (Zipformer: encoder, decoder and joiner graphs) or SenseVoice (one graph). Both need the
 * `tokens.txt` that maps the graphs' outputs to text.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { type Localized, localized } from '../language.ts';

/** A streaming transducer: decoded chunk by chunk, with endpoint detection and hot words. */
interface SherpaTransducerModel {
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
interface SherpaSenseVoiceModel {
  kind: 'sense-voice';
  folder: string;
  model: string;
  tokens: string;
}

/** A sherpa-onnx model folder this app can run. */
export type SherpaModel = SherpaTransducerModel | SherpaSenseVoiceModel;

/** The files a sherpa-onnx folder must hold, for error messages. */
const SHERPA_MODEL_FILES =
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

/**
 * The graph of a sherpa-onnx punctuation model (CT-Transformer) in `folder`, or `folder` itself
 * when it names an `.onnx` file. Such a folder holds `model*.onnx` (the int8 one preferred) and
 * no `tokens.txt`: its vocabulary and punctuation marks are in the graph's metadata (the
 * published folder also has `tokens.json` and `config.yaml`, which sherpa-onnx does not read).
 *
 * @throws SherpaModelError naming what the folder holds instead.
 * @example
 * readPunctuationModel('/models/sherpa-onnx-punct-ct-transformer-zh-en-vocab272727-2024-04-12');
 * // '…/model.onnx'
 */
export function readPunctuationModel(folder: string): string {
  let names: string[];
  try {
    if (statSync(folder).isFile()) {
      if (folder.endsWith('.onnx')) return folder;
      throw new SherpaModelError(
        localized(
          `${folder} 既不是 .onnx 文件，也不是模型文件夹`,
          `${folder} is not an .onnx file nor a model folder`,
        ),
      );
    }
    names = readdirSync(folder).sort();
  } catch (error) {
    if (error instanceof SherpaModelError) throw error;
    throw new SherpaModelError(localized(`${folder} 不存在`, `${folder} does not exist`));
  }
  const graph = pick(names, 'model');
  if (graph && !names.includes('tokens.txt')) return join(folder, graph);
  const found = names.filter((name) => !name.startsWith('.'));
  throw new SherpaModelError(
    localized(
      `${folder} 里没有 sherpa-onnx 标点模型：现有文件：${found.length > 0 ? found.join(', ') : '无'}；需要 model.onnx（或 model.int8.onnx），且没有 tokens.txt`,
      `${folder} holds no sherpa-onnx punctuation model: it has ${found.length > 0 ? found.join(', ') : 'no files'}; expected model.onnx (or model.int8.onnx) without tokens.txt`,
    ),
  );
}

/** Whether a folder holds a sherpa-onnx punctuation model (see {@link readPunctuationModel}). */
export function isPunctuationFolder(folder: string): boolean {
  try {
    return statSync(folder).isDirectory() && readPunctuationModel(folder) !== '';
  } catch {
    return false;
  }
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
