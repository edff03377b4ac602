// The app window's microphone in a panel (AUDIO_INPUT=app): the device to capture, a level
// meter, a test before class, and what is happening in one sentence — with Retry after a refused
// permission or a lost device, and "capture here" when another window took over. Every view of
// it follows the same controller (../capture/window-capture.ts).
import { useEffect, useRef, useState } from 'preact/hooks';
import { captureMessage } from '../capture/capture-message.ts';
import { useApp } from '../context.ts';
import { t } from '../i18n.ts';
import type { AppState } from '../store.ts';

/** True when the class listens to this window: AUDIO_INPUT=app, or the backend says so. */
function listensToWindow(state: Pick<AppState, 'health' | 'capture'>): boolean {
  const input = state.health?.audio?.input ?? '';
  return input.trim().toLowerCase() === 'app' || (state.capture?.state ?? 'off') !== 'off';
}

/** A level (RMS 0–32767) on a 60 dB meter scale, 0–1. */
function meterValue(level: number): number {
  if (level <= 0) return 0;
  return Math.max(0, Math.min(1, (20 * Math.log10(level / 32768) + 60) / 60));
}

/**
 * One view of the window's microphone; the devices are read again when `active` (its panel is
 * shown) becomes true or `shown` changes.
 */
export function CaptureView({ active, shown }: { active: boolean; shown?: number }) {
  const { capture, store } = useApp();
  const health = store.use('health').value;
  const status = store.use('capture').value;
  const [local, setLocal] = useState(() => capture.state());
  const [devices, setDevices] = useState<MediaDeviceInfo[]>([]);
  const meter = useRef<HTMLMeterElement>(null);
  useEffect(() => capture.subscribe(() => setLocal(capture.state())), [capture]);
  useEffect(
    () =>
      capture.onLevel((level) => {
        if (meter.current) meter.current.value = meterValue(level);
      }),
    [capture],
  );
  const message = captureMessage(local, status);
  const on = local.microphone === 'on';
  // The list is read when the panel opens and again once the microphone runs (labels appear).
  useEffect(() => {
    if (active || on) void capture.devices().then(setDevices, () => setDevices([]));
  }, [active, shown, on, message.key]);
  useEffect(() => {
    if (!on && meter.current) meter.current.value = 0;
  }, [on]);

  const chosen = capture.chosenDevice();
  const listed = devices.filter(
    (device) => device.deviceId !== '' && device.deviceId !== 'default',
  );
  return (
    <div
      class="capture-view"
      hidden={!listensToWindow({ health, capture: status }) && !local.testing}
    >
      <strong class="capture-title">{t('captureTitle')}</strong>
      <div class="capture-row">
        <select
          class="select small capture-device"
          aria-label={t('captureDevice')}
          value={listed.some((device) => device.deviceId === chosen) ? chosen : ''}
          onChange={(event) => capture.chooseDevice(event.currentTarget.value)}
        >
          <option value="">{t('captureDefaultDevice')}</option>
          {listed.map((device, index) => (
            <option key={device.deviceId} value={device.deviceId}>
              {device.label || `${t('captureDevice')} ${index + 1}`}
            </option>
          ))}
        </select>
        <button
          type="button"
          class="button small capture-test"
          hidden={local.forClass}
          onClick={() => capture.test(!capture.state().testing)}
        >
          {local.testing ? t('captureStopTest') : t('captureTest')}
        </button>
      </div>
      <meter
        ref={meter}
        class="capture-level"
        min={0}
        max={1}
        low={0.25}
        high={0.9}
        optimum={0.6}
        aria-label={t('captureLevel')}
      />
      <p class="capture-status" role="status" data-tone={message.tone}>
        {t(message.key, message.values)}
        {message.action === 'retry' ? (
          <>
            {' '}
            <button type="button" class="link-button" onClick={() => capture.retry()}>
              {t('captureRetry')}
            </button>
          </>
        ) : null}
        {message.action === 'take-over' ? (
          <>
            {' '}
            <button type="button" class="link-button" onClick={() => capture.takeOver()}>
              {t('captureTakeOver')}
            </button>
          </>
        ) : null}
      </p>
    </div>
  );
}
