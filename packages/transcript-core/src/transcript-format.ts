// The transcript file format (see the package README, "File format"): optional header lines, an
// optional history-summary block between the exact markers, then one `[HH:MM:SS] text` line per
// entry. Parsing is lenient so that files written by hand or by the product this one replaces
// read correctly: header and decoration lines, entries without timestamps, a block in the
// middle, a block missing its end marker, CRLF line ends, a byte-order mark. Pure functions.
import { TranscriptCoreError } from './errors.ts';

/** The line that opens the history-summary block, exactly. */
export const SUMMARY_START_MARKER = '=== 历史摘要 开始 ===';
/** The line that closes the history-summary block, exactly. */
export const SUMMARY_END_MARKER = '=== 历史摘要 结束 ===';

/**
 * One transcript entry: its id, its clock time `HH:MM:SS` (`null` when the line had none) and
 * text. The id is the entry's 1-based position in its class, counting the entries folded into
 * the history summary before it: it never changes when older entries are folded, and the next
 * entry gets the next number.
 */
export interface TranscriptEntry {
  id: number;
  time: string | null;
  text: string;
}

/** What an entry line holds: an entry without its id. */
export type TranscriptLineContent = Pick<TranscriptEntry, 'time' | 'text'>;

/** What the header lines say, when present (the format of the product this one replaces). */
export interface TranscriptHeader {
  /** `YYYY-MM-DD HH:MM:SS` from a `=== 课堂记录 开始于 … ===` line. */
  startedAt: string | null;
  /** From a `课程：…` line. */
  courseName: string | null;
  /** From a `参考资料：…` line. */
  materialName: string | null;
  /**
   * How many entries of the class were folded into the history summary, from a
   * `=== 已折叠 N 条 ===` line (0 without one): the first entry in the file has id N + 1.
   */
  foldedCount: number;
}

/** A parsed transcript file. */
export interface TranscriptDocument {
  header: TranscriptHeader;
  /** The non-blank lines before the first entry or block that are not entries, verbatim. */
  headerLines: string[];
  /** The history summary ('' when the file has no block; several blocks are joined). */
  summary: string;
  /** The real entries in file order, summary block excluded. */
  entries: TranscriptEntry[];
}

/** Which of the last entries {@link selectRecent} returns. */
export type RecentQuery = { minutes: number } | { count: number };

const ENTRY_LINE = /^\[(\d{1,2}):(\d{2}):(\d{2})\]\s*(.*)$/u;
const STARTED_AT_LINE =
  /^===\s*课堂记录\s*开始于\s*(\d{4}-\d{2}-\d{2})\s+(\d{1,2}:\d{2}:\d{2})\s*===$/u;
const COURSE_LINE = /^课程[：:]\s*(.*)$/u;
const MATERIAL_LINE = /^参考资料[：:]\s*(.*)$/u;
const FOLDED_LINE = /^===\s*已折叠\s*(\d{1,15})\s*条\s*===$/u;
const DECORATION_LINE = /^===.*===$/u;

/**
 * The header line recording how many entries were folded (`=== 已折叠 120 条 ===`, "120 entries
 * folded"), so that entry ids stay the same after a fold and across restarts. Like every other
 * `=== … ===` line, readers that do not know it skip it.
 */
export function formatFoldedLine(count: number): string {
  return `=== 已折叠 ${count} 条 ===`;
}

/** True for a {@link formatFoldedLine} line. */
export function isFoldedLine(line: string): boolean {
  return FOLDED_LINE.test(line.trim());
}

/** A classified line; `index` is the line's 0-based number in the file. */
export type TranscriptLine =
  | { kind: 'entry'; index: number; entry: TranscriptLineContent }
  | { kind: 'header'; index: number; text: string }
  | { kind: 'summary'; index: number; text: string }
  | { kind: 'marker' | 'decoration' | 'blank'; index: number };

