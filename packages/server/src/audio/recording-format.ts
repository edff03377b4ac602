/**
 * What kind of recording a file is, told from its first bytes (never from its name alone), and
 * how long it is when its headers say so without decoding.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';

/** A container/codec the decoder streams (the names of `@audio/decode`'s stream decoders). */
type RecordingCodec = 'mp3' | 'aac' | 'm4a' | 'webm' | 'oga' | 'opus' | 'flac' | 'wav';

/** A recognised recording. */
export interface RecordingFormat {
  codec: RecordingCodec;
  /** How the format is named to the student: "MP3", "MP4/M4A", "Ogg Opus", … */
  label: string;
}

/** The formats a recording may be in, as the student reads them. */
export const ACCEPTED_RECORDINGS =
  'MP3, M4A/AAC, MP4/MOV, WebM/Opus, OGG (Vorbis, Opus), FLAC, WAV';

/** File name endings of recordings. */
export const RECORDING_EXTENSIONS: readonly string[] = [
  '.mp3',
  '.m4a',
  '.aac',
  '.mp4',
  '.mov',
  '.webm',
  '.ogg',
  '.oga',
  '.opus',
  '.flac',
  '.wav',
];

const ISO_BOXES = new Set(['ftyp', 'moov', 'mdat', 'free', 'skip', 'wide', 'pnot', 'styp', 'moof']);

const ascii = (bytes: Uint8Array, start: number, length: number): string =>
  String.fromCharCode(...bytes.subarray(start, start + length));

/** Length of an ID3v2 tag at the start (0 when there is none). */
function id3Length(head: Uint8Array): number {
  if (head.length < 10 || ascii(head, 0, 3) !== 'ID3') return 0;
  const size = ((head[6]! & 0x7f) << 21) | ((head[7]! & 0x7f) << 14) | ((head[8]! & 0x7f) << 7);
  return 10 + (size | (head[9]! & 0x7f)) + (head[5]! & 0x10 ? 10 : 0);
}

/**
 * A recording's format from its first bytes (64 KB are plenty), or a reason it is none, in the
 * file's own terms (for the "details" of an error).
 */
export function detectRecordingFormat(head: Uint8Array): RecordingFormat | { unsupported: string } {
  if (head.length < 12) return { unsupported: `the file holds only ${head.length} bytes` };
  if (ascii(head, 0, 4) === 'RIFF' && ascii(head, 8, 4) === 'WAVE')
    return { codec: 'wav', label: 'WAV' };
  if (ascii(head, 0, 4) === 'fLaC') return { codec: 'flac', label: 'FLAC' };
  if (head[0] === 0x1a && head[1] === 0x45 && head[2] === 0xdf && head[3] === 0xa3)
    return { codec: 'webm', label: 'WebM/Matroska' };
  if (ISO_BOXES.has(ascii(head, 4, 4))) return { codec: 'm4a', label: 'MP4/M4A/MOV' };
  if (ascii(head, 0, 4) === 'OggS') {
    const packet = 27 + head[26]!;
    if (ascii(head, packet, 8) === 'OpusHead') return { codec: 'opus', label: 'Ogg Opus' };
    if (ascii(head, packet + 1, 6) === 'vorbis') return { codec: 'oga', label: 'Ogg Vorbis' };
    const name = ascii(head, packet, 8).replace(/[^\x20-\x7e]/g, '');
    return { unsupported: `an Ogg stream of another codec (${name || 'unknown'})` };
  }
  const start = id3Length(head);
  if (start > 0 && start + 4 <= head.length && ascii(head, start, 4) === 'fLaC')
    return { codec: 'flac', label: 'FLAC' };
  if (start + 2 <= head.length && head[start] === 0xff && (head[start + 1]! & 0xe0) === 0xe0) {
    // MPEG audio frame sync: layer bits 00 are AAC in ADTS, the others MPEG-1/2 audio.
    if ((head[start + 1]! & 0xf6) === 0xf0) return { codec: 'aac', label: 'AAC (ADTS)' };
    if ((head[start + 1]! & 0x06) !== 0) return { codec: 'mp3', label: 'MP3' };
  }
  if (start > 0) return { codec: 'mp3', label: 'MP3' };
  return { unsupported: `it starts with ${describeBytes(head)}` };
}

/** The first bytes of a file, as text when they read as text, else in hex. */
function describeBytes(head: Uint8Array): string {
  const first = head.subarray(0, 8);
  const text = ascii(first, 0, first.length);
  if (/^[\x20-\x7e]{4,}/.test(text)) return `"${text.replace(/[^\x20-\x7e]/g, '.')}"`;
  return [...first].map((byte) => byte.toString(16).padStart(2, '0')).join(' ');
}

