// The marked moments of a class as the last section of its notes: written by the backend, not
// the LLM, so every mark is there exactly as it was made.
import type { ClassMark } from '../events/live-events.ts';

/** Markdown's special characters in a transcript line, escaped so that the line reads as text. */
function plain(text: string): string {
  return text.replace(/\s+/g, ' ').replace(/[\\`*_[\]<>#|]/g, '\\$&');
}

/**
 * The notes with a "★ 标记 / Marked moments" section added: each mark's line time and text (and
 * its note), in the order of the class. The notes as they are without marks.
 *
 * @example
 * withMarks('# 笔记', [{ line_id: 3, timestamp: '10:42:13', text: '这里要考', note: '', marked_at: '…' }])
 * // '# 笔记\n\n## ★ 标记 / Marked moments\n\n- **10:42:13** 这里要考\n'
 */
export function withMarks(notes: string, marks: readonly ClassMark[]): string {
  if (marks.length === 0) return notes;
  const items = [...marks]
    .sort((a, b) => a.line_id - b.line_id)
    .map((mark) => {
      const time = mark.timestamp === '' ? '' : `**${mark.timestamp}** `;
      const note = mark.note === '' ? '' : ` — ${plain(mark.note)}`;
      return `- ${time}${plain(mark.text)}${note}`;
    });
  return `${notes.trimEnd()}\n\n## ★ 标记 / Marked moments\n\n${items.join('\n')}\n`;
}
