// WAV (RIFF/WAVE) reading for the service's only PCM input: signed 16-bit little-endian,
// 16 kHz, mono or stereo. Chunks are walked, not assumed at fixed offsets,
// so files with LIST/fact/bext chunks or an odd-sized chunk (padded to even) read correctly.
import { readFile } from 'node:fs/promises';
import { AsrProtocolError } from './errors.ts';

/** PCM audio read from a WAV file, ready to stream with `format: 'pcm'`. */
export interface WavAudio {
  sampleRate: 16000;
  channels: 1 | 2;
  bitsPerSample: 16;
  /** Interleaved s16le samples (whole frames only), a view into the file's bytes. */
  data: Uint8Array;
  /** Duration of `data` in milliseconds. */
  durationMs: number;
  /**
   * True when the data chunk declares more bytes than the file holds (a recording cut short):
   * the bytes present are returned rather than refusing the file.
   */
  truncated: boolean;
}

/**
 * PCM s16le audio at any sample rate, read from a WAV file by {@link parsePcmWav}: for callers
 * that resample themselves (a recorded lecture is often 44.1 or 48 kHz).
 */
export interface PcmWavAudio {
  sampleRate: number;
  channels: 1 | 2;
  bitsPerSample: 16;
  /** Interleaved s16le samples (whole frames only), a view into the file's bytes. */
  data: Uint8Array;
  /** Duration of `data` in milliseconds. */
  durationMs: number;
  /** True when the data chunk declares more bytes than the file holds (see {@link WavAudio}). */
  truncated: boolean;
  /** The size the data chunk declares (undefined when the writer left 0xFFFFFFFF, size unknown). */
  declaredDataBytes: number | undefined;
}

const WAVE_FORMAT_PCM = 0x0001;
const WAVE_FORMAT_EXTENSIBLE = 0xfffe;
const FORMAT_NAMES: Record<number, string> = {
  1: 'PCM',
  3: 'IEEE float',
  6: 'A-law',
  7: 'mu-law',
  17: 'IMA ADPCM',
  85: 'MP3',
};

function fourCharacterCode(bytes: Uint8Array, offset: number): string {
  return String.fromCharCode(...bytes.subarray(offset, offset + 4));
}

function invalidWavError(message: string): AsrProtocolError {
  return new AsrProtocolError('ASR_WAV_INVALID', `not a usable WAV file: ${message}`);
}

interface FormatChunk {
  encoding: number;
  channels: number;
  sampleRate: number;
  blockAlign: number;
  bitsPerSample: number;
}

function readFormat(view: DataView, body: number, size: number): FormatChunk {
  if (size < 16) throw invalidWavError(`the fmt chunk is ${size} bytes (at least 16 needed)`);
  let encoding = view.getUint16(body, true);
  const bitsPerSample = view.getUint16(body + 14, true);
  if (encoding === WAVE_FORMAT_EXTENSIBLE) {
    // WAVE_FORMAT_EXTENSIBLE: the real format is the first two bytes of the SubFormat GUID.
    if (size < 40) throw invalidWavError(`the extensible fmt chunk is ${size} bytes (40 needed)`);
    encoding = view.getUint16(body + 24, true);
  }
  return {
    encoding,
    channels: view.getUint16(body + 2, true),
    sampleRate: view.getUint32(body + 4, true),
    blockAlign: view.getUint16(body + 12, true),
    bitsPerSample,
  };
}

/**
 * Parses a WAV file held in memory and checks it is PCM s16le, 16 kHz, 1 or 2 channels. Throws
 * `AsrProtocolError` `ASR_WAV_INVALID` (not RIFF/WAVE, a missing or truncated fmt chunk, no data
 * chunk) or `ASR_WAV_UNSUPPORTED` naming everything that differs and how to convert.
 *
 * @example
 * const wav = parseWav(await readFile('lecture.wav'));
 * const request = { audio: { format: 'pcm', rate: 16000, bits: 16, channel: wav.channels }, ... };
 */
export function parseWav(bytes: Uint8Array): WavAudio {
  const wav = readPcmWav(bytes, true);
  return {
    sampleRate: 16000,
    channels: wav.channels,
    bitsPerSample: 16,
    data: wav.data,
    durationMs: wav.durationMs,
    truncated: wav.truncated,
  };
}

/**
 * Like {@link parseWav} but accepts any sample rate: PCM s16le, 1 or 2 channels. Also reports the
 * data size the file declares, so a caller that parsed only the start of a long file knows how
 * much audio follows (`data.byteOffset` within `bytes` is where it starts).
 *
 * @example
 * const head = parsePcmWav(firstMegabyteOfTheFile);
 * const audioStart = head.data.byteOffset - firstMegabyteOfTheFile.byteOffset;
 */
export function parsePcmWav(bytes: Uint8Array): PcmWavAudio {
  return readPcmWav(bytes, false);
}

