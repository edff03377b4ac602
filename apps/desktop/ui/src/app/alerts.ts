// An alert: shown, sounded, notified and blinked in the title; gone when dismissed or after its
// time.
import { blinkTitle, notifyAlert, playAlertSound, stopTitleBlink } from '../alert-effects.ts';
import { t } from '../i18n.ts';
import type { Store } from '../store.ts';
import type { KeywordAlert } from '../types.ts';

/** How long an alert stays up by itself: attention 20 s, roll call until dismissed (max 3 min). */
const ALERT_MS = { danger: 180_000, warning: 20_000 };

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
  return {
    raise(alert) {
      const level = alert.level === 'danger' ? 'danger' : 'warning';
      serial++;
      store.set({ alert: { ...alert, serial } });
      const state = store.get();
      if (state.sound) playAlertSound(level);
      if (state.notifications) notifyAlert(level, alert.keywords, alert.text);
      blinkTitle(level, t('appName'));
      clearTimeout(timer);
      timer = setTimeout(dismiss, ALERT_MS[level]);
    },
    dismiss,
  };
}
