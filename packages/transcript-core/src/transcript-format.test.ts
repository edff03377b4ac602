import { fc, test as property } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import {
  formatEntries,
  formatFoldedLine,
  formatTranscript,
  parseTranscript,
  SUMMARY_END_MARKER,
  SUMMARY_START_MARKER,
  sanitizeSummary,
  selectRecent,
  type TranscriptDocument,
} from './transcript-format.ts';

describe('parseTranscript', () => {
  it('reads the summary block and the entries, in our format', () => {
    const document = parseTranscript(
      [
        SUMMARY_START_MARKER,
        '前面讲了矩阵的定义。',
        'Covered the definition of a matrix.',
        SUMMARY_END_MARKER,
        '[10:00:01] 今天讲矩阵的秩。',
        '[10:00:05] Who can tell me the rank?',
        '',
      ].join('\n'),
    );
    expect(document.summary).toBe('前面讲了矩阵的定义。\nCovered the definition of a matrix.');
    expect(document.entries).toEqual([
      { id: 1, time: '10:00:01', text: '今天讲矩阵的秩。' },
      { id: 2, time: '10:00:05', text: 'Who can tell me the rank?' },
    ]);
  });

  it('reads a file of the product this one replaces: header, footer, unterminated live line', () => {
    const document = parseTranscript(
      '=== 课堂记录 开始于 2026-09-21 09:58:00 ===\n课程：线性代数\n参考资料：第三章.txt\n\n' +
        '[10:00:01] 同学们好。\n\n\n=== 课堂记录 结束于 2026-09-21 11:30:00 ===\n[11:31:00] 下课了',
    );
    expect(document.header).toEqual({
      startedAt: '2026-09-21 09:58:00',
      courseName: '线性代数',
      materialName: '第三章.txt',
      foldedCount: 0,
    });
    expect(document.headerLines).toHaveLength(3);
    expect(document.entries).toEqual([
      { id: 1, time: '10:00:01', text: '同学们好。' },
      { id: 2, time: '11:31:00', text: '下课了' },
    ]);
  });

  it('reads a hand-written file: lines without timestamps, a block in the middle, CRLF, BOM', () => {
    const document = parseTranscript(
      '\uFEFF老师先介绍了课程安排\r\n[9:05:03] 我们开始吧\r\n' +
        `${SUMMARY_START_MARKER}\r\n手写的摘要\r\n${SUMMARY_END_MARKER}\r\n` +
        'Then the exam dates\r\n[10:61:00] not a time\r\n[10:00:00]\r\n',
    );
    expect(document.summary).toBe('手写的摘要');
    expect(document.entries).toEqual([
      { id: 1, time: null, text: '老师先介绍了课程安排' },
      { id: 2, time: '09:05:03', text: '我们开始吧' },
      { id: 3, time: null, text: 'Then the exam dates' },
      { id: 4, time: null, text: '[10:61:00] not a time' },
    ]);
  });

  it('does not let a block without its end marker swallow the entries after it', () => {
    const document = parseTranscript(
      `${SUMMARY_START_MARKER}\n摘要一行\n[10:00:00] 第一句\n[10:00:03] 第二句\n`,
    );
    expect(document.summary).toBe('摘要一行');
    expect(document.entries.map((entry) => entry.text)).toEqual(['第一句', '第二句']);
  });

  it('numbers entries after the folded ones: ids survive a fold and a re-read', () => {
    const document = parseTranscript(
      `=== 课堂记录 开始于 2026-09-21 09:58:00 ===\n${formatFoldedLine(120)}\n\n` +
        `${SUMMARY_START_MARKER}\n前 120 句的摘要\n${SUMMARY_END_MARKER}\n[10:20:00] 第121句\n[10:20:05] 第122句\n`,
    );
    expect(document.header.foldedCount).toBe(120);
    expect(document.entries.map((entry) => entry.id)).toEqual([121, 122]);
    // A `=== 已折叠 … ===` line after the entries is decoration, not a count.
    const late = parseTranscript(`[10:00:00] 一\n${formatFoldedLine(7)}\n[10:00:01] 二\n`);
    expect(late.entries.map((entry) => entry.id)).toEqual([1, 2]);
  });

  it('joins several blocks and reads an empty file as empty', () => {
    const two = `${SUMMARY_START_MARKER}\n甲\n${SUMMARY_END_MARKER}\n[10:00:00] x1\n${SUMMARY_START_MARKER}\n乙\n${SUMMARY_END_MARKER}\n`;
    expect(parseTranscript(two).summary).toBe('甲\n乙');
    expect(parseTranscript('')).toEqual({
      header: { startedAt: null, courseName: null, materialName: null, foldedCount: 0 },
      headerLines: [],
      summary: '',
      entries: [],
    });
  });
});

