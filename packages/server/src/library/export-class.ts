// A class taken out of the library: Markdown (headings, alerts marked, translations, notes),
// the plain transcript, or subtitles (SRT, a translation as a cue's second line) with times
// counted from the start of the class — for a class transcribed from a recording, the positions
// in the recording its lines carry.
import type { TranscriptDocument } from '@class-assistant/transcript-core';
import type { LineExtras } from '../events/live-events.ts';
import type { ClassAlert, ClassMeta } from './class-folder.ts';

/** Export formats (`zip`: the Markdown, subtitles, notes and kept audio together). */
export const EXPORT_FORMATS = ['md', 'txt', 'srt', 'zip'] as const;
/** An export format. */
export type ExportFormat = (typeof EXPORT_FORMATS)[number];
/** The formats that are one text file. */
type TextFormat = Exclude<ExportFormat, 'zip'>;

/** What an export is made of. */
export interface ExportSource {
  meta: ClassMeta;
  transcript: TranscriptDocument;
  /** The transcript file exactly as stored (for `txt`). */
  transcriptText: string;
  notes: string | null;
  /** Each line's extras: its translation goes under it (Markdown) or as a second subtitle line. */
  extras?: ReadonlyMap<number, LineExtras>;
}

/** A finished export: a file to download. */
export interface ExportedFile {
  filename: string;
  contentType: string;
  body: string | Uint8Array;
}

const CONTENT_TYPES: Record<TextFormat, string> = {
  md: 'text/markdown; charset=utf-8',
  txt: 'text/plain; charset=utf-8',
  srt: 'application/x-subrip; charset=utf-8',
};

