import { describe, expect, it } from 'vitest';
import { needsTranslation } from './caption-language.ts';

describe('needsTranslation', () => {
  it('skips lines already in the target language and translates the others', () => {
    expect(needsTranslation('链表不一样，每个节点保存数据和指向下一个节点的指针。', 'zh')).toBe(
      false,
    );
    expect(needsTranslation('链表不一样，每个节点保存数据和指向下一个节点的指针。', 'en')).toBe(
      true,
    );
    expect(needsTranslation('A stack is last in, first out.', 'en')).toBe(false);
    expect(needsTranslation('A stack is last in, first out.', 'zh')).toBe(true);
  });

  it('translates mixed lines into either language', () => {
    const mixed = '用数组实现 circular queue 的时候 rear 和 front 怎么移动';
    expect(needsTranslation(mixed, 'zh')).toBe(true);
    expect(needsTranslation(mixed, 'en')).toBe(true);
  });

  it('sends nothing without words: numbers, punctuation, a gap marker', () => {
    expect(needsTranslation('42。', 'en')).toBe(false);
    expect(needsTranslation('—— 中断 12 秒 ——', 'en')).toBe(false);
  });
});
