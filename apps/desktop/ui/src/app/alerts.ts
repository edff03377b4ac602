// An alert: shown, sounded, notified and blinked in the title; gone when dismissed, after its
// time, or when the class ends (from this window, another one or the backend).
import { blinkTitle, notifyAlert, playAlertSound, stopTitleBlink } from '../alert-effects.ts';
import { type AlertKind, alertKind } from '../alert-kind.ts';
import { t } from '../i18n.ts';
import type { Store } from '../store.ts';
import type { KeywordAlert } from '../types.ts';

/**
 * How long an alert stays up by itself: called until dismissed (max 3 min); someone else's roll
 * call and attention 20 s.
 */
const ALERT_MS: Record<AlertKind, number> = {
  'for-you': 180_000,
  'roll-call': 20_000,
  attention: 20_000,
};

/** Raises and dismisses the alert in the store. */
export function createAlerts(store: Store): {
  raise(alert: KeywordAlert): void;
  dismiss(): void;
} {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let serial = 0;
  const dismiss = () => {
    clearTimeout(timer);
    stopTitleBlink(t('appName'));
    if (store.get().alert) store.set({ alert: null });
  };
  // A class that ended leaves no alert behind: no frozen question, no sound, no blinking title.
  store.subscribe((state, previous) => {
    if (state.monitor.state === 'idle' && previous.monitor.state !== 'idle') dismiss();
  });
  return {
    raise(alert) {
      const kind = alertKind(alert);
      serial++;
      store.set({ alert: { ...alert, serial } });
      const state = store.get();
      if (state.sound) playAlertSound(kind);
      if (state.notifications && kind !== 'roll-call')
        notifyAlert(kind, alert.keywords, alert.text);
      blinkTitle(kind, t('appName'));
      clearTimeout(timer);
      timer = setTimeout(dismiss, ALERT_MS[kind]);
    },
    dismiss,
  };
}
