import { parseTranscript } from '@class-assistant/transcript-core';
import { describe, expect, it } from 'vitest';
import type { ClassMeta } from './class-folder.ts';
import { exportClass, exportFilename } from './export-class.ts';

const transcriptText = [
  '=== 课堂记录 开始于 2026-03-09 23:58:00 ===',
  '课程：数据结构',
  '',
  '=== 历史摘要 开始 ===',
  '讲了链表。',
  '=== 历史摘要 结束 ===',
  '[23:58:05] 同学们好',
  '[23:58:09] 张三你来回答*一下*',
  '手写补充的一行',
  '[00:01:00] 过了午夜',
  '',
].join('\n');

const meta: ClassMeta = {
  id: '20260309-235800-abcd',
  course_name: '数据结构',
  material_name: 'ch4.txt',
  started_at: new Date(2026, 2, 9, 23, 58, 0).toISOString(),
  ended_at: new Date(2026, 2, 10, 0, 2, 0).toISOString(),
  line_count: 4,
  alerts: [
    {
      line_id: 2,
      level: 'danger',
      keywords: ['回答', '张三'],
      text: '张三你来回答*一下*',
      timestamp: '23:58:09',
    },
  ],
  notes_file: 'notes.md',
  material_file: null,
};

const source = {
  meta,
  transcript: parseTranscript(transcriptText),
  transcriptText,
  notes: '# 笔记\n\n链表。\n',
};

describe('exportClass', () => {
  it('writes Markdown with headings, the alert marked on its line, the summary and the notes', () => {
    const file = exportClass(source, 'md');
    expect(file.contentType).toBe('text/markdown; charset=utf-8');
    expect(file.body).toBe(
      [
        '# 数据结构 · 2026-03-09 23:58',
        '',
        '- 开始 (started): 2026-03-09 23:58',
        '- 结束 (ended): 2026-03-10 00:02',
        '- 资料 (material): ch4.txt',
        '- 行数 (lines): 4',
        '- 提醒 (alerts): 1',
        '',
        '## 提醒 (Alerts)',
        '',
        '- 🔴 提醒 [23:58:09] **回答、张三** — 张三你来回答\\*一下\\* (#2)',
        '',
        '## 历史摘要 (History summary)',
        '',
        '讲了链表。',
        '',
        '## 课堂记录 (Transcript)',
        '',
        '- **[23:58:05]** 同学们好',
        '- **[23:58:09]** 🔴 **张三你来回答\\*一下\\*** _(回答、张三)_',
        '- 手写补充的一行',
        '- **[00:01:00]** 过了午夜',
        '',
        '## 笔记 (Notes)',
        '',
        '# 笔记\n\n链表。',
        '',
      ].join('\n'),
    );
  });

  it('gives the transcript file as kept for txt', () => {
    expect(exportClass(source, 'txt')).toMatchObject({
      body: transcriptText,
      contentType: 'text/plain; charset=utf-8',
      filename: '数据结构_20260309-235800-abcd.txt',
    });
  });

  it('writes subtitles timed from the start of the class, across midnight', () => {
    expect(exportClass(source, 'srt').body).toBe(
      [
        '1\n00:00:05,000 --> 00:00:09,000\n同学们好\n',
        '2\n00:00:09,000 --> 00:00:13,000\n张三你来回答*一下*\n',
        '3\n00:00:09,000 --> 00:00:17,000\n手写补充的一行\n',
        '4\n00:03:00,000 --> 00:03:04,000\n过了午夜\n',
      ].join('\n'),
    );
  });

  it("times a recording's subtitles by the positions its lines carry, past a day too", () => {
    // Started at 23:58 by the clock, and the lines are positions in the file: not counted from
    // the clock, and no midnight.
    const recorded = [
      '=== 课堂记录 开始于 2026-03-09 23:58:00 ===',
      '[00:00:02] 同学们好',
      '[00:00:14] 今天讲链表',
      '[25:03:10] 最后一句',
      '',
    ].join('\n');
    const recording = {
      meta: {
        ...meta,
        alerts: [],
        material_name: '',
        source: { kind: 'recording' as const, file_name: 'lecture.mp3', duration_ms: 90_200_000 },
      },
      transcript: parseTranscript(recorded),
      transcriptText: recorded,
      notes: null,
    };
    expect(exportClass(recording, 'srt').body).toBe(
      [
        '1\n00:00:02,000 --> 00:00:10,000\n同学们好\n',
        '2\n00:00:14,000 --> 00:00:22,000\n今天讲链表\n',
        '3\n25:03:10,000 --> 25:03:14,000\n最后一句\n',
      ].join('\n'),
    );
    const markdown = exportClass(recording, 'md').body;
    expect(markdown).toContain('- 录音 (recording): lecture.mp3 · 25:03:20\n');
    expect(markdown).toContain('- **[00:00:14]** 今天讲链表\n- **[25:03:10]** 最后一句\n');
    expect(exportClass(recording, 'txt').body).toBe(recorded);
  });

  it('puts each line’s translation under it (Markdown) and as a second subtitle line (SRT)', () => {
    const translated = {
      ...source,
      extras: new Map([[1, { page: null, translation: 'Hello, everyone', audio_ms: null }]]),
    };
    expect(exportClass(translated, 'md').body).toContain(
      '- **[23:58:05]** 同学们好\n  > Hello, everyone\n- **[23:58:09]** 🔴',
    );
    expect(exportClass(translated, 'srt').body).toContain(
      '1\n00:00:05,000 --> 00:00:09,000\n同学们好\nHello, everyone\n\n2\n',
    );
    expect(exportClass(translated, 'txt').body).toBe(transcriptText);
  });

  it('names files after the course without characters file systems refuse', () => {
    expect(exportFilename({ ...meta, course_name: 'C/C++: 基础?' }, 'md')).toBe(
      'CC++ 基础_20260309-235800-abcd.md',
    );
    expect(exportFilename({ ...meta, course_name: '' }, 'srt')).toBe(
      '课堂记录_20260309-235800-abcd.srt',
    );
  });
});
