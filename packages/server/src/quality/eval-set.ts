/**
 * A folder of recordings to measure recognition on: `name.wav` (PCM 16-bit, mono or stereo, any
 * sample rate, as AUDIO_INPUT=file: plays) beside `name.txt` (what was said, UTF-8). Every
 * problem is found before anything runs, naming the file.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { isAsrProtocolError, parsePcmWav } from '@class-assistant/asr-protocol';
import { createRecognizerConverter } from '../audio/pcm.ts';
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

/** The audio of a WAV file, parsed (throws {@link EvalInputError} naming the file). */
async function readWav(path: string): Promise<ReturnType<typeof parsePcmWav>> {
  let bytes: Uint8Array;
  try {
    bytes = await readFile(path);
  } catch (error) {
    throw new EvalInputError(
      `${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}).`,
      { cause: error },
    );
  }
  try {
    return parsePcmWav(bytes);
  } catch (error) {
    throw new EvalInputError(
      `${path} is not a WAV file the app can play: ${isAsrProtocolError(error) ? error.message : (error as Error).message}. Convert it to 16-bit PCM, e.g. sox in.mp3 -b 16 -e signed-integer out.wav.`,
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
        `${folder} is a file; give the folder holding name.wav + name.txt pairs.`,
      );
    }
    entries = await readdir(folder);
  } catch (error) {
    if (isEvalInputError(error)) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new EvalInputError(
      code === 'ENOENT'
        ? `${folder} does not exist.`
        : `${folder} cannot be read (${code ?? (error as Error).message}).`,
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
      `${folder} holds no recordings: put name.wav files there, each with the text that was said in name.txt.`,
    );
  }
  const problems: string[] = [];
  for (const [name, file] of wavs) {
    if (!txts.has(name)) problems.push(`${join(folder, file)} has no ${name}.txt beside it`);
  }
  for (const [name, file] of txts) {
    if (!wavs.has(name)) problems.push(`${join(folder, file)} has no ${name}.wav beside it`);
  }
  if (problems.length > 0) {
    throw new EvalInputError(
      `${problems.join('; ')}. Each recording needs its reference text (what was said) in a .txt file of the same name.`,
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
      throw new EvalInputError(
        `${txtPath} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}).`,
        { cause: error },
      );
    }
    if (scoringTokens(reference).length === 0) {
      throw new EvalInputError(
        `${txtPath} holds no words: type what is said in ${wavs.get(name)} into it.`,
      );
    }
    const wav = await readWav(wavPath);
    if (wav.data.byteLength === 0) throw new EvalInputError(`${wavPath} holds no audio.`);
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
