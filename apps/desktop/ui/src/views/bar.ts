// The 320x80 bar: listening state, the newest line with the live partial text, the class controls,
// rescue and catch-up; below it, the alert card while an alert shows.
import type { AppContext } from '../context.ts';
import { h, type IconName, icon, replaceChildren } from '../dom.ts';
import { t } from '../i18n.ts';
import type { AppState } from '../store.ts';
import { pipAvailable } from '../window.ts';

function iconButton(
  name: IconName,
  label: string,
  onclick: () => void,
  extra: Record<string, unknown> = {},
): HTMLButtonElement {
  return h(
    'button',
    { class: 'icon-button', title: label, 'aria-label': label, onclick, ...extra },
    icon(name),
  );
}

/** Marks the keywords inside a line. */
export function highlight(text: string, keywords: readonly string[]): Array<string | HTMLElement> {
  const words = keywords.filter((word) => word.trim() !== '');
  if (words.length === 0) return [text];
  const pattern = new RegExp(
    `(${words.map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})`,
    'gi',
  );
  return text
    .split(pattern)
    .filter((part) => part !== '')
    .map((part) =>
      words.some((word) => word.toLowerCase() === part.toLowerCase())
        ? h('mark', null, part)
        : part,
    );
}

/** Creates the bar and the alert card. */
export function createBar(context: AppContext): {
  element: HTMLElement;
  update(state: AppState): void;
} {
  const { store } = context;
  const dot = h('span', { class: 'dot', 'aria-hidden': 'true' });
  const statusText = h('span', { class: 'status-text' });
  const course = h('span', { class: 'course' });
  const startButton = iconButton('play', t('start'), () => {
    const state = store.get();
    if (state.monitor.state === 'paused') void context.resume();
    else context.openPanel('class');
  });
  const pauseButton = iconButton('pause', t('pause'), () => void context.pause());
  const stopButton = iconButton('stop', t('stop'), () => context.openPanel('class'));
  const rescueButton = h(
    'button',
    { class: 'pill-button rescue', title: `${t('rescue')} (R)`, onclick: () => context.rescue() },
    t('rescue'),
  );
  const catchupButton = h(
    'button',
    { class: 'pill-button', title: `${t('catchup')} (C)`, onclick: () => context.catchup() },
    t('catchup'),
  );
  const menuButton = iconButton('menu', t('menu'), () => {
    const state = store.get();
    context.openPanel(state.panel ? null : state.monitor.state === 'idle' ? 'class' : 'transcript');
  });
  const pinButton = pipAvailable()
    ? iconButton('pin', t('pin'), () => void context.togglePin())
    : null;

  const lineText = h('span', { class: 'line-text' });
  const partialText = h('span', { class: 'partial-text' });
  const line = h('p', { class: 'bar-line', 'aria-live': 'polite' }, lineText, partialText);
  const offlineRetry = h(
    'button',
    { class: 'link-button', onclick: () => context.retryConnection() },
    t('retry'),
  );

  const bar = h(
    'header',
    { class: 'bar' },
    h(
      'div',
      { class: 'bar-top' },
      h('span', { class: 'status' }, dot, statusText),
      course,
      h(
        'div',
        { class: 'bar-actions' },
        startButton,
        pauseButton,
        stopButton,
        rescueButton,
        catchupButton,
        menuButton,
        pinButton,
      ),
    ),
    line,
  );

  const alertTitle = h('strong', { class: 'alert-title' });
  const alertKeywords = h('span', { class: 'alert-keywords' });
  const alertTime = h('time', { class: 'alert-time' });
  const alertText = h('p', { class: 'alert-text' });
  const alertCard = h(
    'section',
    { class: 'alert-card', role: 'alert', hidden: true },
    h(
      'div',
      { class: 'alert-head' },
      icon('bell'),
      alertTitle,
      alertKeywords,
      alertTime,
      h('button', { class: 'button small', onclick: () => context.dismissAlert() }, t('dismiss')),
    ),
    alertText,
  );

  let flashedSerial = 0;
  let clock: ReturnType<typeof setInterval> | undefined;

  const update = (state: AppState) => {
    const { monitor, connection } = state;
    const recognizer = monitor.recognizer_state;
    bar.dataset.state = monitor.state;
    bar.dataset.connection = connection;
    // The app window's microphone (AUDIO_INPUT=app): `stopped` when the backend hears nothing.
    bar.dataset.capture = state.capture?.state ?? 'off';
    statusText.textContent =
      connection === 'offline'
        ? t('offline')
        : connection === 'connecting'
          ? t('connecting')
          : recognizer === 'failed'
            ? t('stateFailed')
            : monitor.state === 'running' && state.capture?.state === 'stopped'
              ? t('stateNoAudio')
              : recognizer === 'ended'
                ? t('stateEnded')
                : monitor.state === 'running'
                  ? t('stateRunning')
                  : monitor.state === 'paused'
                    ? t('statePaused')
                    : t('stateIdle');
    course.textContent = monitor.state === 'idle' ? '' : monitor.course_name || t('untitledCourse');
    course.title = course.textContent;

    const running = monitor.state === 'running';
    const paused = monitor.state === 'paused';
    const online = connection === 'online';
    startButton.hidden = running;
    startButton.title = paused ? t('resume') : t('start');
    startButton.setAttribute('aria-label', startButton.title);
    pauseButton.hidden = !running;
    stopButton.hidden = monitor.state === 'idle';
    for (const button of [startButton, pauseButton, stopButton, rescueButton, catchupButton]) {
      button.disabled = !online;
    }
    if (pinButton) {
      pinButton.title = state.pinned ? t('unpin') : t('pin');
      pinButton.classList.toggle('active', state.pinned);
    }

    clearInterval(clock);
    if (connection === 'offline') {
      const render = () => {
        const seconds = Math.max(0, Math.ceil(((state.retryAt ?? Date.now()) - Date.now()) / 1000));
        replaceChildren(
          line,
          h('span', { class: 'line-text offline-text' }, t('offlineDetail', { seconds })),
          ' ',
          offlineRetry,
        );
      };
      render();
      clock = setInterval(render, 1000);
    } else {
      if (line.firstChild !== lineText) replaceChildren(line, lineText, partialText);
      const last = state.lines[state.lines.length - 1];
      const keywords = state.alert ? state.alert.keywords : [];
      if (state.toast) {
        replaceChildren(lineText, state.toast.text);
        lineText.className = `line-text toast ${state.toast.kind}`;
        partialText.textContent = '';
      } else if (last || state.partial) {
        lineText.className = 'line-text';
        replaceChildren(lineText, last ? highlight(last.text, keywords) : '');
        partialText.textContent = state.partial ? `${last ? ' ' : ''}${state.partial}…` : '';
      } else {
        lineText.className = 'line-text hint';
        lineText.textContent =
          monitor.state === 'idle'
            ? t('idleHint')
            : paused
              ? t('pausedHint')
              : connection === 'connecting'
                ? ''
                : t('waitingForSpeech');
        partialText.textContent = '';
      }
    }

    const alert = state.alert;
    alertCard.hidden = alert === null;
    if (alert) {
      const level = alert.level === 'danger' ? 'danger' : 'warning';
      alertCard.dataset.level = level;
      alertTitle.textContent = level === 'danger' ? t('alertDanger') : t('alertWarning');
      replaceChildren(
        alertKeywords,
        alert.keywords.map((word) => h('span', { class: 'chip' }, word)),
      );
      alertTime.textContent = alert.timestamp;
      replaceChildren(alertText, highlight(alert.text, alert.keywords));
      if (alert.serial !== flashedSerial) {
        flashedSerial = alert.serial;
        for (const element of [bar, alertCard]) {
          element.classList.remove('flash');
          // Restart the animation for a repeated alert.
          void element.offsetWidth;
          element.classList.add('flash');
        }
      }
      bar.dataset.alert = level;
    } else {
      delete bar.dataset.alert;
      bar.classList.remove('flash');
    }
  };

  return { element: h('div', { class: 'bar-area' }, bar, alertCard), update };
}
