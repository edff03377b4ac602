// This app's preferences in the settings panel (kept in the browser profile): the language, the
// alert sound, system notifications and the size of the caption text.
import { useEffect, useState } from 'preact/hooks';
import {
  notificationPermission,
  playAlertSound,
  requestNotificationPermission,
} from '../alert-effects.ts';
import { useApp } from '../context.ts';
import { type Lang, lang, type TextKey, t } from '../i18n.ts';
import { CAPTION_SIZES, type CaptionSize } from '../store.ts';

/** The words of each caption size. */
const CAPTION_SIZE_NAMES: Record<CaptionSize, TextKey> = {
  normal: 'captionNormal',
  large: 'captionLarge',
  larger: 'captionLarger',
};

/** The preferences; the notification hint is checked again each time the panel becomes `active`. */
export function AppPreferences({ active }: { active: boolean }) {
  const app = useApp();
  const sound = app.store.use('sound').value;
  const notifications = app.store.use('notifications').value;
  const captionSize = app.store.use('captionSize').value;
  // The browser's permission is not in the store: drawn again when it may have changed.
  const [, setAsked] = useState(0);
  const asked = () => setAsked((count) => count + 1);
  useEffect(() => {
    if (active) asked();
  }, [active]);
  const permission = notificationPermission();
  const hint =
    permission === 'unsupported'
      ? t('notificationsUnsupported')
      : permission === 'denied' && notifications
        ? t('notificationsDenied')
        : '';
  const colon = lang() === 'zh' ? '：' : ': ';
  return (
    <div class="app-settings">
      <label class="setting-row">
        <span>{t('language')}</span>
        <select
          class="select small"
          aria-label={t('language')}
          value={lang()}
          onChange={(event) => app.setPreference({ lang: event.currentTarget.value as Lang })}
        >
          <option value="zh">中文</option>
          <option value="en">English</option>
        </select>
      </label>
      <div class="setting-row">
        <label>
          <input
            type="checkbox"
            checked={sound}
            onChange={(event) => app.setPreference({ sound: event.currentTarget.checked })}
          />
          {t('sound')}
        </label>
        <span class="row-buttons">
          <button type="button" class="button small" onClick={() => playAlertSound('danger')}>
            {`${t('soundTest')}${colon}${t('alertDanger')}`}
          </button>
          <button type="button" class="button small" onClick={() => playAlertSound('warning')}>
            {`${t('soundTest')}${colon}${t('alertWarning')}`}
          </button>
        </span>
      </div>
      <div class="setting-row">
        <label>
          <input
            type="checkbox"
            checked={notifications}
            onChange={async (event) => {
              const on = event.currentTarget.checked;
              app.setPreference({ notifications: on });
              if (on) await requestNotificationPermission();
              asked();
            }}
          />
          {t('notifications')}
        </label>
        <button
          type="button"
          class="button small"
          onClick={async () => {
            await requestNotificationPermission();
            asked();
            if (notificationPermission() === 'granted') {
              new Notification(`🟡 ${t('alertWarning')}`, { body: t('appName'), silent: true });
            }
          }}
        >
          {t('notificationsTest')}
        </button>
      </div>
      <small class="error-detail">{hint}</small>
      <div class="setting-row caption-size">
        <span id="caption-size-label">{t('captionSize')}</span>
        <span class="segmented" role="radiogroup" aria-labelledby="caption-size-label">
          {CAPTION_SIZES.map((size) => (
            <label key={size}>
              <input
                type="radio"
                name="caption-size"
                value={size}
                checked={size === captionSize}
                onChange={() => app.setPreference({ captionSize: size })}
              />
              {t(CAPTION_SIZE_NAMES[size])}
            </label>
          ))}
        </span>
      </div>
    </div>
  );
}
