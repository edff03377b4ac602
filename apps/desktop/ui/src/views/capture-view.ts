// The app window's microphone in a panel (AUDIO_INPUT=app): the device to capture, a level
// meter, a test before class, and what is happening in one sentence — with Retry after a refused
// permission or a lost device, and "capture here" when another window took over. The class and
// settings panels each mount one; both follow the same controller (../capture/window-capture.ts).
import { type CaptureMessage, captureMessage } from '../capture/capture-message.ts';
import type { AppContext } from '../context.ts';
import { h, replaceChildren } from '../dom.ts';
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

/** Creates one view of the window's microphone. */
export function createCaptureView(context: AppContext): {
  element: HTMLElement;
  /** Draws the view again (call on every state change of the app). */
  update(): void;
  /** Reads the device list again (call when the panel opens). */
  onShow(): void;
} {
  const { capture, store } = context;
  const select = h('select', {
    class: 'select small capture-device',
    'aria-label': t('captureDevice'),
  });
  const testButton = h('button', { class: 'button small capture-test' }, t('captureTest'));
  const meter = h('meter', {
    class: 'capture-level',
    min: 0,
    max: 1,
    low: 0.25,
    high: 0.9,
    optimum: 0.6,
    value: 0,
    'aria-label': t('captureLevel'),
  });
  const status = h('p', { class: 'capture-status', role: 'status' });
  const element = h(
    'div',
    { class: 'capture-view', hidden: true },
    h('strong', { class: 'capture-title' }, t('captureTitle')),
    h('div', { class: 'capture-row' }, select, testButton),
    meter,
    status,
  );

  const renderDevices = async () => {
    const devices = await capture.devices().catch(() => []);
    const chosen = capture.chosenDevice();
    replaceChildren(
      select,
      h('option', { value: '' }, t('captureDefaultDevice')),
      devices
        .filter((device) => device.deviceId !== '' && device.deviceId !== 'default')
        .map((device, index) =>
          h(
            'option',
            { value: device.deviceId, selected: device.deviceId === chosen },
            device.label || `${t('captureDevice')} ${index + 1}`,
          ),
        ),
    );
    if (select.value !== chosen) select.value = '';
  };
  select.addEventListener('change', () => capture.chooseDevice(select.value));
  testButton.addEventListener('click', () => capture.test(!capture.state().testing));

  let shown: CaptureMessage | undefined;
  const render = () => {
    const state = store.get();
    const local = capture.state();
    element.hidden = !listensToWindow(state) && !local.testing;
    testButton.hidden = local.forClass;
    testButton.textContent = local.testing ? t('captureStopTest') : t('captureTest');
    if (local.microphone !== 'on') meter.value = 0;
    const message = captureMessage(local, state.capture);
    if (JSON.stringify(message) === JSON.stringify(shown)) return;
    shown = message;
    status.dataset.tone = message.tone;
    const action =
      message.action === 'retry'
        ? h('button', { class: 'link-button', onclick: () => capture.retry() }, t('captureRetry'))
        : message.action === 'take-over'
          ? h(
              'button',
              { class: 'link-button', onclick: () => capture.takeOver() },
              t('captureTakeOver'),
            )
          : null;
    replaceChildren(status, t(message.key, message.values), action ? ' ' : null, action);
    if (local.microphone === 'on') void renderDevices();
  };

  // Views are built again on a language change: a view that was in the page and is no longer
  // stops listening; one not yet placed draws nothing until it is.
  let placed = false;
  const alive = (): boolean => {
    if (element.isConnected) {
      placed = true;
      return true;
    }
    if (placed) for (const stop of subscriptions) stop();
    return false;
  };
  const subscriptions = [
    capture.subscribe(() => {
      if (alive()) render();
    }),
    capture.onLevel((level) => {
      if (alive()) meter.value = meterValue(level);
    }),
  ];

  return {
    element,
    update: render,
    onShow() {
      void renderDevices();
      render();
    },
  };
}