/** Local `YYYY-MM-DD HH:MM` of an ISO time ('' when not a time). */
function localMinute(iso: string | null): string {
  if (!iso) return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** A name for the downloaded file: course and date, without characters file systems refuse. */
export function exportFilename(meta: ClassMeta, format: ExportFormat): string {
  const course = meta.course_name.replace(/[\p{Cc}<>:"/\\|?*]/gu, '').trim() || '课堂记录';
  return `${course}_${meta.id}.${format}`;
}

/**
 * Builds the export of a class in one of {@link EXPORT_FORMATS}.
 *
 * @example
 * exportClass(source, 'srt').body // '1\n00:00:05,000 --> 00:00:09,000\n同学们好\n\n2\n…'
 */
export function exportClass(
  source: ExportSource,
  format: TextFormat,
): { filename: string; contentType: string; body: string } {
  const body =
    format === 'md'
      ? toMarkdown(source)
      : format === 'srt'
        ? toSubtitles(source)
        : source.transcriptText;
  return {
    filename: exportFilename(source.meta, format),
    contentType: CONTENT_TYPES[format],
    body,
  };
}

// A line can only start a Markdown block by accident: escape what would.
function markdownText(text: string): string {
  return text.replace(/([\\`*_[\]<>#|])/g, '\\$1');
}

function toMarkdown({ meta, transcript, notes, extras }: ExportSource): string {
  const alertsByLine = new Map<number, ClassAlert[]>();
  for (const alert of meta.alerts) {
    alertsByLine.set(alert.line_id, [...(alertsByLine.get(alert.line_id) ?? []), alert]);
  }
  const title = meta.course_name || '课堂记录';
  const out: string[] = [`# ${markdownText(title)} · ${localMinute(meta.started_at)}`, ''];
  const facts = [
    `- 开始 (started): ${localMinute(meta.started_at)}`,
    `- 结束 (ended): ${localMinute(meta.ended_at) || '进行中 (running)'}`,
    `- 行数 (lines): ${transcript.entries.length}`,
    `- 提醒 (alerts): ${meta.alerts.length}`,
  ];
  if (meta.material_name)
    facts.splice(2, 0, `- 资料 (material): ${markdownText(meta.material_name)}`);
  if (meta.source?.kind === 'recording') {
    const length =
      meta.source.duration_ms === null ? '' : ` · ${clockLength(meta.source.duration_ms)}`;
    facts.splice(2, 0, `- 录音 (recording): ${markdownText(meta.source.file_name)}${length}`);
  }
  out.push(...facts, '');
  if (meta.alerts.length > 0) {
    out.push('## 提醒 (Alerts)', '');
    for (const alert of meta.alerts) {
      const level = alert.level === 'danger' ? '🔴 提醒' : '🟡 注意';
      out.push(
        `- ${level} [${alert.timestamp}] **${markdownText(alert.keywords.join('、'))}** — ${markdownText(alert.text)} (#${alert.line_id})`,
      );
    }
    out.push('');
  }
  if (transcript.summary.trim() !== '') {
    out.push('## 历史摘要 (History summary)', '', transcript.summary.trim(), '');
  }
  out.push('## 课堂记录 (Transcript)', '');
  for (const entry of transcript.entries) {
    const time = entry.time ? `**[${entry.time}]** ` : '';
    const alerts = alertsByLine.get(entry.id);
    if (alerts) {
      const keywords = [...new Set(alerts.flatMap((alert) => alert.keywords))].join('、');
      const level = alerts.some((alert) => alert.level === 'danger') ? '🔴' : '🟡';
      out.push(`- ${time}${level} **${markdownText(entry.text)}** _(${markdownText(keywords)})_`);
    } else {
      out.push(`- ${time}${markdownText(entry.text)}`);
    }
    const translation = extras?.get(entry.id)?.translation;
    if (translation) out.push(`  > ${markdownText(translation)}`);
  }
  out.push('');
  if (notes && notes.trim() !== '') out.push('## 笔记 (Notes)', '', notes.trim(), '');
  return out.join('\n');
}

const secondsOfDay = (time: string) => {
  const [hours, minutes, seconds] = time.split(':').map(Number);
  return hours! * 3600 + minutes! * 60 + seconds!;
};

/** `H:MM:SS` of a length in ms (`1:02:13`). */
function clockLength(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  return `${Math.floor(seconds / 3600)}:${String(Math.floor(seconds / 60) % 60).padStart(2, '0')}:${String(seconds % 60).padStart(2, '0')}`;
}

/**
 * Seconds since the class started of each entry (clock times carry no date: midnight rolls
 * over). A recording's lines carry positions in it: those are the times, from 0.
 */
function relativeSeconds(meta: ClassMeta, transcript: TranscriptDocument): number[] {
  if (meta.source?.kind === 'recording') {
    let last = 0;
    return transcript.entries.map((entry) => {
      if (entry.time) last = secondsOfDay(entry.time);
      return last;
    });
  }
  const start = new Date(meta.started_at);
  const firstTime = transcript.entries.find((entry) => entry.time)?.time;
  const origin = !Number.isNaN(start.getTime())
    ? start.getHours() * 3600 + start.getMinutes() * 60 + start.getSeconds()
    : firstTime
      ? secondsOfDay(firstTime)
      : 0;
  const result: number[] = [];
  let previous = origin;
  let day = 0;
  let last = 0;
  for (const entry of transcript.entries) {
    if (entry.time) {
      const seconds = secondsOfDay(entry.time);
      // A step back of more than an hour is midnight passing (as in transcript-core).
      if (seconds < previous - 3600) day += 1;
      previous = seconds;
      last = Math.max(0, day * 86_400 + seconds - origin);
    }
    result.push(last);
  }
  return result;
}

function srtTime(seconds: number): string {
  const pad = (value: number, width = 2) => String(value).padStart(width, '0');
  const whole = Math.floor(seconds);
  return `${pad(Math.floor(whole / 3600))}:${pad(Math.floor(whole / 60) % 60)}:${pad(whole % 60)},${pad(Math.round((seconds - whole) * 1000), 3)}`;
}

/** Longest a subtitle stays up when the next line comes much later. */
const MAX_CUE_SECONDS = 8;

function toSubtitles({ meta, transcript, extras }: ExportSource): string {
  const starts = relativeSeconds(meta, transcript);
  const cues: string[] = [];
  transcript.entries.forEach((entry, index) => {
    const start = starts[index]!;
    const next = starts[index + 1];
    const end =
      next !== undefined && next > start ? Math.min(next, start + MAX_CUE_SECONDS) : start + 4;
    const translation = extras?.get(entry.id)?.translation;
    const text = translation ? `${entry.text}\n${translation}` : entry.text;
    cues.push(`${cues.length + 1}\n${srtTime(start)} --> ${srtTime(end)}\n${text}\n`);
  });
  return cues.join('\n');
}
