// Real speech for the audio tests: espeak-ng says each sentence, sox makes it 16 kHz mono and
// trims its own silence, and the sentences are laid out with known pauses over a low noise floor
// (a recording always has one; it also makes every stretch of audio unique, which the ASR test
// server's referenceAudio relies on). Files are made once per process, in a temp folder.
import { execFile } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { encodeWav, parseWav } from '@class-assistant/asr-protocol';

const run = promisify(execFile);

/** One sentence and the pause after it. */
export interface SpokenSentence {
  text: string;
  /** Silence after the sentence, in ms. */
  pauseAfterMs: number;
}

/** A generated lecture. */
export interface SpeechRecording {
  /** The WAV file (16 kHz mono s16le). */
  path: string;
  /** Its samples. */
  samples: Int16Array;
  /** Where each sentence lies, in ms from the start. */
  sentences: Array<{ text: string; startMs: number; endMs: number }>;
  durationMs: number;
}

const FOLDER = join(tmpdir(), `class-assistant-speech-${process.pid}`);
const cache = new Map<string, Promise<SpeechRecording>>();

async function say(text: string, index: number): Promise<Int16Array> {
  await mkdir(FOLDER, { recursive: true });
  const raw = join(FOLDER, `say-${index}-${Date.now()}.wav`);
  const converted = join(FOLDER, `say-${index}-${Date.now()}-16k.wav`);
  await run('espeak-ng', ['-v', 'en-us', '-s', '150', '-w', raw, text]);
  await run('sox', [
    raw,
    '-r',
    '16000',
    '-c',
    '1',
    '-b',
    '16',
    '-e',
    'signed-integer',
    converted,
    // Trim espeak's own leading and trailing silence: the layout decides the pauses.
    'silence',
    '1',
    '0.02',
    '0.5%',
    'reverse',
    'silence',
    '1',
    '0.02',
    '0.5%',
    'reverse',
  ]);
  const wav = parseWav(await readFile(converted));
  return new Int16Array(
    wav.data.buffer.slice(wav.data.byteOffset, wav.data.byteOffset + wav.data.byteLength),
  );
}

/**
 * Makes (once) a WAV of the sentences, each followed by its pause, after `leadMs` of room noise.
 *
 * @example
 * const lecture = await speechRecording([{ text: 'good morning everyone', pauseAfterMs: 1500 }]);
 */
export function speechRecording(
  sentences: readonly SpokenSentence[],
  options: { leadMs?: number; noiseAmplitude?: number; name?: string } = {},
): Promise<SpeechRecording> {
  const key = JSON.stringify([sentences, options]);
  let pending = cache.get(key);
  if (!pending) {
    pending = (async () => {
      const lead = Math.round(((options.leadMs ?? 1500) * 16000) / 1000);
      const spoken = await Promise.all(
        sentences.map((sentence, index) => say(sentence.text, index)),
      );
      let total = lead;
      spoken.forEach((samples, index) => {
        total += samples.length + Math.round((sentences[index]!.pauseAfterMs * 16000) / 1000);
      });
      const out = new Int16Array(total);
      const layout: SpeechRecording['sentences'] = [];
      let at = lead;
      spoken.forEach((samples, index) => {
        out.set(samples, at);
        layout.push({
          text: sentences[index]!.text,
          startMs: Math.round((at / 16000) * 1000),
          endMs: Math.round(((at + samples.length) / 16000) * 1000),
        });
        at += samples.length + Math.round((sentences[index]!.pauseAfterMs * 16000) / 1000);
      });
      // A deterministic noise floor (xorshift), as a quiet room or a microphone hiss.
      const amplitude = options.noiseAmplitude ?? 60;
      let state = 2463534242;
      for (let index = 0; index < out.length; index++) {
        state ^= state << 13;
        state ^= state >>> 17;
        state ^= state << 5;
        state >>>= 0;
        const noise = (((state & 0xffff) - 32768) * amplitude) >> 15;
        out[index] = Math.max(-32768, Math.min(32767, out[index]! + noise));
      }
      const path = join(FOLDER, `${options.name ?? 'lecture'}-${cache.size}.wav`);
      await writeFile(
        path,
        encodeWav(new Uint8Array(out.buffer), { sampleRate: 16000, channels: 1 }),
      );
      return { path, samples: out, sentences: layout, durationMs: (out.length / 16000) * 1000 };
    })();
    cache.set(key, pending);
  }
  return pending;
}

/** The lecture most tests use: three sentences, pauses long enough to end each phrase. */
export const LECTURE: readonly SpokenSentence[] = [
  { text: 'good morning everyone', pauseAfterMs: 1500 },
  { text: 'today we will talk about binary search trees', pauseAfterMs: 1500 },
  { text: 'please open your books to page ten', pauseAfterMs: 1500 },
];

/** Words of a text, lower case, for loose comparisons with what a recognizer heard. */
export function words(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^a-z']+/)
    .filter((word) => word !== '');
}
