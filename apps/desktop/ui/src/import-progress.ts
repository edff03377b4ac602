// The words of a running import: the percent, the minutes done of the recording's length and the
// time left, as the class panel and the bar show them.
import { t } from './i18n.ts';
import type { ImportStatus } from './types.ts';

/** What the progress words are made of. */
type ProgressFacts = Pick<ImportStatus, 'fraction' | 'position_ms' | 'duration_ms' | 'eta_ms'>;

const SECOND = 1000;
const MINUTE = 60 * SECOND;

/** The whole percent done, 0–100 (never rounded up to 100 before the end). */
export function importPercent(status: Pick<ImportStatus, 'fraction'>): number {
  return Math.min(100, Math.max(0, Math.floor(status.fraction * 100)));
}

/**
 * How much of the recording is done: minutes of the length, seconds for a recording shorter
 * than a minute, the minutes alone while the length is not known.
 *
 * @example
 * importDoneText({ position_ms: 12 * 60_000, duration_ms: 58 * 60_000 }); // '已完成 12 / 58 分钟'
 */
export function importDoneText(status: Pick<ProgressFacts, 'position_ms' | 'duration_ms'>): string {
  const position = Math.max(0, status.position_ms);
  if (status.duration_ms === null) {
    return t('importDoneMinutes', { done: Math.floor(position / MINUTE) });
  }
  if (status.duration_ms < MINUTE) {
    const total = Math.max(1, Math.round(status.duration_ms / SECOND));
    return t('importDoneOfSeconds', {
      done: Math.min(total, Math.floor(position / SECOND)),
      total,
    });
  }
  const total = Math.round(status.duration_ms / MINUTE);
  return t('importDoneOf', { done: Math.min(total, Math.floor(position / MINUTE)), total });
}

/**
 * The time left: whole minutes (about), less than a minute, or still being estimated.
 *
 * @example
 * importLeftText({ eta_ms: 170_000 }); // '约剩 3 分钟'
 */
export function importLeftText(status: Pick<ProgressFacts, 'eta_ms'>): string {
  if (status.eta_ms === null) return t('importLeftUnknown');
  if (status.eta_ms < MINUTE) return t('importLeftUnderMinute');
  return t('importLeft', { minutes: Math.round(status.eta_ms / MINUTE) });
}

/** The panel's line: "已完成 12 / 58 分钟，约剩 3 分钟". */
export function importProgressText(status: ProgressFacts): string {
  return t('importProgress', { done: importDoneText(status), left: importLeftText(status) });
}

/** The bar's line: "导入中 43% · 约剩 3 分钟". */
export function importBarText(status: ProgressFacts): string {
  return t('importBar', { percent: importPercent(status), left: importLeftText(status) });
}
