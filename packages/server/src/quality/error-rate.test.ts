import { describe, expect, it } from 'vitest';
import { editCounts } from './edit-distance.ts';
import { combinedRate, errorRate, metricOf, pipelineToEngine } from './error-rate.ts';
import { normalizeForScoring, scoringTokens } from './scoring-text.ts';

describe('normalizeForScoring', () => {
  it('folds case and full-width forms, drops ASCII and CJK punctuation, collapses spaces', () => {
    expect(normalizeForScoring('ＧＯＯＤ　Ｍｏｒｎｉｎｇ，Everyone！')).toBe(
      'good morning everyone',
    );
    expect(normalizeForScoring('今天，我们讲「二叉树」。')).toBe('今天我们讲二叉树');
    expect(normalizeForScoring('  Hello,\n\tworld...  ')).toBe('hello world');
    expect(normalizeForScoring('《数据结构》第３章：链表、栈')).toBe('数据结构第3章链表栈');
  });

  it('removes the spaces next to Chinese characters but keeps those between words', () => {
    expect(normalizeForScoring('今天 我们 讲 二叉树')).toBe('今天我们讲二叉树');
    expect(normalizeForScoring('我们 用 Python 写 代码')).toBe('我们用python写代码');
    expect(normalizeForScoring('binary  search   tree')).toBe('binary search tree');
  });

  it('joins words split by an apostrophe and splits words joined by other marks', () => {
    expect(normalizeForScoring("Don't stop; it’s fine")).toBe('dont stop its fine');
    expect(normalizeForScoring('well-known O(n)')).toBe('well known o n');
  });
});

describe('scoringTokens', () => {
  it('counts each Chinese character and each Latin word or number once', () => {
    expect(scoringTokens('我们用 Python 写代码。')).toEqual([
      '我',
      '们',
      '用',
      'python',
      '写',
      '代',
      '码',
    ]);
    expect(scoringTokens('第３章 page 10')).toEqual(['第', '3', '章', 'page', '10']);
    expect(scoringTokens('Good morning, everyone.')).toEqual(['good', 'morning', 'everyone']);
    expect(scoringTokens('。，！ ')).toEqual([]);
  });
});

describe('editCounts', () => {
  it('counts substitutions, deletions and insertions of a cheapest alignment', () => {
    expect(editCounts(['a', 'b', 'c'], ['a', 'b', 'c'])).toEqual({
      substitutions: 0,
      deletions: 0,
      insertions: 0,
      edits: 0,
    });
    expect(editCounts(['a', 'b', 'c'], ['a', 'x', 'c', 'd'])).toEqual({
      substitutions: 1,
      deletions: 0,
      insertions: 1,
      edits: 2,
    });
    // "kitten" -> "sitting": k→s, e→i, +g.
    expect(editCounts([...'kitten'], [...'sitting'])).toEqual({
      substitutions: 2,
      deletions: 0,
      insertions: 1,
      edits: 3,
    });
    expect(editCounts(['a', 'b', 'c', 'd'], ['b', 'd'])).toEqual({
      substitutions: 0,
      deletions: 2,
      insertions: 0,
      edits: 2,
    });
    expect(editCounts([], ['a', 'b'])).toMatchObject({ insertions: 2, edits: 2 });
    expect(editCounts(['a', 'b'], [])).toMatchObject({ deletions: 2, edits: 2 });
  });
});

describe('errorRate', () => {
  it('scores Chinese per character, whatever the punctuation, width and spacing', () => {
    // 今天讲二叉树 (6 characters) against 今天 讲 二茶树: one substitution.
    const rate = errorRate('今天讲二叉树。', '今天 讲 二茶树');
    expect(rate).toMatchObject({ substitutions: 1, edits: 1, referenceTokens: 6 });
    expect(rate.rate).toBeCloseTo(1 / 6, 10);
    expect(errorRate('第１章，链表！', '第1章链表').rate).toBe(0);
  });

  it('scores English per word, case and punctuation aside', () => {
    const rate = errorRate('Good morning, everyone.', 'good morning every one');
    // everyone → every, + one.
    expect(rate).toMatchObject({ substitutions: 1, insertions: 1, edits: 2, referenceTokens: 3 });
    expect(rate.rate).toBeCloseTo(2 / 3, 10);
    expect(errorRate('TODAY we talk', 'today we talk').rate).toBe(0);
  });

  it('counts a Latin word in Chinese text as one token', () => {
    // 10 tokens: 我 们 用 python 写 一 个 链 表 吧; the hypothesis misses "python" and 吧.
    const rate = errorRate('我们用Python写一个链表吧。', '我们用 派森 写一个链表');
    expect(rate.referenceTokens).toBe(10);
    // python → 派, + 森, − 吧: 3 edits (one of them for the whole English word).
    expect(rate).toMatchObject({ substitutions: 1, insertions: 1, deletions: 1, edits: 3 });
    expect(rate.rate).toBeCloseTo(0.3, 10);
  });

  it('treats an empty reference as one token', () => {
    expect(errorRate('', '')).toMatchObject({ referenceTokens: 0, edits: 0, rate: 0 });
    expect(errorRate('。', 'uh huh')).toMatchObject({ referenceTokens: 0, insertions: 2, rate: 2 });
    expect(errorRate('hello there', '')).toMatchObject({ deletions: 2, rate: 1 });
  });
});

describe('combinedRate, metricOf and pipelineToEngine', () => {
  it('adds edits and reference tokens over texts', () => {
    expect(
      combinedRate([
        { edits: 1, referenceTokens: 10 },
        { edits: 3, referenceTokens: 10 },
      ]),
    ).toBeCloseTo(0.2, 10);
    expect(combinedRate([])).toBe(0);
  });

  it('names the metric of a language', () => {
    expect(metricOf('zh')).toBe('cer');
    expect(metricOf('en')).toBe('wer');
  });

  it('is 1 for 0/0 and null for x/0', () => {
    expect(pipelineToEngine(0.2, 0.1)).toBeCloseTo(2, 10);
    expect(pipelineToEngine(0, 0)).toBe(1);
    expect(pipelineToEngine(0.1, 0)).toBeNull();
    expect(pipelineToEngine(0, 0.1)).toBe(0);
  });
});
