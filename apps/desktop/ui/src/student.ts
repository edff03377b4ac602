// The student's own roll-call words: their name, and the phrases a teacher uses to call the last
// digits of a student number ("学号尾号是 7 的同学"). The backend matches names by sound too
// (KEYWORD_HOMOPHONES, pinyin by default), so 王晓明 alerts when the recognizer writes 王小明. No
// DOM, no storage: tested without a browser.

/** What the first-run step asks. */
export interface StudentProfile {
  name: string;
  /** Last digits of the student number, '' when not given. */
  digits: string;
}

/** At most this many digits: longer numbers are read out in parts, never whole. */
export const MAX_DIGITS = 6;

const CHINESE_DIGITS = ['零', '一', '二', '三', '四', '五', '六', '七', '八', '九'];

/** A name as typed, trimmed, its spaces collapsed. */
export function cleanName(name: string): string {
  return name.trim().replace(/\s+/g, ' ');
}

/** True for '' or 1 to {@link MAX_DIGITS} ASCII digits. */
export function validDigits(digits: string): boolean {
  return digits === '' || new RegExp(`^\\d{1,${MAX_DIGITS}}$`).test(digits);
}

/**
 * The phrases that call these last digits: 尾号 / 尾号是 / 尾号为 followed by the digits, written
 * as recognizers write them — Arabic digits with or without a space before them (“尾号是 7”), or
 * Chinese numerals read digit by digit (“尾号是七”, “尾号零七”).
 *
 * @example
 * digitPhrases('7'); // ['尾号7', '尾号 7', '尾号七', '尾号是7', '尾号是 7', '尾号是七', '尾号为7', …]
 */
export function digitPhrases(digits: string): string[] {
  if (digits === '' || !validDigits(digits)) return [];
  const chinese = Array.from(digits, (digit) => CHINESE_DIGITS[Number(digit)]).join('');
  return ['尾号', '尾号是', '尾号为'].flatMap((prefix) => [
    `${prefix}${digits}`,
    `${prefix} ${digits}`,
    `${prefix}${chinese}`,
  ]);
}

/** Every roll-call word of a profile: the name, then the digit phrases. */
export function studentKeywords(profile: StudentProfile): string[] {
  const name = cleanName(profile.name);
  return [...new Set([...(name === '' ? [] : [name]), ...digitPhrases(profile.digits)])];
}

/** The custom keywords sent to the backend: the profile's, then the student's other words. */
export function combinedKeywords(profile: StudentProfile, others: readonly string[]): string[] {
  return [...new Set([...studentKeywords(profile), ...others])];
}

/** The student's other words, given the backend's custom list (the profile's words left out). */
export function otherKeywords(profile: StudentProfile, custom: readonly string[]): string[] {
  const own = new Set(studentKeywords(profile));
  return custom.filter((word) => !own.has(word));
}
