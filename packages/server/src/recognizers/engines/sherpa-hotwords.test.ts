import { describe, expect, it } from 'vitest';
import { readTokens, sherpaHotwords } from './sherpa-hotwords.ts';

const BILINGUAL = readTokens(
  [
    '<blk> 0',
    '<sos/eos> 1',
    '<unk> 2',
    '链 3',
    '表 4',
    '指 5',
    '针 6',
    '▁POINT 7',
    'ER 8',
    '李 9',
  ].join('\n'),
);

describe('sherpaHotwords', () => {
  it('keeps the phrases the model can spell, one per line, English upper-cased like its tokens', () => {
    const hot = sherpaHotwords(
      ['链表', 'pointer', '红黑树', '指针', '链表', 'a:b'],
      BILINGUAL,
      'cjkchar+bpe',
    );
    // 红黑树 has no tokens in this model; a colon would read as a boost score.
    expect(hot.phrases).toEqual(['链表', 'POINTER', '指针']);
    expect(hot.text).toBe('链表\nPOINTER\n指针\n');
  });

  it('needs whole English words as tokens without BPE (cjkchar)', () => {
    const chars = readTokens('链 1\n表 2\nAVL 3\n');
    expect(sherpaHotwords(['链表', 'AVL', 'pointer'], chars, 'cjkchar').phrases).toEqual([
      '链表',
      'AVL',
    ]);
  });

  it('stops at the limit', () => {
    expect(sherpaHotwords(['链表', '指针', '李'], BILINGUAL, 'cjkchar', 2).phrases).toEqual([
      '链表',
      '指针',
    ]);
  });
});
