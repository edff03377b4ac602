// A WAV of real speech for Chromium's fake microphone: espeak-ng reads the sentences (SSML breaks
// make the pauses), sox turns it into what `--use-file-for-fake-audio-capture` plays — 16-bit
// PCM, 16 kHz mono — with silence before the first word (the room the recognizer calibrates on).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** One sentence and the pause after it. */
export interface Sentence {
  text: string;
  pauseAfterMs: number;
}

/**
 * Writes the sentences, spoken, to `path`.
 *
 * @example
 * await speechWav('/tmp/lecture.wav', [{ text: 'good morning everyone', pauseAfterMs: 1500 }]);
 */
export async function speechWav(
  path: string,
  sentences: readonly Sentence[],
  leadMs = 2000,
): Promise<string> {
  const ssml = `<speak>${sentences
    .map((sentence) => `${sentence.text}<break time="${sentence.pauseAfterMs}ms"/>`)
    .join('')}</speak>`;
  const raw = `${path}.espeak.wav`;
  await run('espeak-ng', ['-m', '-v', 'en-us', '-s', '150', '-w', raw, ssml]);
  await run('sox', [
    raw,
    ...['-r', '16000', '-c', '1', '-b', '16', '-e', 'signed-integer'],
    path,
    ...['pad', String(leadMs / 1000), '0'],
  ]);
  return path;
}
