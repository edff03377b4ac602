// The 320x80 bar: listening state, the newest line with the live partial text, the class controls,
// rescue and catch-up; and the alert. An alert shows as a card below the bar when the window has
// the room (320x156); when it cannot grow (a small browser tab, a capped Picture-in-Picture
// window) or a panel is open, the bar itself turns into the alert — the question line frozen
// until "Got it", Rescue one tap away — so nothing moves and nothing is hidden. At 320 px the top
// row gives up words before it overflows (see fitTopRow).

import type { IconName } from '../components/icon.tsx';
import type { AppContext } from '../context.ts';
import { h, icon, replaceChildren } from '../dom.ts';
import { t } from '../i18n.ts';
import type { AppState } from '../store.ts';
import { pipAvailable, WINDOW_SIZES } from '../window.ts';

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

/** A pill with an icon and a label; the label can be hidden (the name stays in aria-label). */
function pillButton(
  name: IconName,
  label: string,
  shortcut: string,
  className: string,
  onclick: () => void,
): HTMLButtonElement {
  return h(
    'button',
    {
      class: `pill-button ${className}`,
      title: `${label} (${shortcut})`,
      'aria-label': label,
      onclick,
    },
    icon(name),
    h('span', { class: 'label' }, label),
  );
}

/** Marks the keywords inside a line. */
function highlight(text: string, keywords: readonly string[]): Array<string | HTMLElement> {
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

/** Where an alert shows: in a card below the bar, in the bar itself, or nowhere (no alert). */
type AlertPlace = 'card' | 'bar' | null;

/**
 * The card needs the alert size (320x156) and no panel: a panel keeps its 520 px with its input
 * and newest line on screen, and a window that could not grow would hide the card.
 */
function alertPlace(state: Pick<AppState, 'alert' | 'panel' | 'room'>): AlertPlace {
  if (!state.alert) return null;
  if (state.panel !== null) return 'bar';
  return state.room.height >= WINDOW_SIZES.alert.height - 1 ? 'card' : 'bar';
}

/**
 * The steps by which the top row makes room, in order, each keeping the ones before: catch-up
 * becomes an icon, ■ goes (it is in the class panel), the course name goes (into the status's
 * tooltip), the status words go (the dot stays, its words in the tooltip and for screen
 * readers), the alert title goes (the bell stays). Rescue and ☰ always stay.
 */
const FIT_STEPS = ['fit-1', 'fit-2', 'fit-3', 'fit-4', 'fit-5'] as const;

/** Creates the bar and the alert card. */
export function createBar(context: AppContext): {
  element: HTMLElement;
  update(state: AppState): void;
} {
  const { store } = context;
  const dot = h('span', { class: 'dot', 'aria-hidden': 'true' });
  const statusText = h('span', { class: 'status-text' });
  const status = h('span', { class: 'status', role: 'status' }, dot, statusText);
  const course = h('span', { class: 'course' });
  const inlineTitle = h('strong', { class: 'alert-badge-title' });
  const alertBadge = h('span', { class: 'alert-badge' }, icon('bell'), inlineTitle);
  const startButton = iconButton(
    'play',
    t('start'),
    () => {
      const state = store.get();
      if (state.monitor.state === 'paused') void context.resume();
      else context.openPanel('class');
    },
    { class: 'icon-button start' },
  );
  const pauseButton = iconButton('pause', t('pause'), () => void context.pause(), {
    class: 'icon-button pause',
  });
  const stopButton = iconButton('stop', t('stop'), () => context.openPanel('class'), {
    class: 'icon-button stop',
  });
  const rescueButton = pillButton('rescue', t('rescue'), 'R', 'rescue', () => context.rescue());
  const catchupButton = pillButton('catchup', t('catchup'), 'C', 'catchup', () =>
    context.catchup(),
  );
  const dismissButton = h(
    'button',
    {
      class: 'pill-button dismiss',
      title: `${t('dismiss')} (Esc)`,
      onclick: () => context.dismissAlert(),
    },
    t('dismiss'),
  );
  const menuButton = iconButton(
    'menu',
    t('menu'),
    () => {
      const state = store.get();
      context.openPanel(
        state.panel ? null : state.monitor.state === 'idle' ? 'class' : 'transcript',
      );
    },
    { class: 'icon-button menu' },
  );
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

  const top = h(
    'div',
    { class: 'bar-top' },
    status,
    alertBadge,
    course,
    h(
      'div',
      { class: 'bar-actions' },
      startButton,
      pauseButton,
      stopButton,
      rescueButton,
      catchupButton,
      dismissButton,
      menuButton,
      pinButton,
    ),
  );
  const bar = h('header', { class: 'bar' }, top, line);

  // ---- the card (320x156) ----
  const cardTitle = h('strong', { class: 'alert-title' });
  const cardKeywords = h('span', { class: 'alert-keywords' });
  const cardTime = h('time', { class: 'alert-time' });
  const cardText = h('span', { class: 'alert-words' });
  const expandButton = h('button', { class: 'link-button alert-expand', hidden: true });
  const cardRescue = h(
    'button',
    {
      class: 'pill-button rescue alert-rescue',
      title: `${t('rescue')} (R)`,
      onclick: () => context.rescue(),
    },
    icon('rescue'),
    h('span', { class: 'label' }, t('rescue')),
  );
  const cardDismiss = h(
    'button',
    {
      class: 'pill-button dismiss alert-dismiss',
      title: `${t('dismiss')} (Esc)`,
      onclick: () => context.dismissAlert(),
    },
    t('dismiss'),
  );
  const cardTextBox = h('p', { class: 'alert-text' }, cardTime, ' ', cardText);
  const card = h(
    'section',
    { class: 'alert-card', role: 'alert', hidden: true },
    h(
      'div',
      { class: 'alert-head' },
      icon('bell'),
      cardTitle,
      cardKeywords,
      cardRescue,
      cardDismiss,
    ),
    h('div', { class: 'alert-body' }, cardTextBox, expandButton),
  );
  let expanded = false;
  const setExpanded = (value: boolean) => {
    expanded = value;
    card.classList.toggle('expanded', value);
    expandButton.textContent = value ? t('alertCollapse') : t('alertExpand');
    expandButton.setAttribute('aria-expanded', String(value));
  };
  expandButton.addEventListener('click', () => setExpanded(!expanded));

  /**
   * The keyword chips collapse to what fits: two, one and "+N", or none (the words are marked
   * in the line anyway; all of them are in the tooltip).
   */
  let chipWords: readonly string[] = [];
  const fitChips = () => {
    for (const count of [2, 1, 0]) {
      const shown = chipWords.slice(0, count);
      const more = chipWords.length - shown.length;
      replaceChildren(
        cardKeywords,
        shown.map((word) => h('span', { class: 'chip', title: word }, word)),
        more > 0 && count > 0 ? h('span', { class: 'chip more' }, `+${more}`) : null,
      );
      if (cardKeywords.scrollWidth <= cardKeywords.clientWidth) return;
    }
  };

  /** Fits the chips, and shows the "more" link only when the clamped text is cut. */
  const measureCard = () => {
    if (card.hidden || !card.isConnected) return;
    fitChips();
    expandButton.hidden = !expanded && cardTextBox.scrollHeight <= cardTextBox.clientHeight + 1;
  };

  /** Drops words from the top row, step by step, until it fits (see FIT_STEPS). */
  const fitTopRow = () => {
    if (!top.isConnected) return;
    bar.classList.remove(...FIT_STEPS);
    for (const step of FIT_STEPS) {
      if (top.scrollWidth <= top.clientWidth) break;
      bar.classList.add(step);
    }
  };
  new ResizeObserver(() => {
    fitTopRow();
    measureCard();
  }).observe(top);

  let flashedSerial = 0;
  let clock: ReturnType<typeof setInterval> | undefined;

  const statusWords = (state: AppState): string => {
    const { monitor, connection } = state;
    const recognizer = monitor.recognizer_state;
    if (connection === 'offline') return t('offline');
    if (connection === 'connecting') return t('connecting');
    if (recognizer === 'failed') return t('stateFailed');
    if (monitor.state === 'running' && state.capture?.state === 'stopped') return t('stateNoAudio');
    if (recognizer === 'ended') return t('stateEnded');
    if (monitor.state === 'running') return t('stateRunning');
    if (monitor.state === 'paused') return t('statePaused');
    return t('stateIdle');
  };

  const renderLine = (state: AppState) => {
    const { monitor, connection } = state;
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
      return;
    }
    if (line.firstChild !== lineText) replaceChildren(line, lineText, partialText);
    line.removeAttribute('title');
    const alert = state.alert;
    if (alert && alertPlace(state) === 'bar') {
      // The question stays in view until "Got it", whatever is said next.
      lineText.className = 'line-text alert-line';
      replaceChildren(lineText, highlight(alert.text, alert.keywords));
      line.title = `${alert.timestamp} ${alert.text}`;
      partialText.textContent = '';
      return;
    }
    // After a class ended, its last line is history: the bar says what to do next.
    const last = monitor.state === 'idle' ? undefined : state.lines[state.lines.length - 1];
    const partial = monitor.state === 'idle' ? '' : state.partial;
    if (state.toast) {
      replaceChildren(lineText, state.toast.text);
      lineText.className = `line-text toast ${state.toast.kind}`;
      partialText.textContent = '';
    } else if (last || partial) {
      lineText.className = 'line-text';
      replaceChildren(lineText, last ? highlight(last.text, state.keywords) : '');
      partialText.textContent = partial ? `${last ? ' ' : ''}${partial}…` : '';
    } else {
      lineText.className = 'line-text hint';
      lineText.textContent =
        monitor.state === 'idle'
          ? t('idleHint')
          : monitor.state === 'paused'
            ? t('pausedHint')
            : connection === 'connecting'
              ? ''
              : t('waitingForSpeech');
      partialText.textContent = '';
    }
  };

  const update = (state: AppState) => {
    const { monitor, connection } = state;
    bar.dataset.state = monitor.state;
    bar.dataset.connection = connection;
    // The app window's microphone (AUDIO_INPUT=app): `stopped` when the backend hears nothing.
    bar.dataset.capture = state.capture?.state ?? 'off';
    const words = statusWords(state);
    statusText.textContent = words;
    const courseName = monitor.state === 'idle' ? '' : monitor.course_name || t('untitledCourse');
    course.textContent = courseName;
    course.title = courseName;
    status.title = courseName ? `${words} · ${courseName}` : words;
    status.setAttribute('aria-label', status.title);

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
    cardRescue.disabled = !online;
    if (pinButton) {
      pinButton.title = state.pinned ? t('unpin') : t('pin');
      pinButton.setAttribute('aria-label', pinButton.title);
      pinButton.classList.toggle('active', state.pinned);
    }

    const alert = state.alert;
    const place = alertPlace(state);
    const level = alert?.level === 'danger' ? 'danger' : 'warning';
    if (alert) bar.dataset.alert = level;
    else delete bar.dataset.alert;
    if (place) bar.dataset.alertPlace = place;
    else delete bar.dataset.alertPlace;
    inlineTitle.textContent = level === 'danger' ? t('alertDanger') : t('alertWarning');
    alertBadge.title = alert ? `${inlineTitle.textContent}: ${alert.keywords.join(', ')}` : '';
    dismissButton.hidden = place !== 'bar';
    renderLine(state);

    card.hidden = place !== 'card';
    if (alert) {
      card.dataset.level = level;
      cardTitle.textContent = inlineTitle.textContent;
      chipWords = alert.keywords;
      cardKeywords.title = alert.keywords.join(', ');
      cardTime.textContent = alert.timestamp;
      replaceChildren(cardText, highlight(alert.text, alert.keywords));
      if (alert.serial !== flashedSerial) {
        flashedSerial = alert.serial;
        setExpanded(false);
        for (const element of [bar, card]) {
          element.classList.remove('flash');
          // Restart the animation for a repeated alert.
          void element.offsetWidth;
          element.classList.add('flash');
        }
      }
    } else {
      bar.classList.remove('flash');
      setExpanded(false);
    }
    fitTopRow();
    measureCard();
  };

  return { element: h('div', { class: 'bar-area' }, bar, card), update };
}
