import { describe, expect, it } from 'vitest';
import { cleanName, MAX_DIGITS, otherKeywords, validDigits } from './student.ts';

describe('the student’s name and digits', () => {
  it('takes the name as typed, trimmed', () => {
    expect(cleanName('  Zhang   San ')).toBe('Zhang San');
  });

  it('accepts up to six digits, or none, as the backend’s STUDENT_NUMBER_DIGITS does', () => {
    expect(MAX_DIGITS).toBe(6);
    expect(validDigits('')).toBe(true);
    expect(validDigits('07')).toBe(true);
    expect(validDigits('123456')).toBe(true);
    expect(validDigits('1234567')).toBe(false);
    expect(validDigits('7a')).toBe(false);
    expect(validDigits('２３')).toBe(false);
  });

  it('takes what an earlier version sent for the profile out of a custom list, keeping the rest', () => {
    const profile = { name: ' 王晓明 ', digits: '07' };
    const custom = [
      '王晓明',
      '尾号07',
      '尾号 07',
      '尾号零七',
      '尾号是07',
      '尾号是 07',
      '尾号是零七',
      '尾号为07',
      '尾号为 07',
      '尾号为零七',
      'Wang',
      '尾号是 7',
    ];
    expect(otherKeywords(profile, custom)).toEqual(['Wang', '尾号是 7']);
    expect(otherKeywords({ name: '', digits: '' }, ['Wang'])).toEqual(['Wang']);
  });
});
