/**
 * A folder of recordings to measure recognition on: `name.wav` (PCM 16-bit, mono or stereo, any
 * sample rate, as AUDIO_INPUT=file: plays) beside `name.txt` (what was said, UTF-8). Every
 * problem is found before anything runs, naming the file.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { isAsrProtocolError, parsePcmWav } from '@class-assistant/asr-protocol';
import { createRecognizerConverter } from '../audio/pcm.ts';
import { type Localized, localized } from '../language.ts';
import { EvalInputError, isEvalInputError } from './eval-errors.ts';
import { scoringTokens } from './scoring-text.ts';

/** One recording and its reference text. */
export interface EvalItem {
  /** The shared file name without extension. */
  name: string;
  wavPath: string;
  txtPath: string;
  reference: string;
  /** Seconds of audio. */
  durationS: number;
}

/** A file or folder that cannot be read, with the system's reason. */
function unreadable(path: string, error: unknown): Localized {
  const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
  return localized(`无法读取 ${path}（${reason}）。`, `${path} cannot be read (${reason}).`);
}

/** The audio of a WAV file, parsed (throws {@link EvalInputError} naming the file). */
async function readWav(path: string): Promise<ReturnType<typeof parsePcmWav>> {
  let bytes: Uint8Array;
  try {
    bytes = await readFile(path);
  } catch (error) {
    throw new EvalInputError(unreadable(path, error), { cause: error });
  }
  try {
    return parsePcmWav(bytes);
  } catch (error) {
    throw new EvalInputError(
      (() => {
        const reason = isAsrProtocolError(error) ? error.message : (error as Error).message;
        return localized(
          `${path} 不是本应用能播放的 WAV 文件：${reason}。请转成 16 位 PCM，例如 sox in.mp3 -b 16 -e signed-integer out.wav。`,
          `${path} is not a WAV file the app can play: ${reason}. Convert it to 16-bit PCM, e.g. sox in.mp3 -b 16 -e signed-integer out.wav.`,
        );
      })(),
      { cause: error },
    );
  }
}

/**
 * Reads the pairs of `folder`, sorted by name.
 *
 * @example
 * const items = await readEvalSet('/home/me/lecture-excerpts');
 */
export async function readEvalSet(folder: string): Promise<EvalItem[]> {
  let entries: string[];
  try {
    if (!(await stat(folder)).isDirectory()) {
      throw new EvalInputError(
        localized(
          `${folder} 是一个文件；请给出放着 name.wav + name.txt 成对文件的文件夹。`,
          `${folder} is a file; give the folder holding name.wav + name.txt pairs.`,
        ),
      );
    }
    entries = await readdir(folder);
  } catch (error) {
    if (isEvalInputError(error)) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new EvalInputError(
      code === 'ENOENT'
        ? localized(`${folder} 不存在。`, `${folder} does not exist.`)
        : unreadable(folder, error),
      { cause: error },
    );
  }
  const wavs = new Map<string, string>();
  const txts = new Map<string, string>();
  for (const entry of entries) {
    const extension = extname(entry).toLowerCase();
    const name = entry.slice(0, entry.length - extension.length);
    if (extension === '.wav') wavs.set(name, entry);
    else if (extension === '.txt') txts.set(name, entry);
  }
  if (wavs.size === 0 && txts.size === 0) {
    throw new EvalInputError(
      localized(
        `${folder} 里没有录音：请放入 name.wav 文件，每个配一个写着所说内容的 name.txt。`,
        `${folder} holds no recordings: put name.wav files there, each with the text that was said in name.txt.`,
      ),
    );
  }
  const problems: Array<{ zh: string; en: string }> = [];
  for (const [name, file] of wavs) {
    if (!txts.has(name)) {
      problems.push({
        zh: `${join(folder, file)} 旁边没有 ${name}.txt`,
        en: `${join(folder, file)} has no ${name}.txt beside it`,
      });
    }
  }
  for (const [name, file] of txts) {
    if (!wavs.has(name)) {
      problems.push({
        zh: `${join(folder, file)} 旁边没有 ${name}.wav`,
        en: `${join(folder, file)} has no ${name}.wav beside it`,
      });
    }
  }
  if (problems.length > 0) {
    throw new EvalInputError(
      localized(
        `${problems.map((problem) => problem.zh).join('；')}。每段录音都要有同名的 .txt 文件，写着录音里说的话。`,
        `${problems.map((problem) => problem.en).join('; ')}. Each recording needs its reference text (what was said) in a .txt file of the same name.`,
      ),
    );
  }
  const items: EvalItem[] = [];
  for (const name of [...wavs.keys()].sort()) {
    const wavPath = join(folder, wavs.get(name)!);
    const txtPath = join(folder, txts.get(name)!);
    let reference: string;
    try {
      reference = (await readFile(txtPath, 'utf8')).replace(/^\uFEFF/, '');
    } catch (error) {
      throw new EvalInputError(unreadable(txtPath, error), { cause: error });
    }
    if (scoringTokens(reference).length === 0) {
      throw new EvalInputError(
        localized(
          `${txtPath} 里没有文字：请把 ${wavs.get(name)} 里说的话写进去。`,
          `${txtPath} holds no words: type what is said in ${wavs.get(name)} into it.`,
        ),
      );
    }
    const wav = await readWav(wavPath);
    if (wav.data.byteLength === 0) {
      throw new EvalInputError(localized(`${wavPath} 里没有音频。`, `${wavPath} holds no audio.`));
    }
    items.push({
      name,
      wavPath,
      txtPath,
      reference: reference.trim(),
      durationS: wav.durationMs / 1000,
    });
  }
  return items;
}

/**
 * The samples of a recording as every recognizer takes them: 16 kHz mono, converted by the same
 * down-mixing and resampling as the app's WAV source (whose output does not depend on how the
 * file is cut into chunks).
 */
export async function recognizerSamples(item: EvalItem): Promise<Int16Array> {
  const wav = await readWav(item.wavPath);
  return createRecognizerConverter({ sampleRate: wav.sampleRate, channels: wav.channels })(
    wav.data,
  );
}
