// The 320x80 bar: listening state, the newest line with the live partial text, the class controls,
// rescue and catch-up; and the alert. An alert shows as a card below the bar when the window has
// the room (320x156); when it cannot grow (a small browser tab, a capped Picture-in-Picture
// window) or a panel is open, the bar itself turns into the alert — the question line frozen
// until "Got it", Rescue one tap away — so nothing moves and nothing is hidden. At 320 px the top
// row gives up words before it overflows (see FIT_STEPS).
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { ALERT_TITLES, alertKind } from '../alert-kind.ts';
import { Highlight } from '../components/highlight.tsx';
import { Icon } from '../components/icon.tsx';
import { MarkMomentButton } from '../components/mark-moment.tsx';
import { useApp } from '../context.ts';
import { t } from '../i18n.ts';
import { importBarText } from '../import-progress.ts';
import type { AppState } from '../store.ts';
import { pipAvailable, WINDOW_SIZES } from '../window.ts';
import { AlertCard } from './alert-card.tsx';
import { DismissButton, IconButton, PillButton } from './bar-buttons.tsx';

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
 * readers), Rescue keeps its icon. An alert title still too long is cut short last (its words in
 * the badge's tooltip). Rescue and ☰ always stay.
 */
const FIT_STEPS = ['fit-1', 'fit-2', 'fit-3', 'fit-4', 'fit-5'] as const;

function statusWords(
  state: Pick<AppState, 'monitor' | 'connection' | 'capture' | 'import'>,
): string {
  const { monitor, connection } = state;
  const recognizer = monitor.recognizer_state;
  if (connection === 'offline') return t('offline');
  if (connection === 'connecting') return t('connecting');
  if (state.import?.state === 'running') return t('importStatus');
  if (recognizer === 'failed') return t('stateFailed');
  if (monitor.state === 'running' && state.capture?.state === 'stopped') return t('stateNoAudio');
  if (recognizer === 'ended') return t('stateEnded');
  if (monitor.state === 'running') return t('stateRunning');
  if (monitor.state === 'paused') return t('statePaused');
  return t('stateIdle');
}

/** The offline line: the countdown to the next attempt, and "retry". */
function OfflineLine() {
  const app = useApp();
  const retryAt = app.store.use('retryAt').value;
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const clock = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(clock);
  }, []);
  const seconds = Math.max(0, Math.ceil(((retryAt ?? now) - now) / 1000));
  return (
    <p class="bar-line" aria-live="polite">
      <span class="line-text offline-text">{t('offlineDetail', { seconds })}</span>{' '}
      <button type="button" class="link-button" onClick={() => app.retryConnection()}>
        {t('retry')}
      </button>
    </p>
  );
}

/** The bar's second row: the newest line, the live partial, a toast or a hint. */
function BarLine({ frozen }: { frozen: boolean }) {
  const { store } = useApp();
  const connection = store.use('connection').value;
  const monitor = store.use('monitor').value;
  const lines = store.use('lines').value;
  const partialNow = store.use('partial').value;
  const toast = store.use('toast').value;
  const keywords = store.use('keywords').value;
  const alert = store.use('alert').value;
  const importing = store.use('import').value;
  if (connection === 'offline') return <OfflineLine />;
  if (alert && frozen) {
    // The question stays in view until "Got it", whatever is said next; a new element each
    // time, so that screen readers announce it.
    return (
      <p
        key={`alert-${alert.serial}`}
        class="bar-line"
        role="alert"
        title={`${alert.timestamp} ${alert.text}`}
      >
        <span class="line-text alert-line">
          <Highlight text={alert.text} keywords={alert.keywords} />
        </span>
        <span class="partial-text" />
      </p>
    );
  }
  // After a class ended, its last line is history: the bar says what to do next.
  const idle = monitor.state === 'idle';
  const last = idle ? undefined : lines[lines.length - 1];
  const partial = idle ? '' : partialNow;
  let text = null;
  let partialText = '';
  if (toast) {
    text = <span class={`line-text toast ${toast.kind}`}>{toast.text}</span>;
  } else if (importing?.state === 'running') {
    // A recording being imported: how far, and how long still.
    text = <span class="line-text import-line">{importBarText(importing)}</span>;
  } else if (last || partial) {
    text = (
      <span class="line-text">
        {last ? <Highlight text={last.text} keywords={keywords} /> : ''}
      </span>
    );
    partialText = partial ? `${last ? ' ' : ''}${partial}…` : '';
  } else {
    const hint = idle
      ? t('idleHint')
      : monitor.state === 'paused'
        ? t('pausedHint')
        : connection === 'connecting'
          ? ''
          : t('waitingForSpeech');
    text = <span class="line-text hint">{hint}</span>;
  }
  return (
    <p key="line" class="bar-line" aria-live="polite">
      {text}
      <span class="partial-text">{partialText}</span>
    </p>
  );
}