describe('formatTranscript', () => {
  const text = fc
    .string({
      unit: fc.constantFrom(...'今天讲矩阵的秩abc XYZ，。?=[]#'),
      minLength: 1,
      maxLength: 20,
    })
    .map((value) => value.trim())
    .filter((value) => value !== '' && !value.startsWith('[') && !value.startsWith('==='));
  const time = fc
    .tuple(
      fc.integer({ min: 0, max: 23 }),
      fc.integer({ min: 0, max: 59 }),
      fc.integer({ min: 0, max: 59 }),
    )
    .map(([h, m, s]) => [h, m, s].map((part) => String(part).padStart(2, '0')).join(':'));

  property.prop([
    fc.array(fc.record({ time, text }), { maxLength: 10 }),
    fc.array(text, { maxLength: 3 }),
    fc.nat({ max: 100_000 }),
  ])('parse(format(document)) gives the document back', (lines, summaryLines, foldedCount) => {
    const document: TranscriptDocument = {
      header: {
        startedAt: '2026-09-21 10:00:00',
        courseName: '线性代数',
        materialName: null,
        foldedCount,
      },
      headerLines: [
        '=== 课堂记录 开始于 2026-09-21 10:00:00 ===',
        '课程：线性代数',
        ...(foldedCount > 0 ? [formatFoldedLine(foldedCount)] : []),
      ],
      summary: summaryLines.join('\n'),
      entries: lines.map((line, index) => ({ id: foldedCount + index + 1, ...line })),
    };
    expect(parseTranscript(formatTranscript(document))).toEqual(document);
  });

  it('keeps marker lines out of a summary', () => {
    const summary = sanitizeSummary(`第一段\n${SUMMARY_END_MARKER}\n第二段\r\n`);
    expect(summary.split('\n')).not.toContain(SUMMARY_END_MARKER);
    const document = parseTranscript(
      formatTranscript({
        header: parseTranscript('').header,
        headerLines: [],
        summary,
        entries: [{ id: 1, time: '10:00:00', text: '正文' }],
      }),
    );
    expect(document.summary).toBe(summary);
    expect(document.entries).toEqual([{ id: 1, time: '10:00:00', text: '正文' }]);
  });

  it('formats entries for a prompt', () => {
    expect(
      formatEntries([
        { time: '10:00:01', text: '张三你来' },
        { time: null, text: 'hand note' },
      ]),
    ).toBe('[10:00:01] 张三你来\nhand note');
  });
});

describe('selectRecent', () => {
  const at = (hours: number, minutes: number, seconds = 0) =>
    new Date(2026, 8, 21, hours, minutes, seconds);
  const header = { startedAt: null, courseName: null, materialName: null };
  const entries = [
    { time: '10:00:00', text: '十点整' },
    { time: '10:05:00', text: '十点五分' },
    { time: null, text: 'untimed note' },
    { time: '10:09:30', text: '十点九分半' },
  ];

  it('returns the entries of the last N minutes, untimed ones with the entry before them', () => {
    expect(
      selectRecent({ entries, header }, { minutes: 2 }, at(10, 10)).map((e) => e.text),
    ).toEqual(['十点九分半']);
    expect(
      selectRecent({ entries, header }, { minutes: 6 }, at(10, 10)).map((e) => e.text),
    ).toEqual(['十点五分', 'untimed note', '十点九分半']);
    expect(selectRecent({ entries, header }, { minutes: 2 }, at(11, 0))).toEqual([]);
  });

  it('returns the last N entries', () => {
    expect(selectRecent({ entries, header }, { count: 2 }, at(10, 10))).toEqual(entries.slice(2));
    expect(selectRecent({ entries, header }, { count: 0 }, at(10, 10))).toEqual([]);
  });

  it('handles a class running past midnight, with and without a start header', () => {
    const night = [
      { time: '23:58:00', text: '快到午夜' },
      { time: '23:59:30', text: '午夜前' },
      { time: '00:00:30', text: '午夜后' },
    ];
    const now = new Date(2026, 8, 22, 0, 1, 0);
    expect(
      selectRecent({ entries: night, header }, { minutes: 2 }, now).map((e) => e.text),
    ).toEqual(['午夜前', '午夜后']);
    const withHeader = { ...header, startedAt: '2026-09-21 23:50:00' };
    expect(
      selectRecent({ entries: night, header: withHeader }, { minutes: 2 }, now).map((e) => e.text),
    ).toEqual(['午夜前', '午夜后']);
    // The same clock times a day later are old.
    const dayLater = new Date(2026, 8, 23, 0, 1, 0);
    expect(selectRecent({ entries: night, header: withHeader }, { minutes: 2 }, dayLater)).toEqual(
      [],
    );
  });

  it('returns every entry of a file without timestamps, as the old product did', () => {
    const hand = [
      { time: null, text: 'a' },
      { time: null, text: 'b' },
    ];
    expect(selectRecent({ entries: hand, header }, { minutes: 2 }, at(10, 0))).toEqual(hand);
  });

  it('rejects malformed queries with a message naming the problem', () => {
    const document = { entries, header };
    expect(() => selectRecent(document, {} as { count: number }, at(10, 0))).toThrow(
      /exactly one of/,
    );
    expect(() =>
      selectRecent(document, { minutes: 2, count: 3 } as unknown as { count: number }, at(10, 0)),
    ).toThrow(/exactly one of/);
    expect(() => selectRecent(document, { minutes: -1 }, at(10, 0))).toThrow(/minutes must be/);
    expect(() => selectRecent(document, { count: 1.5 }, at(10, 0))).toThrow(/count must be/);
  });
});
