// The app window's microphone in a panel (AUDIO_INPUT=app): the source (microphone, the
// computer's sound, both), the device to capture, a level meter per source, a test before class,
// and what is happening in one sentence — with Retry after a refused permission, a share without
// sound or a lost device, and "capture here" when another window took over. Where the backend
// can record the computer's sound itself (Linux), it offers that. Every view of it follows the
// same controller (../capture/window-capture.ts).

import type { RestAnswer } from '@class-assistant/server/rest-contract';
import { useEffect, useRef, useState } from 'preact/hooks';
import { call } from '../api.ts';
import { captureMessage } from '../capture/capture-message.ts';
import type { CaptureSource } from '../capture/window-capture.ts';
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

type AudioSources = RestAnswer<'GET /api/audio_sources'>;

/** The hint under the source choice when the computer's sound is wanted, by platform. */
function systemHint(sources: AudioSources | undefined) {
  if (!sources) return null;
  if (sources.system.available) return 'captureSystemLinux' as const;
  if (sources.platform === 'darwin') return 'captureSystemMac' as const;
  if (sources.platform === 'win32') return 'captureSystemWindows' as const;
  return null;
}

/**
 * One view of the window's microphone; the devices are read again when `active` (its panel is
 * shown) becomes true or `shown` changes.
 */
export function CaptureView({ active }: { active: boolean }) {
  const { capture, store } = useApp();
  const health = store.use('health').value;
  const status = store.use('capture').value;
  const [local, setLocal] = useState(() => capture.state());
  const [devices, setDevices] = useState<MediaDeviceInfo[]>([]);
  const [sources, setSources] = useState<AudioSources>();
  const [saved, setSaved] = useState('');
  const meters = useRef<HTMLDivElement>(null);
  useEffect(() => capture.subscribe(() => setLocal(capture.state())), [capture]);
  useEffect(
    () =>
      capture.onLevel((level, each) => {
        for (const meter of meters.current?.querySelectorAll('meter') ?? []) {
          const source = meter.dataset.source as 'microphone' | 'system';
          meter.value = meterValue(each[source] ?? level);
        }
      }),
    [capture],
  );
  useEffect(() => {
    if (active) void call('GET /api/audio_sources').then(setSources, () => undefined);
  }, [active]);
  const message = captureMessage(local, status);
  const on = local.microphone === 'on';
  // The list is read when the panel opens and again once the microphone runs (labels appear).
  useEffect(() => {
    if (active || on) void capture.devices().then(setDevices, () => setDevices([]));
  }, [active, on, message.key]);
  useEffect(() => {
    if (on) return;
    for (const meter of meters.current?.querySelectorAll('meter') ?? []) meter.value = 0;
  }, [on]);
  const source = local.source;
  const shown: Array<'microphone' | 'system'> =
    source === 'both' ? ['microphone', 'system'] : [source === 'system' ? 'system' : 'microphone'];
  const hint = source === 'microphone' ? null : systemHint(sources);
  const backendSystem = source === 'both' ? 'system+mic' : 'system';
  const useBackend = async () => {
    await call('POST /api/settings', { body: { fields: { AUDIO_INPUT: backendSystem } } });
    setSaved(backendSystem);
  };

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
      <select
        class="select small capture-source"
        aria-label={t('captureSource')}
        value={source}
        onChange={(event) => capture.chooseSource(event.currentTarget.value as CaptureSource)}
      >
        <option value="microphone">{t('captureSourceMicrophone')}</option>
        <option value="system">
          {sources?.system.available ? t('captureSourceTab') : t('captureSourceSystem')}
        </option>
        <option value="both">{t('captureSourceBoth')}</option>
      </select>
      {hint ? (
        <p class="capture-hint">
          {t(hint)}
          {sources?.system.available ? (
            <>
              {' '}
              <button
                type="button"
                class="link-button"
                onClick={() => void useBackend().catch(() => setSaved(''))}
              >
                {t('captureUseBackendSystem')}
              </button>
            </>
          ) : null}
          {saved ? ` ${t('captureBackendSystemSaved', { value: saved })}` : null}
        </p>
      ) : null}
      <div class="capture-row">
        <select
          hidden={source === 'system'}
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
      <div class="capture-meters" ref={meters}>
        {shown.map((each) => (
          <label key={each} class="capture-meter">
            {shown.length > 1 ? (
              <span>
                {t(each === 'system' ? 'captureSourceSystem' : 'captureSourceMicrophone')}
              </span>
            ) : null}
            <meter
              class="capture-level"
              data-source={each}
              min={0}
              max={1}
              low={0.25}
              high={0.9}
              optimum={0.6}
              aria-label={t(each === 'system' ? 'captureLevelSystem' : 'captureLevelMicrophone')}
            />
          </label>
        ))}
      </div>
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