/**
 * True when the file is a PCM 16-bit WAV of one or two channels: the WAV source reads those
 * straight, faster than a decoder. Any problem reading it: false (the decoder will say).
 */
export function isPcm16Wav(path: string): boolean {
  let descriptor: number | undefined;
  try {
    descriptor = openSync(path, 'r');
    const head = new Uint8Array(4096);
    const length = readSync(descriptor, head, 0, head.length, 0);
    if (length < 44 || ascii(head, 0, 4) !== 'RIFF' || ascii(head, 8, 4) !== 'WAVE') return false;
    const view = new DataView(head.buffer);
    let at = 12;
    while (at + 8 <= length) {
      const size = view.getUint32(at + 4, true);
      if (ascii(head, at, 4) === 'fmt ' && at + 24 <= length) {
        let tag = view.getUint16(at + 8, true);
        const channels = view.getUint16(at + 10, true);
        const bits = view.getUint16(at + 22, true);
        // WAVE_FORMAT_EXTENSIBLE: the sub-format GUID starts with the format tag.
        if (tag === 0xfffe && at + 34 <= length) tag = view.getUint16(at + 32, true);
        return tag === 1 && bits === 16 && (channels === 1 || channels === 2);
      }
      at += 8 + size + (size & 1);
    }
    return false;
  } catch {
    return false;
  } finally {
    if (descriptor !== undefined) closeSync(descriptor);
  }
}

const readAt = async (handle: FileHandle, offset: number, length: number): Promise<Uint8Array> => {
  const bytes = new Uint8Array(Math.max(0, length));
  const { bytesRead } = await handle.read(bytes, 0, bytes.length, offset);
  return bytes.subarray(0, bytesRead);
};

/**
 * The length in ms a recording's headers declare (MP4's is read with its boxes, see
 * mp4-layout.ts), or undefined when only decoding all of it would tell (ADTS AAC).
 */
export async function declaredDurationMs(
  handle: FileHandle,
  size: number,
  head: Uint8Array,
  codec: RecordingCodec,
): Promise<number | undefined> {
  try {
    if (codec === 'flac') return flacDuration(head);
    if (codec === 'wav') return wavDuration(head, size);
    if (codec === 'mp3') return mp3Duration(head, size);
    if (codec === 'webm') return webmDuration(head);
    if (codec === 'oga' || codec === 'opus') {
      const tail = await readAt(handle, Math.max(0, size - 65536), Math.min(size, 65536));
      return oggDuration(head, tail, codec);
    }
  } catch {
    // A header that cannot be read only leaves the length unknown: decoding will tell.
  }
  return undefined;
}

function flacDuration(head: Uint8Array): number | undefined {
  const at = ascii(head, 0, 4) === 'fLaC' ? 4 : id3Length(head) + 4;
  const body = at + 4; // STREAMINFO is the first metadata block
  const rate = (head[body + 10]! << 12) | (head[body + 11]! << 4) | (head[body + 12]! >> 4);
  const samples = (head[body + 13]! & 0x0f) * 2 ** 32 + readU32be(head, body + 14);
  return rate > 0 && samples > 0 ? (samples / rate) * 1000 : undefined;
}

function wavDuration(head: Uint8Array, size: number): number | undefined {
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  let at = 12;
  let byteRate = 0;
  let sampleRate = 0;
  let compressed = false;
  let frames: number | undefined;
  while (at + 8 <= head.length) {
    const chunk = view.getUint32(at + 4, true);
    const id = ascii(head, at, 4);
    if (id === 'fmt ') {
      const tag = view.getUint16(at + 8, true);
      // PCM, IEEE float and the extensible header hold samples as they are; other tags
      // (ADPCM, G.711) are compressed, and their declared byte rate is only an average.
      compressed = tag !== 1 && tag !== 3 && tag !== 0xfffe;
      sampleRate = view.getUint32(at + 12, true);
      byteRate = view.getUint32(at + 16, true);
    }
    // A compressed WAV says how many samples per channel it holds in its fact chunk.
    if (id === 'fact' && at + 12 <= head.length) frames = view.getUint32(at + 8, true);
    if (id === 'data') {
      if (compressed && frames !== undefined && sampleRate > 0) return (frames / sampleRate) * 1000;
      if (byteRate === 0) return undefined;
      const bytes = Math.min(chunk, size - at - 8);
      return (bytes / byteRate) * 1000;
    }
    at += 8 + chunk + (chunk & 1);
  }
  return undefined;
}

