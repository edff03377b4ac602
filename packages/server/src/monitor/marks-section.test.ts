import { describe, expect, it } from 'vitest';
import type { ClassMark } from '../events/live-events.ts';
import { withMarks } from './marks-section.ts';

const mark = (line_id: number, timestamp: string, text: string, note = ''): ClassMark => ({
  line_id,
  timestamp,
  text,
  note,
  marked_at: '2026-11-27T02:42:13.000Z',
});

describe('withMarks', () => {
  it('leaves notes without marks as they are', () => {
    expect(withMarks('# 笔记\n', [])).toBe('# 笔记\n');
  });

  it('lists the marks in the order of the class, with their time, text and note', () => {
    expect(
      withMarks('# 笔记\n\n- 要点\n', [
        mark(9, '10:45:00', '作业周五交', '别忘了'),
        mark(3, '10:42:13', '这里要考'),
      ]),
    ).toBe(
      '# 笔记\n\n- 要点\n\n## ★ 标记 / Marked moments\n\n- **10:42:13** 这里要考\n- **10:45:00** 作业周五交 — 别忘了\n',
    );
  });

  it('keeps a line that looks like Markdown as plain text', () => {
    expect(withMarks('', [mark(1, '', '# not a *title* <b>')])).toBe(
      '\n\n## ★ 标记 / Marked moments\n\n- \\# not a \\*title\\* \\<b\\>\n',
    );
  });
});
