/**
 * A class as one zip: the Markdown, the subtitles (SRT), the notes when written and the audio the
 * class kept (`audio.ogg`, as kept: the subtitles' times are positions in it), with a README.txt
 * saying what each file is — and, for a class without audio, that it kept none.
 */
import JSZip from 'jszip';
import { CLASS_FILES } from '../data-folder.ts';
import { type ExportSource, exportClass, exportFilename } from './export-class.ts';

/** The zip's files, the audio's bytes included when there is some. */
export async function exportZip(
  source: ExportSource,
  audio: Uint8Array | null,
): Promise<{ filename: string; contentType: string; body: Uint8Array }> {
  const zip = new JSZip();
  const markdown = exportClass(source, 'md');
  const subtitles = exportClass(source, 'srt');
  zip.file(markdown.filename, markdown.body);
  zip.file(subtitles.filename, subtitles.body);
  if (source.notes !== null) zip.file(CLASS_FILES.notes, source.notes);
  if (audio) zip.file(CLASS_FILES.audio, audio, { compression: 'STORE' });
  const readme = [
    `${markdown.filename}: 课堂记录（标题、提醒、摘要、逐句字幕、笔记） / the class (alerts, summary, every line, notes)`,
    `${subtitles.filename}: 字幕，时间从课堂开始算 / subtitles, times from the start of the class`,
    ...(source.notes !== null ? [`${CLASS_FILES.notes}: 笔记 / the notes`] : []),
    audio
      ? `${CLASS_FILES.audio}: 课堂录音（Ogg Opus，任何播放器都能打开） / the class audio (Ogg Opus, plays in any player)`
      : '这节课没有保存录音（上课时“保存课堂录音”是关闭的，或录音已被删除）。 / This class kept no audio (KEEP_AUDIO was off, or the audio was deleted).',
    '',
  ].join('\r\n');
  zip.file('README.txt', readme);
  const body = await zip.generateAsync({
    type: 'uint8array',
    compression: 'DEFLATE',
    compressionOptions: { level: 6 },
  });
  return {
    filename: exportFilename(source.meta, 'zip'),
    contentType: 'application/zip',
    body,
  };
}
