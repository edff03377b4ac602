// How an answer's sources read: the span of transcript it covers and the material pages it used,
// in the UI's language. No DOM: tested without a browser.
import type { Lang } from './i18n.ts';
import type { AnswerSources } from './types.ts';

/** `HH:MM` of a `HH:MM:SS` time (a span reads in minutes; each line keeps its seconds). */
export function minutes(time: string): string {
  const match = /^(\d{1,2}):(\d{2})(?::\d{2})?$/.exec(time);
  return match ? `${match[1]!.padStart(2, '0')}:${match[2]}` : time;
}

/**
 * Page numbers as ranges: `[3, 4, 5, 8]` → `3–5、8` in Chinese, `3–5, 8` in English.
 *
 * @example
 * pageRanges([1, 2, 3, 7], 'en'); // '1–3, 7'
 */
export function pageRanges(pages: readonly number[], lang: Lang): string {
  const sorted = [...new Set(pages)].sort((a, b) => a - b);
  const ranges: string[] = [];
  let start: number | undefined;
  let previous: number | undefined;
  const close = () => {
    if (start === undefined || previous === undefined) return;
    ranges.push(start === previous ? String(start) : `${start}–${previous}`);
  };
  for (const page of sorted) {
    if (previous !== undefined && page === previous + 1) {
      previous = page;
      continue;
    }
    close();
    start = page;
    previous = page;
  }
  close();
  return ranges.join(lang === 'zh' ? '、' : ', ');
}

/** The lines to show first: the cited ones in the model's order (the question first). */
export function citedLines(sources: AnswerSources): AnswerSources['lines'] {
  const byId = new Map(sources.lines.map((line) => [line.id, line]));
  return sources.cited.flatMap((id) => {
    const line = byId.get(id);
    return line ? [line] : [];
  });
}
