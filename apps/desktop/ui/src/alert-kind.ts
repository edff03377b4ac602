// What an alert means for the student: the teacher called them (red, loud, kept until "Got it"),
// the teacher is calling on someone (amber, quiet, gone by itself), or words worth attention.
import type { TextKey } from './i18n.ts';
import type { KeywordAlert } from './types.ts';

/** The three kinds of alert, as the bar and the card carry them (`data-alert-kind`). */
export type AlertKind = 'for-you' | 'roll-call' | 'attention';

/**
 * The kind of an alert: the backend says whether the line names the student (`for_you`); a
 * roll call that does not is someone else's.
 *
 * @example
 * alertKind({ level: 'danger', for_you: false }) // 'roll-call'
 */
export function alertKind(alert: Pick<KeywordAlert, 'level' | 'for_you'>): AlertKind {
  if (alert.for_you) return 'for-you';
  return alert.level === 'danger' ? 'roll-call' : 'attention';
}

/** The words that name each kind (the bar's badge, the card's title, the window title). */
export const ALERT_TITLES: Readonly<Record<AlertKind, TextKey>> = {
  'for-you': 'alertForYou',
  'roll-call': 'alertRollCall',
  attention: 'alertWarning',
};
