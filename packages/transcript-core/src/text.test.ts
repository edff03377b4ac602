import { fc, test as property } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { isTranscriptCoreError } from './errors.ts';
import { comparisonKey, endsSentence, isMeaningful, normalizeText } from './text.ts';

describe('normalizeText', () => {
  it('makes one clean line of recogniser output', () => {
    expect(normalizeText('  今天 我们 讲\n线性代数 ')).toBe('今天我们讲线性代数');
    expect(normalizeText('Hello \t  world\r\n')).toBe('Hello world');
    expect(normalizeText('我们用 Python 写 PCA')).toBe('我们用 Python 写 PCA');
    expect(normalizeText('好的 ， 下课')).toBe('好的，下课');
  });

  it('removes invisible characters but keeps width, case and punctuation', () => {
    expect(normalizeText('\uFEFF张\u200B三\u0007，ＯＫ？')).toBe('张三，ＯＫ？');
    // Emoji sequences keep their zero-width joiner.
    expect(normalizeText('👩‍🏫 老师')).toBe('👩‍🏫 老师');
  });

  it('keeps the spaces between Korean words', () => {
    expect(normalizeText('안녕 하세요')).toBe('안녕 하세요');
  });

  property.prop([fc.string({ maxLength: 60 })])(
    'is idempotent and never leaves a line break',
    (text) => {
      const once = normalizeText(text);
      expect(normalizeText(once)).toBe(once);
      expect(once).not.toMatch(/[\r\n\u2028\u2029]/u);
    },
  );
});

describe('isMeaningful', () => {
  it('drops punctuation, empty text and one-character fragments', () => {
    for (const text of ['', '   ', '。。。', '？！', '嗯', 'a', '3', '，的，']) {
      expect(isMeaningful(text), text).toBe(false);
    }
  });

  it('drops hesitation sounds, Chinese and English', () => {
    for (const text of ['嗯嗯', '啊，啊。', '呃……', 'um', 'Uh, uh', 'Hmm...', '哈哈哈']) {
      expect(isMeaningful(text), text).toBe(false);
    }
  });

  it('keeps short real content in every script', () => {
    for (const text of ['好的', '下课', 'OK', 'Yes.', '42', '第3题', 'Python 很好用', '嗯，好的']) {
      expect(isMeaningful(text), text).toBe(true);
    }
  });

  it('takes minChars and fillers as options', () => {
    expect(isMeaningful('好的', { minChars: 3 })).toBe(false);
    expect(isMeaningful('嗯嗯', { fillers: [] })).toBe(true);
    expect(isMeaningful('like like', { fillers: ['like'] })).toBe(false);
    expect(() => isMeaningful('x', { minChars: -1 })).toThrow(/minChars/);
  });

  it('rejects malformed options with a coded error naming the field', () => {
    const bad: Array<[unknown, RegExp]> = [
      [{ minChars: -1 }, /minChars must be a number ≥ 0, got -1/],
      [{ minChars: Number.NaN }, /minChars/],
      [{ minChars: '2' }, /minChars/],
      [{ fillers: 'um' }, /fillers must be an array of strings/],
      [{ fillers: ['um', 3] }, /fillers\[1\] must be a string/],
      [null, /options must be an object/],
    ];
    for (const [options, message] of bad) {
      // Also when the text is empty: the check does not depend on the text reaching it.
      for (const text of ['', 'hello there']) {
        let thrown: unknown;
        try {
          isMeaningful(text, options as never);
        } catch (error) {
          thrown = error;
        }
        expect(isTranscriptCoreError(thrown), JSON.stringify(options)).toBe(true);
        expect(thrown).toMatchObject({ code: 'TRANSCRIPT_INVALID_ARGUMENT', message });
      }
    }
  });
});

describe('comparisonKey and endsSentence', () => {
  it('ignores case, width and trailing punctuation', () => {
    expect(comparisonKey('Hello World！')).toBe(comparisonKey('hello world'));
    expect(comparisonKey('今天讲矩阵。，、 ')).toBe('今天讲矩阵');
    expect(comparisonKey('今天讲矩阵？')).toBe('今天讲矩阵');
  });

  it('recognises a finished sentence, also inside closing quotes', () => {
    expect(endsSentence('今天讲矩阵。')).toBe(true);
    expect(endsSentence('他说：“下课！”')).toBe(true);
    expect(endsSentence('Is that clear?')).toBe(true);
    expect(endsSentence('今天我们讲')).toBe(false);
    expect(endsSentence('首先，')).toBe(false);
  });
});
