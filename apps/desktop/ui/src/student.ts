// The student's name and the last digits of their student number, as the first-run step asks
// them. The backend keeps them as settings (STUDENT_NAME, STUDENT_NUMBER_DIGITS) and makes the
// roll-call words itself: the name matched by sound too (王晓明 alerts when the recognizer writes
// 王小明), the digits the ways a teacher calls them. An earlier version of this app sent them as
// custom keywords instead; `otherKeywords` takes those out of a custom list. No DOM, no storage:
// tested without a browser.

/** What the first-run step asks. */
export interface StudentProfile {
  name: string;
  /** Last digits of the student number, '' when not given. */
  digits: string;
}

/**
 * At most this many digits: longer numbers are read out in parts, never whole. The backend's
 * STUDENT_NUMBER_DIGITS takes the same.
 */
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
 * The custom keywords an earlier version sent for a profile: the name, then 尾号 / 尾号是 / 尾号为
 * followed by the digits (Arabic, with or without a space, or Chinese numerals).
 */
function earlierWords(profile: StudentProfile): string[] {
  const name = cleanName(profile.name);
  const words = name === '' ? [] : [name];
  if (profile.digits !== '' && validDigits(profile.digits)) {
    const chinese = Array.from(profile.digits, (digit) => CHINESE_DIGITS[Number(digit)]).join('');
    for (const prefix of ['尾号', '尾号是', '尾号为']) {
      words.push(
        `${prefix}${profile.digits}`,
        `${prefix} ${profile.digits}`,
        `${prefix}${chinese}`,
      );
    }
  }
  return words;
}

/** The student's other words in a custom list: without what an earlier version sent for `profile`. */
export function otherKeywords(profile: StudentProfile, custom: readonly string[]): string[] {
  const own = new Set(earlierWords(profile));
  return custom.filter((word) => !own.has(word));
}
