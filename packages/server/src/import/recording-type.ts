import { extname } from 'node:path';
import { ServerError } from '../errors.ts';
import { localized } from '../language.ts';

/** The file name endings of the recordings an import takes. */
export const RECORDING_EXTENSIONS = [
  '.mp3',
  '.m4a',
  '.aac',
  '.mp4',
  '.m4v',
  '.mov',
  '.webm',
  '.mkv',
  '.ogg',
  '.oga',
  '.opus',
  '.flac',
  '.wav',
] as const;

/** How many leading bytes {@link recordingKind} needs. */
export const RECORDING_HEAD_BYTES = 64;

const ascii = (bytes: Uint8Array, start: number, length: number) =>
  String.fromCharCode(...bytes.subarray(start, start + length));

/**
 * What the first bytes of a file say it is, among the recordings an import takes (a quick look:
 * the decoder's own error is the real check); null for anything else (a PDF, a picture, text).
 *
 * @example
 * recordingKind(new TextEncoder().encode('fLaC\0\0\0\x22')); // 'flac'
 */
export function recordingKind(head: Uint8Array): string | null {
  if (head.length < 4) return null;
  const first4 = ascii(head, 0, 4);
  if (first4 === 'RIFF' && ascii(head, 8, 4) === 'WAVE') return 'wav';
  if (first4 === 'fLaC') return 'flac';
  if (first4 === 'OggS') return 'ogg';
  if (head[0] === 0x1a && head[1] === 0x45 && head[2] === 0xdf && head[3] === 0xa3) return 'webm';
  if (ascii(head, 0, 3) === 'ID3') return 'mp3';
  // ISO media (MP4, M4A, MOV): a box size, then `ftyp` (or an older file's first box).
  if (['ftyp', 'moov', 'mdat', 'wide', 'free', 'skip'].includes(ascii(head, 4, 4))) return 'mp4';
  // MPEG audio frames (MP3) and ADTS (raw AAC): 11 sync bits.
  if (head[0] === 0xff && ((head[1] ?? 0) & 0xe0) === 0xe0) {
    return ((head[1] ?? 0) & 0x06) === 0 ? 'aac' : 'mp3';
  }
  return null;
}

/**
 * Refuses a file that is no recording, naming it and what is taken (400 IMPORT_NOT_RECORDING).
 *
 * @example
 * checkRecording('slides.pdf', head); // throws: "slides.pdf is not a recording…"
 */
export function checkRecording(fileName: string, head: Uint8Array): string {
  const kind = recordingKind(head);
  if (kind) return kind;
  const formats = 'MP3, M4A/AAC, MP4/MOV, WebM, OGG, FLAC, WAV';
  const ending = extname(fileName).toLowerCase();
  const known = (RECORDING_EXTENSIONS as readonly string[]).includes(ending);
  throw new ServerError(
    'IMPORT_NOT_RECORDING',
    localized(
      known
        ? `“${fileName}”的内容不是录音（文件开头不像 ${ending} 文件）：可能已损坏，或只是改了扩展名。`
        : `“${fileName}”不是录音文件。可以导入的格式：${formats}。`,
      known
        ? `"${fileName}" does not hold a recording (its first bytes are not those of a ${ending} file): it may be damaged, or only renamed.`
        : `"${fileName}" is not a recording. Recordings that can be imported: ${formats}.`,
    ),
    { field: 'file' },
  );
}