/** Splits file content into lines (`\n`, `\r\n` or `\r`), dropping a leading byte-order mark. */
function splitLines(content: string): string[] {
  const lines = content.replace(/^\uFEFF/u, '').split(/\r\n|\n|\r/u);
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/**
 * Parses an entry line `[H:MM:SS] text`; `null` when the line is not one. Hours run past 23: a
 * position in a recording longer than a day (`[25:03:10]`).
 */
function parseEntryLine(line: string): TranscriptLineContent | null {
  const match = ENTRY_LINE.exec(line.trim());
  if (!match) return null;
  const [, hours, minutes, seconds, text] = match;
  if (Number(minutes) > 59 || Number(seconds) > 59) return null;
  return { time: `${hours!.padStart(2, '0')}:${minutes}:${seconds}`, text: text!.trim() };
}

/**
 * Classifies every line of a transcript. Exposed for the store, which needs line positions;
 * most callers want {@link parseTranscript}.
 */
export function classifyLines(lines: readonly string[]): TranscriptLine[] {
  const trimmed = lines.map((line) => line.trim());
  // Blocks first: a start marker runs to the next end marker; without one, to the first
  // entry-like line (a block never swallows the entries after it).
  const inBlock = new Array<boolean>(lines.length).fill(false);
  const isMarker = new Array<boolean>(lines.length).fill(false);
  for (let index = 0; index < lines.length; index += 1) {
    if (trimmed[index] !== SUMMARY_START_MARKER) continue;
    isMarker[index] = true;
    let end = trimmed.indexOf(SUMMARY_END_MARKER, index + 1);
    const nextStart = trimmed.indexOf(SUMMARY_START_MARKER, index + 1);
    if (end !== -1 && nextStart !== -1 && nextStart < end) end = -1;
    if (end === -1) {
      end = index + 1;
      while (
        end < lines.length &&
        parseEntryLine(lines[end]!) === null &&
        trimmed[end] !== SUMMARY_START_MARKER
      ) {
        end += 1;
      }
      for (let inside = index + 1; inside < end; inside += 1) inBlock[inside] = true;
      index = end - 1;
    } else {
      isMarker[end] = true;
      for (let inside = index + 1; inside < end; inside += 1) inBlock[inside] = true;
      index = end;
    }
  }

  const result: TranscriptLine[] = [];
  let beforeContent = true;
  for (let index = 0; index < lines.length; index += 1) {
    const text = trimmed[index]!;
    if (isMarker[index]) {
      beforeContent = false;
      result.push({ kind: 'marker', index });
      continue;
    }
    if (inBlock[index]) {
      result.push({ kind: 'summary', index, text: lines[index]!.trimEnd() });
      continue;
    }
    if (text === '') {
      result.push({ kind: 'blank', index });
      continue;
    }
    const entry = parseEntryLine(text);
    if (entry) {
      beforeContent = false;
      if (entry.text === '') result.push({ kind: 'blank', index });
      else result.push({ kind: 'entry', index, entry });
      continue;
    }
    if (text === SUMMARY_END_MARKER || DECORATION_LINE.test(text)) {
      result.push(beforeContent ? { kind: 'header', index, text } : { kind: 'decoration', index });
      continue;
    }
    if (beforeContent && (COURSE_LINE.test(text) || MATERIAL_LINE.test(text))) {
      result.push({ kind: 'header', index, text });
      continue;
    }
    beforeContent = false;
    result.push({ kind: 'entry', index, entry: { time: null, text } });
  }
  return result;
}

/** Builds the document from classified lines (see {@link classifyLines}). */
export function documentFromLines(classified: readonly TranscriptLine[]): TranscriptDocument {
  const header: TranscriptHeader = {
    startedAt: null,
    courseName: null,
    materialName: null,
    foldedCount: 0,
  };
  const headerLines: string[] = [];
  const summaryParts: string[][] = [];
  const contents: TranscriptLineContent[] = [];
  let currentBlock: string[] | null = null;
  for (const line of classified) {
    if (line.kind === 'marker') {
      currentBlock = null;
      continue;
    }
    if (line.kind === 'summary') {
      if (!currentBlock) {
        currentBlock = [];
        summaryParts.push(currentBlock);
      }
      currentBlock.push(line.text);
      continue;
    }
    currentBlock = null;
    if (line.kind === 'entry') contents.push(line.entry);
    else if (line.kind === 'header') {
      headerLines.push(line.text);
      const started = STARTED_AT_LINE.exec(line.text);
      const course = COURSE_LINE.exec(line.text);
      const material = MATERIAL_LINE.exec(line.text);
      const folded = FOLDED_LINE.exec(line.text);
      if (started) header.startedAt = `${started[1]} ${started[2]!.padStart(8, '0')}`;
      else if (course) header.courseName = course[1]!.trim();
      else if (material) header.materialName = material[1]!.trim();
      else if (folded) header.foldedCount = Number(folded[1]);
    }
  }
  const entries = contents.map((content, position) => ({
    id: header.foldedCount + position + 1,
    ...content,
  }));
  const summary = summaryParts
    .map((part) => part.join('\n').trim())
    .filter(Boolean)
    .join('\n');
  return { header, headerLines, summary, entries };
}

/**
 * Parses transcript file content. Never throws: every line is either an entry (with or without
 * a timestamp), part of the summary, or a header/decoration line.
 *
 * @example
 * parseTranscript('=== 历史摘要 开始 ===\n讲了矩阵\n=== 历史摘要 结束 ===\n[10:00:01] 今天讲秩\n')
 * // { summary: '讲了矩阵', entries: [{ time: '10:00:01', text: '今天讲秩' }], … }
 */
export function parseTranscript(content: string): TranscriptDocument {
  return documentFromLines(classifyLines(splitLines(content)));
}

/** `[HH:MM:SS] text`, or the bare text for an entry without a time. No line break. */
export function formatEntryLine(entry: TranscriptLineContent): string {
  return entry.time === null ? entry.text : `[${entry.time}] ${entry.text}`;
}

/**
 * Entries as transcript lines joined by `\n` — the text an LLM prompt or the UI wants.
 *
 * @example
 * formatEntries(await store.readRecent({ minutes: 2 }))
 * // '[10:00:01] 今天讲秩\n[10:00:05] 张三你来回答'
 */
export function formatEntries(entries: readonly TranscriptLineContent[]): string {
  return entries.map(formatEntryLine).join('\n');
}

/** Makes a summary safe to store between the markers: no marker lines, no CR, trimmed. */
export function sanitizeSummary(summary: string): string {
  return splitLines(summary)
    .map((line) => {
      const trimmed = line.trim();
      return trimmed === SUMMARY_START_MARKER || trimmed === SUMMARY_END_MARKER
        ? line.replace('===', '==')
        : line.trimEnd();
    })
    .join('\n')
    .trim();
}

/** The summary block lines (markers included), or '' for an empty summary. */
export function formatSummaryBlock(summary: string): string {
  const clean = sanitizeSummary(summary);
  return clean === '' ? '' : `${SUMMARY_START_MARKER}\n${clean}\n${SUMMARY_END_MARKER}\n`;
}

/**
 * Formats a whole document: header lines, a blank line, the summary block, the entries; each
 * line ends with `\n`. `parseTranscript(formatTranscript(doc))` gives `doc` back.
 */
export function formatTranscript(document: TranscriptDocument): string {
  let content = '';
  if (document.headerLines.length > 0) content += `${document.headerLines.join('\n')}\n\n`;
  content += formatSummaryBlock(document.summary);
  for (const entry of document.entries) content += `${formatEntryLine(entry)}\n`;
  return content;
}

const pad = (value: number) => String(value).padStart(2, '0');

/** Local clock time of `date` as `HH:MM:SS`. */
export function formatClockTime(date: Date): string {
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

/** Local date and time of `date` as `YYYY-MM-DD HH:MM:SS`. */
function formatDateTime(date: Date): string {
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${formatClockTime(date)}`;
}

/** Header lines for a new class, in the format of the product this one replaces. */
export function formatHeaderLines(
  startedAt: Date,
  header: { courseName?: string; materialName?: string } = {},
): string[] {
  const lines = [`=== 课堂记录 开始于 ${formatDateTime(startedAt)} ===`];
  const course = header.courseName?.replace(/\s+/gu, ' ').trim();
  const material = header.materialName?.replace(/\s+/gu, ' ').trim();
  if (course) lines.push(`课程：${course}`);
  if (material) lines.push(`参考资料：${material}`);
  return lines;
}

/** Checks a {@link RecentQuery}; throws `TRANSCRIPT_INVALID_ARGUMENT` naming what is wrong. */
export function checkRecentQuery(query: RecentQuery): void {
  const record = query as { minutes?: unknown; count?: unknown } | null;
  const hasMinutes = record !== null && typeof record === 'object' && 'minutes' in record;
  const hasCount = record !== null && typeof record === 'object' && 'count' in record;
  if (hasMinutes === hasCount) {
    throw new TranscriptCoreError(
      'TRANSCRIPT_INVALID_ARGUMENT',
      `readRecent: pass exactly one of { minutes } or { count }, got ${JSON.stringify(query)}`,
    );
  }
  if (
    hasMinutes &&
    !(typeof record.minutes === 'number' && Number.isFinite(record.minutes) && record.minutes >= 0)
  ) {
    throw new TranscriptCoreError(
      'TRANSCRIPT_INVALID_ARGUMENT',
      `readRecent: minutes must be a number ≥ 0, got ${String(record.minutes)}`,
    );
  }
  if (
    hasCount &&
    !(typeof record.count === 'number' && Number.isInteger(record.count) && record.count >= 0)
  ) {
    throw new TranscriptCoreError(
      'TRANSCRIPT_INVALID_ARGUMENT',
      `readRecent: count must be an integer ≥ 0, got ${String(record.count)}`,
    );
  }
}

const secondsOf = (time: string) => {
  const [hours, minutes, seconds] = time.split(':').map(Number);
  return hours! * 3600 + minutes! * 60 + seconds!;
};
const atDay = (day: Date, dayOffset: number, time: string) => {
  const [hours, minutes, seconds] = time.split(':').map(Number);
  return new Date(
    day.getFullYear(),
    day.getMonth(),
    day.getDate() + dayOffset,
    hours,
    minutes,
    seconds,
  ).getTime();
};
// Timestamps carry no date. A step back of more than an hour is taken as midnight passing;
// smaller steps back (clock adjustments, hand edits) stay on the same day.
const ROLLOVER_SECONDS = 3600;
// The newest entry may be slightly ahead of `now` (clock skew between writer and reader).
const FUTURE_TOLERANCE_MS = 5 * 60_000;

/**
 * Absolute times (epoch ms) of the entries' clock times. With a header start time, dates run
 * forward from it; without one, backwards from the newest entry, taken as its latest
 * occurrence not after `now`. Entries without a time take the time of the entry before them
 * (or the first timed entry); `null` when the document has no timed entry at all.
 */
function resolveEntryTimes(
  entries: readonly TranscriptLineContent[],
  startedAt: string | null,
  now: Date,
): Array<number | null> {
  const result = new Array<number | null>(entries.length).fill(null);
  const timed = entries
    .map((entry, index) => ({ entry, index }))
    .filter(({ entry }) => entry.time !== null);
  if (timed.length === 0) return result;
  const started = startedAt
    ? /^(\d{4})-(\d{2})-(\d{2}) (\d{2}:\d{2}:\d{2})$/u.exec(startedAt)
    : null;
  if (started) {
    const day = new Date(Number(started[1]), Number(started[2]) - 1, Number(started[3]));
    let dayOffset = 0;
    let previous = secondsOf(started[4]!);
    for (const { entry, index } of timed) {
      const seconds = secondsOf(entry.time!);
      if (seconds < previous - ROLLOVER_SECONDS) dayOffset += 1;
      previous = seconds;
      result[index] = atDay(day, dayOffset, entry.time!);
    }
  } else {
    const last = timed[timed.length - 1]!;
    let dayOffset = 0;
    if (atDay(now, 0, last.entry.time!) > now.getTime() + FUTURE_TOLERANCE_MS) dayOffset = -1;
    let next = secondsOf(last.entry.time!);
    for (let position = timed.length - 1; position >= 0; position -= 1) {
      const { entry, index } = timed[position]!;
      const seconds = secondsOf(entry.time!);
      if (seconds > next + ROLLOVER_SECONDS) dayOffset -= 1;
      next = seconds;
      result[index] = atDay(now, dayOffset, entry.time!);
    }
  }
  let carried: number | null = result[timed[0]!.index]!;
  for (let index = 0; index < entries.length; index += 1) {
    if (result[index] === null) result[index] = carried;
    else carried = result[index]!;
  }
  return result;
}

/**
 * The recent real entries of a document (the summary block is never included): the last
 * `count` entries, or those of the last `minutes` minutes before `now` (see
 * {@link resolveEntryTimes} for how dates and midnight are handled; a document without any
 * timestamp returns every entry, as the product this one replaces did).
 *
 * @throws TranscriptCoreError `TRANSCRIPT_INVALID_ARGUMENT` for a malformed query.
 */
export function selectRecent<Entry extends TranscriptLineContent>(
  document: { entries: readonly Entry[]; header: Pick<TranscriptHeader, 'startedAt'> },
  query: RecentQuery,
  now: Date,
): Entry[] {
  checkRecentQuery(query);
  const { entries } = document;
  if ('count' in query) {
    return query.count === 0 ? [] : entries.slice(-query.count).map((entry) => ({ ...entry }));
  }
  const times = resolveEntryTimes(entries, document.header.startedAt, now);
  const cutoff = now.getTime() - query.minutes * 60_000;
  let first = entries.length;
  while (first > 0) {
    const time = times[first - 1];
    if (time !== null && time !== undefined && time < cutoff) break;
    first -= 1;
  }
  return entries.slice(first).map((entry) => ({ ...entry }));
}