const MP3_BITRATES = [
  // MPEG-1 layer I, II, III; MPEG-2/2.5 layer I, II/III (kbit/s; index 1..14)
  [32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
  [32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
  [32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  [32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
  [8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
];

function mp3Duration(head: Uint8Array, size: number): number | undefined {
  let at = id3Length(head);
  while (at + 4 <= head.length && !(head[at] === 0xff && (head[at + 1]! & 0xe0) === 0xe0)) at++;
  if (at + 4 > head.length) return undefined;
  const version = (head[at + 1]! >> 3) & 3; // 3: MPEG-1, 2: MPEG-2, 0: MPEG-2.5
  const layer = 4 - ((head[at + 1]! >> 1) & 3); // 1, 2 or 3
  const bitrateIndex = head[at + 2]! >> 4;
  const rateIndex = (head[at + 2]! >> 2) & 3;
  const mono = head[at + 3]! >> 6 === 3;
  if (layer === 4 || rateIndex === 3 || bitrateIndex === 0 || bitrateIndex === 15) return undefined;
  const rate = [44100, 48000, 32000][rateIndex]! / (version === 3 ? 1 : version === 2 ? 2 : 4);
  const table = version === 3 ? layer - 1 : layer === 1 ? 3 : 4;
  const bitrate = MP3_BITRATES[table]![bitrateIndex - 1]! * 1000;
  const samplesPerFrame = layer === 1 ? 384 : layer === 3 && version !== 3 ? 576 : 1152;
  // A Xing/Info header (LAME, ffmpeg) or a VBRI header (Fraunhofer) counts the frames.
  const side = version === 3 ? (mono ? 17 : 32) : mono ? 9 : 17;
  const xing = at + 4 + side;
  const tag = ascii(head, xing, 4);
  if ((tag === 'Xing' || tag === 'Info') && head[xing + 7]! & 1) {
    return ((readU32be(head, xing + 8) * samplesPerFrame) / rate) * 1000;
  }
  if (ascii(head, at + 36, 4) === 'VBRI') {
    return ((readU32be(head, at + 36 + 14) * samplesPerFrame) / rate) * 1000;
  }
  return (((size - at) * 8) / bitrate) * 1000;
}

function oggDuration(
  head: Uint8Array,
  tail: Uint8Array,
  codec: 'oga' | 'opus',
): number | undefined {
  const packet = 27 + head[26]!;
  let rate: number;
  let preSkip = 0;
  if (codec === 'opus') {
    rate = 48000;
    preSkip = head[packet + 10]! | (head[packet + 11]! << 8);
  } else {
    rate = new DataView(head.buffer, head.byteOffset).getUint32(packet + 12, true);
  }
  for (let at = tail.length - 27; at >= 0; at--) {
    if (tail[at] !== 0x4f || ascii(tail, at, 4) !== 'OggS') continue;
    const view = new DataView(tail.buffer, tail.byteOffset, tail.byteLength);
    const granule = view.getUint32(at + 6, true) + view.getUint32(at + 10, true) * 2 ** 32;
    if (granule === 2 ** 64 - 1 || granule <= preSkip) continue;
    return rate > 0 ? ((granule - preSkip) / rate) * 1000 : undefined;
  }
  return undefined;
}

/** An EBML variable-length number at `at`: its value and length (the marker bit removed when `strip`). */
function ebmlNumber(bytes: Uint8Array, at: number, strip: boolean) {
  const first = bytes[at];
  if (first === undefined || first === 0) return undefined;
  let length = 1;
  while (!(first & (0x80 >> (length - 1)))) length++;
  let value = strip ? first & (0xff >> length) : first;
  for (let index = 1; index < length; index++) value = value * 256 + (bytes[at + index] ?? 0);
  return { value, length };
}

function webmDuration(head: Uint8Array): number | undefined {
  const SEGMENT = 0x18538067;
  const INFO = 0x1549a966;
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  let scale = 1_000_000;
  let duration: number | undefined;
  const walk = (start: number, end: number, depth: number): void => {
    let at = start;
    while (at < end && at < head.length) {
      const id = ebmlNumber(head, at, false);
      if (!id) return;
      const size = ebmlNumber(head, at + id.length, true);
      if (!size) return;
      const body = at + id.length + size.length;
      const unknown = size.value === 2 ** (7 * size.length) - 1;
      const bodyEnd = unknown ? end : body + size.value;
      if (id.value === SEGMENT || id.value === INFO) walk(body, bodyEnd, depth + 1);
      else if (id.value === 0x2ad7b1 && depth === 2) {
        scale = 0;
        for (let index = 0; index < size.value; index++) scale = scale * 256 + head[body + index]!;
      } else if (id.value === 0x4489 && depth === 2 && body + size.value <= head.length) {
        duration = size.value === 4 ? view.getFloat32(body) : view.getFloat64(body);
      }
      if (id.value === INFO) return;
      at = bodyEnd;
    }
  };
  walk(0, head.length, 0);
  return duration !== undefined && duration > 0 ? (duration * scale) / 1_000_000 : undefined;
}

function readU32be(bytes: Uint8Array, at: number): number {
  return (
    ((bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!) >>> 0
  );
}