/** The bar and, below it when there is room, the alert card. */
export function BarArea() {
  const app = useApp();
  const { store } = app;
  const monitor = store.use('monitor').value;
  const connection = store.use('connection').value;
  const capture = store.use('capture').value;
  const pinned = store.use('pinned').value;
  const alert = store.use('alert').value;
  const panel = store.use('panel').value;
  const room = store.use('room').value;
  const bar = useRef<HTMLElement>(null);
  const top = useRef<HTMLDivElement>(null);

  const place = alertPlace({ alert, panel, room });
  const kind = alert ? alertKind(alert) : null;
  const title = kind ? t(ALERT_TITLES[kind]) : '';
  const importing = store.use('import').value;
  const words = statusWords({ monitor, connection, capture, import: importing });
  const courseName = monitor.state === 'idle' ? '' : monitor.course_name || t('untitledCourse');
  // The page of the material the teacher is on (a class with material, once a line matched).
  const page = monitor.state === 'idle' ? null : (monitor.current_page ?? null);
  const statusTitle = courseName ? `${words} · ${courseName}` : words;
  const running = monitor.state === 'running';
  const paused = monitor.state === 'paused';
  const offline = connection !== 'online';
  const startLabel = paused ? t('resume') : t('start');
  const pinLabel = pinned ? t('unpin') : t('pin');

  /** Drops words from the top row, step by step, until it fits (see FIT_STEPS). */
  const fitTopRow = () => {
    const row = top.current;
    const element = bar.current;
    if (!row?.isConnected || !element) return;
    const title = row.querySelector('.alert-badge-title');
    const over = (box: Element | null) => box !== null && box.scrollWidth > box.clientWidth;
    element.classList.remove(...FIT_STEPS);
    for (const step of FIT_STEPS) {
      if (!over(row) && !over(title)) break;
      element.classList.add(step);
    }
  };
  useLayoutEffect(fitTopRow);
  useEffect(() => {
    const observer = new ResizeObserver(fitTopRow);
    if (top.current) observer.observe(top.current);
    return () => observer.disconnect();
  }, []);
  // Each new alert flashes the bar again (the same words twice too).
  useLayoutEffect(() => {
    const element = bar.current;
    if (!element) return;
    element.classList.remove('flash');
    if (!alert) return;
    // Restart the animation for a repeated alert.
    void element.offsetWidth;
    element.classList.add('flash');
  }, [alert?.serial]);

  return (
    <div class="bar-area">
      <header
        ref={bar}
        class="bar"
        data-state={monitor.state}
        data-connection={connection}
        // The app window's microphone (AUDIO_INPUT=app): `stopped` when the backend hears nothing.
        data-capture={capture?.state ?? 'off'}
        data-alert={alert ? (alert.level === 'danger' ? 'danger' : 'warning') : undefined}
        data-alert-kind={kind ?? undefined}
        data-alert-place={place ?? undefined}
      >
        <div class="bar-top" ref={top}>
          <span class="status" role="status" title={statusTitle} aria-label={statusTitle}>
            <span class="dot" aria-hidden="true" />
            <span class="status-text">{words}</span>
          </span>
          <span class="alert-badge" title={alert ? `${title}: ${alert.keywords.join(', ')}` : ''}>
            <Icon name="bell" />
            <strong class="alert-badge-title">{title}</strong>
          </span>
          {page !== null && (
            <button
              type="button"
              class="page-chip"
              title={t('pageChipTitle', { page })}
              aria-label={t('pageChipTitle', { page })}
              onClick={() => app.openPanel('material')}
            >
              {t('pageLabel', { page })}
            </button>
          )}
          <span class="course" title={courseName}>
            {courseName}
          </span>
          <div class="bar-actions">
            <IconButton
              name="play"
              label={startLabel}
              class="start"
              hidden={running}
              disabled={offline}
              onClick={() => {
                if (store.get().monitor.state === 'paused') void app.resume();
                else app.openPanel('class');
              }}
            />
            <IconButton
              name="pause"
              label={t('pause')}
              class="pause"
              hidden={!running}
              disabled={offline}
              onClick={() => void app.pause()}
            />
            <IconButton
              name="stop"
              label={t('stop')}
              class="stop"
              hidden={monitor.state === 'idle'}
              disabled={offline}
              onClick={() => app.openPanel('class')}
            />
            {monitor.state !== 'idle' && <MarkMomentButton />}
            <PillButton
              name="rescue"
              label={t('rescue')}
              shortcut="R"
              class="rescue"
              disabled={offline}
              onClick={() => app.rescue()}
            />
            <PillButton
              name="catchup"
              label={t('catchup')}
              shortcut="C"
              class="catchup"
              disabled={offline}
              onClick={() => app.catchup()}
            />
            {place === 'bar' && <DismissButton />}
            <IconButton
              name="menu"
              label={t('menu')}
              class="menu"
              onClick={() => {
                const state = store.get();
                app.openPanel(
                  state.panel ? null : state.monitor.state === 'idle' ? 'class' : 'transcript',
                );
              }}
            />
            {pipAvailable() && (
              <IconButton
                name="pin"
                label={pinLabel}
                class={pinned ? 'pin active' : 'pin'}
                onClick={() => void app.togglePin()}
              />
            )}
          </div>
        </div>
        <BarLine frozen={place === 'bar'} />
      </header>
      {alert && place === 'card' && (
        <AlertCard key={alert.serial} alert={alert} title={title} offline={offline} />
      )}
    </div>
  );
}
