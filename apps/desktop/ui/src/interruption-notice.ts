// What the bar says once after the backend died during a class and came back: that the class
// went on by itself and how long the gap was, or why it could not go on. Each interruption is
// told once (by its time), also to a window that connects only after the backend came back.
import type { Lang, TextKey } from './i18n.ts';
import type { MonitorStatus } from './types.ts';

/** A message for the bar, or null when there is nothing (new) to say. */
export interface InterruptionNotice {
  /** The interruption's time: the same one is not told twice. */
  at: string;
  key: TextKey;
  values: Record<string, string | number>;
  kind: 'info' | 'error';
}

/**
 * The notice for the status's interruption, unless it was told already (`toldAt`).
 *
 * @example
 * interruptionNotice({ ...status, interruption: { at, seconds: 12, resumed: true, reason: null } }, 'zh', null)
 * // { key: 'resumedAfterCrash', values: { seconds: 12 }, kind: 'info', at }
 */
export function interruptionNotice(
  monitor: MonitorStatus,
  lang: Lang,
  toldAt: string | null,
): InterruptionNotice | null {
  const interruption = monitor.interruption;
  if (!interruption || interruption.at === toldAt) return null;
  if (interruption.resumed) {
    return {
      at: interruption.at,
      key: 'resumedAfterCrash',
      values: { seconds: interruption.seconds },
      kind: 'info',
    };
  }
  return {
    at: interruption.at,
    key: 'notResumedAfterCrash',
    values: { reason: interruption.reason ? interruption.reason[lang] : '' },
    kind: 'error',
  };
}
