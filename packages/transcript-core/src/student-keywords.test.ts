import { describe, expect, it } from 'vitest';
import { createKeywordMatcher } from './keyword-matcher.ts';
import { MAX_STUDENT_DIGITS, studentKeywords } from './student-keywords.ts';

/** What a matcher holding only the student's words finds in `line`. */
function heard(identity: { name: string; digits: string }, line: string): string[] {
  const matcher = createKeywordMatcher(studentKeywords(identity), { homophones: 'fuzzy-pinyin' });
  return matcher.match(line).map((match) => match.keyword);
}

describe('studentKeywords', () => {
  it('gives nothing for an identity that is not set', () => {
    expect(studentKeywords({ name: '  ', digits: '' })).toEqual([]);
  });

  it('makes every word personal and alert level; the name matches by sound, numbers never', () => {
    const keywords = studentKeywords({ name: ' 王晓明 ', digits: '23' });
    expect(keywords[0]).toEqual({ text: '王晓明', level: 'alert', personal: true });
    expect(keywords.slice(1).every((keyword) => keyword.homophones === false)).toBe(true);
    expect(keywords.every((keyword) => keyword.personal && keyword.level === 'alert')).toBe(true);
    expect(heard({ name: '王晓明', digits: '' }, '王小明，你来说说')).toEqual(['王晓明']);
  });

  it('hears one digit only after 尾号 or 学号, in Arabic or Chinese digits', () => {
    const seven = { name: '', digits: '7' };
    expect(heard(seven, '请学号尾号是 7 的同学回答一下')).toEqual(['尾号是 7']);
    expect(heard(seven, '尾号是七的同学')).toEqual(['尾号是七']);
    expect(heard(seven, '学号7来一下')).toEqual(['学号7']);
    expect(heard(seven, '第 7 章，七个人')).toEqual([]);
    expect(heard(seven, '尾号是 70 的同学')).toEqual([]);
  });

  it('hears two digits alone in Arabic digits and read as a whole, not inside other numbers', () => {
    const digits = { name: '', digits: '23' };
    expect(heard(digits, '23号同学来回答')).toEqual(['23']);
    expect(heard(digits, '二十三号，你来')).toEqual(['二十三']);
    expect(heard(digits, '尾号二三的同学')).toEqual(['尾号二三']);
    expect(heard(digits, '第123页，2023年')).toEqual([]);
    // Two digits read one by one are everyday speech.
    expect(heard(digits, '二三个人一组')).toEqual([]);
  });

  it('hears a short whole reading only with 号, and 幺 for 1', () => {
    const thirteen = { name: '', digits: '13' };
    expect(heard(thirteen, '十三个元素')).toEqual([]);
    expect(heard(thirteen, '十三号同学')).toEqual(['十三号']);
    expect(heard(thirteen, '尾号幺三')).toEqual(['尾号幺三']);
    expect(heard({ name: '', digits: '20' }, '给大家二十分钟')).toEqual([]);
  });

  it('hears three digits one by one and as a whole, 1 as 一 or 幺, 2 hundred as 两百', () => {
    expect(heard({ name: '', digits: '105' }, '幺零五在吗')).toEqual(['幺零五']);
    expect(heard({ name: '', digits: '105' }, '一百零五号')).toEqual(['一百零五']);
    expect(heard({ name: '', digits: '123' }, '一百二十三')).toEqual(['一百二十三']);
    expect(heard({ name: '', digits: '200' }, '两百号同学')).toEqual(['两百号']);
    expect(heard({ name: '', digits: '110' }, '学号一百一的同学')).toEqual(['学号一百一']);
    expect(heard({ name: '', digits: '110' }, '一百一十五')).toEqual([]);
    expect(heard({ name: '', digits: '110' }, '一百一十号')).toEqual(['一百一十号']);
  });

  it('reads numbers with a leading zero digit by digit only', () => {
    const texts = studentKeywords({ name: '', digits: '07' }).map((keyword) => keyword.text);
    expect(texts).toContain('尾号零七');
    expect(texts).toContain('07');
    expect(texts).not.toContain('七');
  });

  it('refuses digits that are not 0 to 6 ASCII digits, naming them', () => {
    expect(() => studentKeywords({ name: '', digits: '1234567' })).toThrow(
      expect.objectContaining({
        code: 'TRANSCRIPT_INVALID_ARGUMENT',
        message: expect.stringContaining(`up to ${MAX_STUDENT_DIGITS} ASCII digits, got "1234567"`),
      }),
    );
    expect(() => studentKeywords({ name: '', digits: '２３' })).toThrow(/got "２３"/);
    expect(() => studentKeywords(null as never)).toThrow(
      /expected \{ name: string, digits: string \}/,
    );
  });
});
