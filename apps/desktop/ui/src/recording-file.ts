// Which dropped or picked files are recordings the backend imports (by extension, else by MIME
// type), and the course name a recording's class gets unless the student writes another.

/** The extensions of the recordings the backend decodes, as the file picker and messages name them. */
export const RECORDING_EXTENSIONS = [
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
] as const;

/** MIME types of those formats, for a file whose name has no (or an unusual) extension. */
const RECORDING_TYPES: ReadonlySet<string> = new Set([
  'audio/mpeg',
  'audio/mp3',
  'audio/mp4',
  'audio/x-m4a',
  'audio/aac',
  'audio/x-aac',
  'video/mp4',
  'video/quicktime',
  'audio/webm',
  'video/webm',
  'audio/ogg',
  'application/ogg',
  'audio/opus',
  'audio/flac',
  'audio/x-flac',
  'audio/wav',
  'audio/x-wav',
  'audio/wave',
  'audio/vnd.wave',
]);

/** The extension of a file name, lower case with its dot ('' when it has none). */
function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot).toLowerCase() : '';
}

/**
 * True for a file the backend can import as a recording.
 *
 * @example
 * isRecording({ name: 'Lecture 3.M4A', type: '' }); // true
 * isRecording({ name: 'slides.pdf', type: 'application/pdf' }); // false
 */
export function isRecording(file: { name: string; type: string }): boolean {
  const extension = extensionOf(file.name);
  if ((RECORDING_EXTENSIONS as readonly string[]).includes(extension)) return true;
  return RECORDING_TYPES.has(file.type.toLowerCase().split(';')[0]?.trim() ?? '');
}

/**
 * The course name a recording suggests: its file name without the extension.
 *
 * @example
 * courseFromFile('数据结构 第3讲.mp4'); // '数据结构 第3讲'
 */
export function courseFromFile(name: string): string {
  const extension = extensionOf(name);
  return (extension ? name.slice(0, -extension.length) : name).trim();
}

/** The formats as a student reads them: "MP3, M4A, …, WAV". */
export function recordingFormats(): string {
  return RECORDING_EXTENSIONS.map((extension) => extension.slice(1).toUpperCase()).join(', ');
}
