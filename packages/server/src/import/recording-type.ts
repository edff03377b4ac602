import { extname } from 'node:path';
import {
  ACCEPTED_RECORDINGS,
  detectRecordingFormat,
  RECORDING_EXTENSIONS,
} from '../audio/recording-format.ts';
import { ServerError } from '../errors.ts';
import { localized } from '../language.ts';

/** How many leading bytes {@link recordingKind} needs (an Ogg page header with its segment table). */
export const RECORDING_HEAD_BYTES = 4096;

/**
 * What the first bytes of a file say it is, among the recordings an import takes (a quick look:
 * the decoder's own error is the real check); null for anything else (a PDF, a picture, text).
 *
 * @example
 * recordingKind(new TextEncoder().encode('fLaC\0\0\0\x22\0\0\0\0')); // 'flac'
 */
export function recordingKind(head: Uint8Array): string | null {
  const format = detectRecordingFormat(head);
  return 'codec' in format ? format.codec : null;
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
  const formats = ACCEPTED_RECORDINGS;
  const ending = extname(fileName).toLowerCase();
  const known = RECORDING_EXTENSIONS.includes(ending);
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