function readPcmWav(bytes: Uint8Array, only16k: boolean): PcmWavAudio {
  if (bytes.byteLength < 12)
    throw invalidWavError(`only ${bytes.byteLength} bytes (a WAV header needs at least 44)`);
  const riff = fourCharacterCode(bytes, 0);
  if (riff === 'RIFX' || riff === 'RF64') {
    throw new AsrProtocolError(
      'ASR_WAV_UNSUPPORTED',
      `unsupported WAV: ${riff === 'RIFX' ? 'big-endian RIFX' : 'RF64 (64-bit)'} files are not read; need a RIFF file of PCM s16le`,
    );
  }
  if (riff !== 'RIFF' || fourCharacterCode(bytes, 8) !== 'WAVE') {
    throw invalidWavError(
      `it does not start with "RIFF....WAVE" (starts with ${JSON.stringify(fourCharacterCode(bytes, 0))})`,
    );
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let format: FormatChunk | undefined;
  let data:
    | { offset: number; size: number; truncated: boolean; declared: number | undefined }
    | undefined;
  let offset = 12;
  while (offset + 8 <= bytes.byteLength && data === undefined) {
    const id = fourCharacterCode(bytes, offset);
    const size = view.getUint32(offset + 4, true);
    const body = offset + 8;
    const available = bytes.byteLength - body;
    if (id === 'fmt ') {
      if (size > available)
        throw invalidWavError(
          `the fmt chunk declares ${size} bytes but the file ends after ${available}`,
        );
      format = readFormat(view, body, size);
    } else if (id === 'data') {
      // 0xFFFFFFFF is what streaming writers leave when they never came back to fix the size.
      const unknownSize = size === 0xffffffff;
      const truncated = !unknownSize && size > available;
      data = {
        offset: body,
        size: unknownSize || truncated ? available : size,
        truncated,
        declared: unknownSize ? undefined : size,
      };
    }
    offset = body + size + (size & 1);
  }
  if (format === undefined) throw invalidWavError('no fmt chunk before the audio data');
  if (data === undefined) throw invalidWavError('no data chunk');
  const problems: string[] = [];
  if (format.encoding !== WAVE_FORMAT_PCM) {
    const name =
      FORMAT_NAMES[format.encoding] ??
      `format tag 0x${format.encoding.toString(16).padStart(4, '0')}`;
    problems.push(`encoding is ${name} (need PCM)`);
  }
  if (format.bitsPerSample !== 16)
    problems.push(`${format.bitsPerSample}-bit samples (need 16-bit)`);
  if (only16k && format.sampleRate !== 16000)
    problems.push(`sample rate ${format.sampleRate} Hz (need 16000 Hz)`);
  if (format.sampleRate < 1) problems.push(`sample rate ${format.sampleRate} Hz`);
  if (format.channels !== 1 && format.channels !== 2) {
    problems.push(`${format.channels} channels (need 1 or 2)`);
  }
  if (problems.length > 0) {
    throw new AsrProtocolError(
      'ASR_WAV_UNSUPPORTED',
      `unsupported WAV: ${problems.join(', ')}; ${only16k ? 'the service takes PCM s16le, 16 kHz, mono or stereo' : 'need PCM s16le, mono or stereo'} ` +
        '(convert with: sox IN.wav -r 16000 -b 16 -e signed-integer OUT.wav)',
    );
  }
  const channels = format.channels as 1 | 2;
  const frameBytes = channels * 2;
  if (format.blockAlign !== frameBytes) {
    throw invalidWavError(
      `block align is ${format.blockAlign} bytes but ${channels} x 16-bit samples need ${frameBytes}`,
    );
  }
  const usable = data.size - (data.size % frameBytes);
  const pcm = bytes.subarray(data.offset, data.offset + usable);
  return {
    sampleRate: format.sampleRate,
    channels,
    bitsPerSample: 16,
    data: pcm,
    durationMs: (usable / frameBytes / format.sampleRate) * 1000,
    truncated: data.truncated,
    declaredDataBytes: data.declared,
  };
}

/**
 * Reads and parses a WAV file (see {@link parseWav}). A file that cannot be read throws
 * `ASR_FILE_UNREADABLE` naming the path and the reason.
 */
export async function readWavFile(path: string): Promise<WavAudio> {
  let bytes: Uint8Array;
  try {
    bytes = await readFile(path);
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new AsrProtocolError('ASR_FILE_UNREADABLE', `cannot read ${path}: ${reason}`, {
      cause: error,
    });
  }
  return parseWav(bytes);
}

/**
 * Wraps PCM s16le samples in a minimal 44-byte WAV header: handy for writing test audio or
 * saving what was streamed.
 */
export function encodeWav(
  pcm: Uint8Array,
  options: { sampleRate?: number; channels?: number } = {},
): Uint8Array {
  const sampleRate = options.sampleRate ?? 16000;
  const channels = options.channels ?? 1;
  const out = new Uint8Array(44 + pcm.byteLength);
  const view = new DataView(out.buffer);
  const text = (offset: number, value: string) => {
    for (let i = 0; i < 4; i += 1) out[offset + i] = value.charCodeAt(i);
  };
  text(0, 'RIFF');
  view.setUint32(4, 36 + pcm.byteLength, true);
  text(8, 'WAVE');
  text(12, 'fmt ');
  view.setUint32(16, 16, true);
  view.setUint16(20, WAVE_FORMAT_PCM, true);
  view.setUint16(22, channels, true);
  view.setUint32(24, sampleRate, true);
  view.setUint32(28, sampleRate * channels * 2, true);
  view.setUint16(32, channels * 2, true);
  view.setUint16(34, 16, true);
  text(36, 'data');
  view.setUint32(40, pcm.byteLength, true);
  out.set(pcm, 44);
  return out;
}
