// The listener's own roll-call words (README, "The student's own words"): their name, and the
// ways a teacher calls the last digits of their student number, as recognizers write them.
import { TranscriptCoreError } from './errors.ts';
import type { MatcherKeyword } from './keyword-matcher.ts';

/** Who the listener is; '' fields are not set. */
export interface StudentIdentity {
  /** Their name, as they want it heard (homophones follow the matcher's mode). */
  name: string;
  /** The last digits of their student number: '' or 1 to {@link MAX_STUDENT_DIGITS} ASCII digits. */
  digits: string;
}

/** At most this many digits: longer numbers are read out in parts, never whole. */
export const MAX_STUDENT_DIGITS = 6;

const CHINESE_DIGITS = ['零', '一', '二', '三', '四', '五', '六', '七', '八', '九'];
/** What the student number is called before its digits: 尾号是 7, 学号 23. */
const NUMBER_PREFIXES = ['尾号', '尾号是', '尾号为', '学号', '学号是'];

/**
 * The listener's keywords, all `alert` level and `personal`: the name (matched by sound too when
 * the matcher's homophone mode allows) and the digits (by their characters only: number words
 * sound like everyday speech). The digits are matched
 * - after 尾号 / 尾号是 / 尾号为 / 学号 / 学号是, at any length: in Arabic digits with or without a
 *   space (尾号是 7), or read digit by digit in Chinese numerals, 1 as 一 or 幺 (尾号零七, 学号幺二三);
 * - alone from two digits on, in Arabic digits (23, not inside 123 or 2023);
 * - alone from three digits on, read digit by digit (一二三 / 幺二三): two digits read that way are
 *   everyday approximations (三四个, 七八个);
 * - alone for two or three digits without a leading zero, read as a whole number (二十三,
 *   一百零五); a short or round reading only followed by 号 (十三号, 二十号, 一百一十号, 两百号),
 *   as 二十分钟 and 十三个 are everyday speech and 一百一十 begins 一百一十五; 一百一 (110) only
 *   after a prefix.
 * One digit alone (7, 七) is never enough.
 *
 * @example
 * studentKeywords({ name: '王晓明', digits: '23' }).map((keyword) => keyword.text);
 * // ['王晓明', '尾号23', '尾号 23', '尾号二三', '尾号二十三', …, '23', '二十三']
 */
export function studentKeywords(identity: StudentIdentity): MatcherKeyword[] {
  const name = typeof identity?.name === 'string' ? identity.name.trim() : undefined;
  const digits = typeof identity?.digits === 'string' ? identity.digits.trim() : undefined;
  if (name === undefined || digits === undefined) {
    throw new TranscriptCoreError(
      'TRANSCRIPT_INVALID_ARGUMENT',
      `studentKeywords: expected { name: string, digits: string }, got ${JSON.stringify(identity)}`,
    );
  }
  if (!new RegExp(`^\\d{0,${MAX_STUDENT_DIGITS}}$`).test(digits)) {
    throw new TranscriptCoreError(
      'TRANSCRIPT_INVALID_ARGUMENT',
      `studentKeywords: digits must be up to ${MAX_STUDENT_DIGITS} ASCII digits, got ${JSON.stringify(digits)}`,
    );
  }
  const keywords: MatcherKeyword[] = [];
  if (name !== '') keywords.push({ text: name, level: 'alert', personal: true });
  for (const text of new Set(digitForms(digits))) {
    keywords.push({ text, level: 'alert', personal: true, homophones: false });
  }
  return keywords;
}

function digitForms(digits: string): string[] {
  if (digits === '') return [];
  const spoken = digitByDigit(digits);
  const whole = wholeReadings(digits, true);
  const forms = NUMBER_PREFIXES.flatMap((prefix) => [
    `${prefix}${digits}`,
    `${prefix} ${digits}`,
    ...[...spoken, ...whole].map((reading) => `${prefix}${reading}`),
  ]);
  if (digits.length >= 2) forms.push(digits);
  if (digits.length >= 3) forms.push(...spoken);
  // Short and round readings only with 号: 二十分钟, and 一百一十 begins 一百一十五.
  for (const reading of wholeReadings(digits, false)) {
    forms.push(reading.length >= 3 && !/[十百]$/u.test(reading) ? reading : `${reading}号`);
  }
  return forms;
}

/** Digit by digit: 07 → 零七; 1 is read 一 or 幺 (幺二三), the same way throughout. */
function digitByDigit(digits: string): string[] {
  const read = (one: string) =>
    Array.from(digits, (digit) => (digit === '1' ? one : CHINESE_DIGITS[Number(digit)])).join('');
  return [...new Set([read('一'), read('幺')])];
}

/**
 * The number read as a whole, for 2 or 3 digits without a leading zero: 23 → 二十三;
 * `colloquial` adds 一百一 for 110.
 */
function wholeReadings(digits: string, colloquial: boolean): string[] {
  if (digits.length < 2 || digits.length > 3 || digits.startsWith('0')) return [];
  const value = Number(digits);
  const below100 = (number: number, inHundreds: boolean): string[] => {
    const tens = Math.floor(number / 10);
    const units = number % 10;
    const unit = units === 0 ? '' : CHINESE_DIGITS[units]!;
    if (tens === 0) return units === 0 ? [''] : [`零${unit}`];
    // 十三 alone, 一百一十三 inside a hundred.
    const ten = tens === 1 && !inHundreds ? '十' : `${CHINESE_DIGITS[tens]}十`;
    // 一百一十 is also said 一百一.
    if (units === 0 && inHundreds && colloquial) return [ten, CHINESE_DIGITS[tens]!];
    return [`${ten}${unit}`];
  };
  if (value < 100) return below100(value, false);
  const hundreds = Math.floor(value / 100);
  const heads = hundreds === 2 ? ['二百', '两百'] : [`${CHINESE_DIGITS[hundreds]}百`];
  return heads.flatMap((head) => below100(value % 100, true).map((rest) => `${head}${rest}`));
}
