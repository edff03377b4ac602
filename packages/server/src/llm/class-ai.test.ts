import { describe, expect, it } from 'vitest';
import { parseRescueAnswer } from './class-ai.ts';
import { selectMaterial, selectMaterialPages, splitMaterialPages } from './material-context.ts';

describe('parseRescueAnswer', () => {
  it('reads JSON with or without a code fence or words around it', () => {
    const expected = { question: 'q?', context: 'c', answer: 'a', format: 'json', cited: [] };
    expect(parseRescueAnswer('{"question":"q?","context":"c","answer":"a"}')).toEqual(expected);
    expect(parseRescueAnswer('```json\n{"question":"q?","context":"c","answer":"a"}\n```')).toEqual(
      expected,
    );
    expect(
      parseRescueAnswer('Here you go: {"question":"q?","context":"c","answer":"a"} good luck'),
    ).toEqual(expected);
  });

  it('uses plain text as the answer and refuses an empty one', () => {
    expect(parseRescueAnswer('答：两个指针。')).toEqual({
      question: '',
      context: '',
      answer: '答：两个指针。',
      format: 'text',
      cited: [],
    });
    expect(parseRescueAnswer('{"unrelated": 1}')).toMatchObject({ format: 'text' });
    expect(() => parseRescueAnswer('  ')).toThrow(/empty rescue answer/);
  });

  it('reads the lines the model named, as numbers or "#12", once each', () => {
    expect(
      parseRescueAnswer('{"question":"q?","answer":"a","lines":["#12", 13, "13", -1, "x"]}').cited,
    ).toEqual([12, 13]);
    expect(parseRescueAnswer('{"question":"q?","answer":"a","lines":"12"}').cited).toEqual([]);
  });
});

describe('selectMaterial', () => {
  const deck = Array.from({ length: 40 }, (_, index) =>
    index === 27
      ? '--- 第 28 页 ---\n循环队列 circular queue：(rear + 1) % size == front 判满'
      : `--- 第 ${index + 1} 页 ---\n第 ${index + 1} 页：二叉树的遍历 traversal 与递归 recursion`,
  ).join('\n\n');

  it('sends short material whole', () => {
    expect(selectMaterial('--- 第 1 页 ---\n短', '任何', 1000)).toBe('--- 第 1 页 ---\n短');
  });

  it('keeps the pages most related to the transcript, in page order, within the budget', () => {
    expect(splitMaterialPages(deck)).toHaveLength(40);
    const query = '[10:00:01] 循环队列怎么判满？rear 加一取模 size 等于 front';
    const tight = selectMaterial(deck, query, 60);
    expect(tight.startsWith('--- 第 28 页 ---\n循环队列')).toBe(true);
    expect(tight).toContain('（资料共 40 页，以上为与课堂内容最相关的 1 页）');
    const roomier = selectMaterial(deck, query, 400);
    expect(roomier).toContain('--- 第 28 页 ---');
    const pages = [...roomier.matchAll(/--- 第 (\d+) 页 ---/g)].map((match) => Number(match[1]));
    expect(pages).toEqual([...pages].sort((a, b) => a - b));
    expect(roomier.length).toBeLessThan(400 + 60);
  });

  it('names the pages it kept', () => {
    const query = '[10:00:01] 循环队列怎么判满？rear 加一取模 size 等于 front';
    expect(selectMaterialPages(deck, query, 60).pages).toEqual([28]);
    const roomier = selectMaterialPages(deck, query, 400);
    expect(roomier.pages).toEqual(
      [...roomier.text.matchAll(/--- 第 (\d+) 页 ---/g)].map((match) => Number(match[1])),
    );
    expect(
      selectMaterialPages('前言\n--- 第 1 页 ---\n短\n--- 第 2 页 ---\n长', '', 1000).pages,
    ).toEqual([1, 2]);
    expect(selectMaterialPages('没有页码的讲义', '', 1000).pages).toEqual([]);
  });
});
