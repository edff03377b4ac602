// The student's own keywords, kept by this app: their name and student-number digits (the
// first-run step) and any other words. The backend keeps custom keywords in memory only (as the
// original did), so the app sends them again to a backend that restarted.
import { call } from './api.ts';
import { listPreference, preference, savePreference } from './preferences.ts';
import { combinedKeywords, type StudentProfile } from './student.ts';

/** The profile of the first-run step ('' fields until the student gives them). */
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

/** Everything this app wants the backend to alert on, besides keywords.txt. */
export function wantedCustomKeywords(): string[] {
  return combinedKeywords(storedStudent(), storedOtherKeywords());
}

/** Sends the custom keywords; returns every keyword now in use. */
export async function sendCustomKeywords(keywords: string[]): Promise<string[]> {
  const result = await call('POST /api/update_keywords', { body: { keywords } });
  return result.all_keywords;
}

/** Stores the profile and the other words (each when given), sends the whole list. */
export async function saveMyKeywords(change: {
  student?: StudentProfile;
  others?: string[];
}): Promise<string[]> {
  const student = change.student ?? storedStudent();
  const others = change.others ?? storedOtherKeywords();
  const all = await sendCustomKeywords(combinedKeywords(student, others));
  if (change.student) savePreference('student', JSON.stringify(change.student));
  if (change.others) savePreference('customKeywords', JSON.stringify(change.others));
  return all;
}
