import { describe, expect, it } from 'vitest';
import { findNearDuplicate, isNearDuplicate } from './near-duplicate.ts';

describe('isNearDuplicate', () => {
  it('catches an exact repeat, ignoring trailing punctuation, case and width', () => {
    expect(isNearDuplicate('请大家把书翻到第42页。', ['请大家把书翻到第42页'])).toBe(true);
    expect(isNearDuplicate('Please open your books!', ['please open your books'])).toBe(true);
    expect(isNearDuplicate('ＯＫ，下课', ['ok，下课'])).toBe(true);
  });

  it('catches containment when the lengths are close (ratio ≥ 0.8, both ≥ 4)', () => {
    // 9 of 10 characters: a recogniser's shorter re-emission of the same sentence.
    expect(findNearDuplicate('今天讲线性代数第三', ['今天讲线性代数第三章'])?.kind).toBe(
      'contained',
    );
    // 4 of 10: too different in length to be the same sentence.
    expect(isNearDuplicate('线性代数', ['今天讲线性代数第三章'])).toBe(false);
    // Too short to judge by containment.
    expect(isNearDuplicate('好的', ['好的吗'])).toBe(false);
  });

  it('catches a similar correction (ratio ≥ 0.88, both ≥ 6)', () => {
    const match = findNearDuplicate('今天我们来讲线性代数', ['今天我们讲线性代数']);
    expect(match).toMatchObject({ kind: 'similar', index: 0 });
    expect(match?.ratio).toBeCloseTo(0.947, 3);
    expect(
      isNearDuplicate('Who can tell me the rank of this matrix', [
        'Who can tell me the rank of that matrix',
      ]),
    ).toBe(true);
    expect(isNearDuplicate('请翻到第42页', ['请翻到第24页'])).toBe(false);
  });

  it('lets genuinely new sentences through, mixed text included', () => {
    const recent = ['我们用 Python 实现 PCA。', 'GPU 内存不够就调小 batch size。'];
    expect(isNearDuplicate('下面看第二个例子。', recent)).toBe(false);
    expect(isNearDuplicate('我们用 Java 实现 KNN。', recent)).toBe(false);
  });

  it('compares with the last 8 entries only, newest first', () => {
    const recent = [
      '今天讲矩阵的秩',
      ...Array.from({ length: 8 }, (_, i) => `第${i}句完全不同的内容`),
    ];
    expect(isNearDuplicate('今天讲矩阵的秩', recent)).toBe(false);
    expect(isNearDuplicate('今天讲矩阵的秩', recent, { window: 9 })).toBe(true);
    expect(findNearDuplicate('第7句完全不同的内容', recent)?.index).toBe(8);
  });

  it('takes every threshold as an option and rejects bad ones', () => {
    expect(isNearDuplicate('请翻到第42页', ['请翻到第24页'], { similarityThreshold: 0.85 })).toBe(
      true,
    );
    expect(() => isNearDuplicate('x', [], { similarityThreshold: 2 })).toThrow(
      /similarityThreshold/,
    );
    expect(() => isNearDuplicate('x', [], { window: -1 })).toThrow(/window/);
  });

  it('rejects malformed arguments with a coded error naming them', () => {
    const cases: Array<[() => unknown, RegExp]> = [
      [() => findNearDuplicate('hello', [], null as never), /options must be an object, got null/],
      [() => findNearDuplicate('hello', undefined as never), /recentEntries must be an array/],
      [() => isNearDuplicate('hello', ['a', 5 as never]), /recentEntries\[1\] must be a string/],
      [() => isNearDuplicate(42 as never, ['a']), /text must be a string, got 42/],
    ];
    for (const [attempt, message] of cases) {
      expect(attempt).toThrow(
        expect.objectContaining({
          code: 'TRANSCRIPT_INVALID_ARGUMENT',
          message: expect.stringMatching(message),
        }),
      );
    }
  });

  it('never matches an empty text', () => {
    expect(findNearDuplicate('。', ['。'])).toBeNull();
  });
});
