import { describe, expect, it } from 'vitest';
import {
  cleanName,
  combinedKeywords,
  digitPhrases,
  otherKeywords,
  studentKeywords,
  validDigits,
} from './student.ts';

describe('the student’s roll-call words', () => {
  it('takes the name as typed, trimmed', () => {
    expect(cleanName('  Zhang   San ')).toBe('Zhang San');
    expect(studentKeywords({ name: ' 王晓明 ', digits: '' })).toEqual(['王晓明']);
    expect(studentKeywords({ name: '', digits: '' })).toEqual([]);
  });

  it('accepts up to six digits, or none', () => {
    expect(validDigits('')).toBe(true);
    expect(validDigits('07')).toBe(true);
    expect(validDigits('1234567')).toBe(false);
    expect(validDigits('7a')).toBe(false);
    expect(digitPhrases('x')).toEqual([]);
  });

  it('keeps the name first and the student’s other words apart', () => {
    const profile = { name: '王晓明', digits: '7' };
    const all = combinedKeywords(profile, ['Wang', '王晓明']);
    expect(all[0]).toBe('王晓明');
    expect(all.filter((word) => word === '王晓明')).toHaveLength(1);
    expect(all.at(-1)).toBe('Wang');
    expect(otherKeywords(profile, all)).toEqual(['Wang']);
  });

  it('writes the teacher’s call of the last digits the ways recognizers write it', () => {
    // (The browser test checks that the backend's matcher fires on the mock lecture's call.)
    expect(digitPhrases('07')).toEqual([
      '尾号07',
      '尾号 07',
      '尾号零七',
      '尾号是07',
      '尾号是 07',
      '尾号是零七',
      '尾号为07',
      '尾号为 07',
      '尾号为零七',
    ]);
    expect(studentKeywords({ name: '王晓明', digits: '7' })).toEqual([
      '王晓明',
      ...digitPhrases('7'),
    ]);
  });
});
