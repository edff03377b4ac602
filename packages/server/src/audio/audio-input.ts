import { dirname, isAbsolute, resolve } from 'node:path';
import { ServerError } from '../errors.ts';
import { RECORDING_EXTENSIONS } from './recording-format.ts';

/**
 * What AUDIO_INPUT selects: a microphone (the default one, or one whose name matches), the
 * computer's own sound (alone, or mixed with the default microphone), the microphone of the app
 * window, or a recording (MP3, M4A, MP4, WebM, OGG, FLAC, WAV, …).
 */
export type AudioInput =
  | { kind: 'microphone'; device: string | undefined }
  | { kind: 'system'; withMicrophone: boolean }
  | { kind: 'app' }
  | { kind: 'file'; path: string };

/**
 * Reads AUDIO_INPUT: `mic` (or `default`, or empty) for the default microphone, `mic:NAME` for the
 * input device whose name contains NAME, `system` for the computer's own sound (what it plays: an
 * online class), `system+mic` for that and the default microphone mixed, `app` for the microphone
 * of the app window (the desktop UI captures it and streams it to `WS /api/ws/capture`),
 * `file:PATH` for a recording (a value ending in a recording's extension — .mp3 .m4a .aac .mp4
 * .mov .webm .ogg .oga .opus .flac .wav — is a file too). A bare name that is none of these is
 * taken as a device name. Relative file paths
 * are resolved from the folder that holds the data folder (where `.env` lives).
 *
 * @example
 * parseAudioInput('file:lectures/week3.wav', '/app/data'); // { kind: 'file', path: '/app/lectures/week3.wav' }
 */
export function parseAudioInput(value: string, dataDir: string): AudioInput {
  const text = value.trim();
  const lower = text.toLowerCase();
  if (text === '' || lower === 'mic' || lower === 'default' || lower === 'microphone') {
    return { kind: 'microphone', device: undefined };
  }
  if (lower === 'app') return { kind: 'app' };
  const compact = lower.replace(/\s+/g, '');
  if (compact === 'system') return { kind: 'system', withMicrophone: false };
  if (compact === 'system+mic' || compact === 'mic+system') {
    return { kind: 'system', withMicrophone: true };
  }
  const file = (path: string): AudioInput => {
    if (path.trim() === '') {
      throw new ServerError(
        'AUDIO_INPUT_INVALID',
        'AUDIO_INPUT=file: needs a path, e.g. AUDIO_INPUT=file:/home/me/lecture.wav.',
        { field: 'AUDIO_INPUT' },
      );
    }
    const trimmed = path.trim();
    return {
      kind: 'file',
      path: isAbsolute(trimmed) ? trimmed : resolve(dirname(dataDir), trimmed),
    };
  };
  if (lower.startsWith('file:')) return file(text.slice(5));
  if (lower.startsWith('mic:')) {
    const device = text.slice(4).trim();
    return { kind: 'microphone', device: device === '' ? undefined : device };
  }
  if (RECORDING_EXTENSIONS.some((extension) => lower.endsWith(extension))) return file(text);
  return { kind: 'microphone', device: text };
}

/** How an input is named in messages. */
export function describeAudioInput(input: AudioInput): string {
  if (input.kind === 'file') return `the recording ${input.path}`;
  if (input.kind === 'app') return 'the microphone of the app window';
  if (input.kind === 'system') {
    return input.withMicrophone
      ? "the computer's sound mixed with the default microphone"
      : "the computer's sound";
  }
  return input.device ? `the microphone "${input.device}"` : 'the default microphone';
}
