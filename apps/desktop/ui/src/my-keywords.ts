// The student's own words. Their name and student-number digits (the first-run step) are the
// backend's settings STUDENT_NAME and STUDENT_NUMBER_DIGITS: alerts on them are "for you". Their
// other words are custom keywords, which the backend keeps in memory only (as the original did),
// so this app keeps them and sends them again to a backend that restarted. An earlier version
// kept the name and digits here too and sent them as custom keywords: they move to the settings
// once.
import { call } from './api.ts';
import { listPreference, preference, savePreference } from './preferences.ts';
import { cleanName, otherKeywords, type StudentProfile, validDigits } from './student.ts';

/**
 * The profile an earlier version kept in this browser ('' fields when there is none, or once it
 * moved to the settings).
 */
export function storedStudent(): StudentProfile {
  try {
    const value = JSON.parse(preference('student', '{}')) as Partial<StudentProfile>;
    return {
      name: typeof value.name === 'string' ? value.name : '',
      digits: typeof value.digits === 'string' ? value.digits : '',
    };
  } catch {
    return { name: '', digits: '' };
  }
}

/** True once the student saved a name or chose "later" (the first-run step is then not shown). */
export function studentAsked(): boolean {
  return preference('studentAsked', 'false') === 'true';
}

/** Remembers that the first-run step was answered. */
export function markStudentAsked(): void {
  savePreference('studentAsked', 'true');
}

/** The student's other words (besides their name). */
export function storedOtherKeywords(): string[] {
  return listPreference('customKeywords');
}

/**
 * The custom keywords this app wants the backend to alert on, besides keywords.txt and the
 * student's settings. A profile an earlier version kept here starts moving to the settings.
 */
export function wantedCustomKeywords(): string[] {
  void moveStoredStudent().catch(() => undefined);
  return otherKeywords(storedStudent(), storedOtherKeywords());
}

/** Sends the custom keywords; returns every keyword now in use. */
export async function sendCustomKeywords(keywords: string[]): Promise<string[]> {
  const result = await call('POST /api/update_keywords', { body: { keywords } });
  return result.all_keywords;
}

/** Stores the student's other words and sends them; returns every keyword now in use. */
export async function saveMyKeywords(change: { others: string[] }): Promise<string[]> {
  const all = await sendCustomKeywords(change.others);
  savePreference('customKeywords', JSON.stringify(change.others));
  return all;
}

/** The student's name and digits, as the backend's settings hold them. */
export async function loadStudent(): Promise<StudentProfile> {
  await moveStoredStudent();
  const { effective } = await call('GET /api/settings');
  return {
    name: cleanName(effective.STUDENT_NAME ?? ''),
    digits: (effective.STUDENT_NUMBER_DIGITS ?? '').trim(),
  };
}

/**
 * Saves the student's name and digits as the backend's settings (a running class hears them at
 * once); returns every keyword now in use.
 */
export async function saveStudent(profile: StudentProfile): Promise<string[]> {
  await call('POST /api/settings', {
    body: { fields: { STUDENT_NAME: profile.name, STUDENT_NUMBER_DIGITS: profile.digits } },
  });
  return (await call('GET /api/keywords')).all;
}

let moving: Promise<void> | undefined;

/**
 * Moves a profile an earlier version kept in this browser to the settings, once: a field the
 * settings already hold is kept, and the name and digit phrases leave the custom keywords. Left
 * for the next try when the backend cannot be reached.
 */
function moveStoredStudent(): Promise<void> {
  const earlier = storedStudent();
  if (earlier.name === '' && earlier.digits === '') return Promise.resolve();
  moving ??= (async () => {
    const { effective } = await call('GET /api/settings');
    const fields: Record<string, string> = {};
    if (!effective.STUDENT_NAME?.trim() && cleanName(earlier.name) !== '') {
      fields.STUDENT_NAME = cleanName(earlier.name);
    }
    if (!effective.STUDENT_NUMBER_DIGITS?.trim() && earlier.digits !== '') {
      if (validDigits(earlier.digits)) fields.STUDENT_NUMBER_DIGITS = earlier.digits;
    }
    if (Object.keys(fields).length > 0) await call('POST /api/settings', { body: { fields } });
    const others = otherKeywords(earlier, storedOtherKeywords());
    await sendCustomKeywords(others);
    savePreference('customKeywords', JSON.stringify(others));
    savePreference('student', '{}');
  })().finally(() => {
    moving = undefined;
  });
  return moving;
}
