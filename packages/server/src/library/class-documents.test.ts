import { describe, expect, it } from 'vitest';
import { documentsOf, passages } from './class-documents.ts';

describe('passages', () => {
  it('starts a passage at blank lines and page markers', () => {
    expect(passages('第一段。\n还是第一段。\n\n第二段。\n--- 第 2 页 ---\n栈')).toEqual([
      '第一段。 还是第一段。',
      '第二段。',
      '--- 第 2 页 --- 栈',
    ]);
  });

  it('cuts long lines after a sentence, or hard at the limit', () => {
    const sentences = '这是一句话。'.repeat(10);
    const cut = passages(sentences, 20);
    expect(cut.every((part) => [...part].length <= 20)).toBe(true);
    expect(cut.join('')).toBe(sentences);
    expect(passages('甲'.repeat(45), 20)).toEqual([
      '甲'.repeat(20),
      '甲'.repeat(20),
      '甲'.repeat(5),
    ]);
  });
});

describe('documentsOf', () => {
  it('indexes every line with its id and time, then notes and material passages', () => {
    const docs = documentsOf({
      meta: {} as never,
      transcript: {
        header: { startedAt: null, courseName: null, materialName: null, foldedCount: 40 },
        headerLines: [],
        summary: '不索引摘要',
        entries: [
          { id: 41, time: '10:00:00', text: '矩阵的秩' },
          { id: 42, time: null, text: '手写的一行' },
        ],
      },
      notes: '# 笔记\n\n秩的定义',
      material: '第一页',
      marks: [],
      signature: '',
    });
    expect(docs).toEqual([
      { kind: 'line', lineId: 41, timestamp: '10:00:00', text: '矩阵的秩' },
      { kind: 'line', lineId: 42, timestamp: null, text: '手写的一行' },
      { kind: 'notes', lineId: null, timestamp: null, text: '# 笔记' },
      { kind: 'notes', lineId: null, timestamp: null, text: '秩的定义' },
      { kind: 'material', lineId: null, timestamp: null, text: '第一页' },
    ]);
  });

  it('indexes a line’s translation as the line, so a search in the student’s language finds it', () => {
    const docs = documentsOf(
      {
        meta: {} as never,
        transcript: {
          header: { startedAt: null, courseName: null, materialName: null, foldedCount: 0 },
          headerLines: [],
          summary: '',
          entries: [
            { id: 1, time: '10:00:00', text: '矩阵的秩' },
            { id: 2, time: '10:00:05', text: 'Rank again' },
          ],
        },
        notes: null,
        material: null,
        marks: [],
        signature: '',
      },
      new Map([[1, { page: null, translation: 'The rank of a matrix', audio_ms: null }]]),
    );
    expect(docs).toEqual([
      { kind: 'line', lineId: 1, timestamp: '10:00:00', text: '矩阵的秩' },
      { kind: 'line', lineId: 1, timestamp: '10:00:00', text: 'The rank of a matrix' },
      { kind: 'line', lineId: 2, timestamp: '10:00:05', text: 'Rank again' },
    ]);
  });
});
