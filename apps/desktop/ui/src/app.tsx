// The app: the store, the link to the backend, the actions, and the component tree drawn into
// the page; the window follows the view, alerts, shortcuts and this window's microphone.
import { render } from 'preact';
import { unlockAudio } from './alert-effects.ts';
import { createActions } from './app/actions.ts';
import { createAlerts } from './app/alerts.ts';
import { linkBackend } from './app/backend-link.ts';
import { keyHandler } from './app/keys.ts';
import { fitWindowToView } from './app/window-fit.ts';
import { captureMessage } from './capture/capture-message.ts';
import { createWindowCapture } from './capture/window-capture.ts';
import { type AppContext, AppProvider } from './context.ts';
import { setLang, startLang, t } from './i18n.ts';
import { interruptionNotice } from './interruption-notice.ts';
import { createPlayer } from './playback.ts';
import { preference, savePreference } from './preferences.ts';
import { CAPTION_SIZES, type CaptionSize, createStore, IDLE_MONITOR, type Store } from './store.ts';
import type { LiveMessage } from './types.ts';
import { Shell } from './views/shell.tsx';

/** How long the bar says that the class went on after the backend died (or why it could not). */
const INTERRUPTION_NOTICE_MS = 12_000;

/** The component tree, drawn again from scratch in a new language. */
function Root({ app }: { app: AppContext }) {
  const lang = app.store.use('lang').value;
  return (
    <AppProvider value={app}>
      <Shell key={lang} />
    </AppProvider>
  );
}

function captionSizeOf(value: string): CaptionSize {
  return CAPTION_SIZES.find((size) => size === value) ?? 'normal';
}

/** Mounts the app into `host` (the page's #app). */
export function startApp(host: HTMLElement): { store: Store } {
  const initialLang = startLang(preference('lang', ''), navigator.languages);
  setLang(initialLang);
  const store = createStore({
    connection: 'connecting',
    retryAt: null,
    health: null,
    monitor: IDLE_MONITOR,
    lines: [],
    partial: '',
    historySummary: '',
    keywords: [],
    alert: null,
    panel: null,
    lang: initialLang,
    sound: preference('sound', 'true') === 'true',
    notifications: preference('notifications', 'true') === 'true',
    captionSize: captionSizeOf(preference('caption-size', 'normal')),
    toast: null,
    pinned: false,
    capture: null,
    import: null,
    room: { width: host.clientWidth, height: host.clientHeight },
  });

  let toastTimer: ReturnType<typeof setTimeout> | undefined;
  const toast = (text: string, kind: 'info' | 'error' = 'info', durationMs?: number) => {
    clearTimeout(toastTimer);
    store.set({ toast: { text, kind } });
    const ms = durationMs ?? (kind === 'error' ? 6000 : 3500);
    toastTimer = setTimeout(() => store.set({ toast: null }), ms);
  };

  const liveListeners = new Set<(message: LiveMessage) => void>();
  const alerts = createAlerts(store);
  const link = linkBackend({
    store,
    toast,
    raiseAlert: alerts.raise,
    onEvent: (message) => {
      for (const listener of [...liveListeners]) listener(message);
    },
  });

  // The backend died during the class and came back: said once, without a tap (the status
  // carries it while the resumed class runs, so a window that connects later hears it too).
  store.subscribe((state, previous) => {
    if (state.monitor === previous.monitor) return;
    const told = preference('told-interruption', '') || null;
    const notice = interruptionNotice(state.monitor, state.lang, told);
    if (!notice) return;
    savePreference('told-interruption', notice.at);
    toast(t(notice.key, notice.values), notice.kind, INTERRUPTION_NOTICE_MS);
  });

  // This window's microphone follows the backend: capturing while a class listens to the window
  // (AUDIO_INPUT=app). A class that stops hearing the room says so in the bar.
  const capture = createWindowCapture();
  let captureProblem = '';
  const toastCaptureProblem = () => {
    const message = captureMessage(capture.state(), store.get().capture);
    const key = message.tone === 'bad' ? message.key : '';
    if (key !== '' && key !== captureProblem && capture.state().forClass) {
      toast(t(message.key, message.values), 'error');
    }
    captureProblem = key;
  };
  capture.subscribe(toastCaptureProblem);
  store.subscribe((state, previous) => {
    if (state.capture !== previous.capture) {
      capture.follow(state.capture);
      toastCaptureProblem();
    }
    if (state.captionSize !== previous.captionSize) {
      appElement.dataset.captionSize = state.captionSize;
    }
    if (state.lang !== previous.lang) {
      // The views are drawn again and listen again.
      liveListeners.clear();
      document.documentElement.lang = state.lang === 'zh' ? 'zh-CN' : 'en';
      document.title = t('appName');
    }
  });

  // index.html paints a placeholder bar before this script runs; the real one takes its place.
  const appElement = document.createElement('div');
  appElement.className = 'app';
  appElement.dataset.captionSize = store.get().captionSize;
  host.replaceChildren(appElement);
  document.documentElement.lang = initialLang === 'zh' ? 'zh-CN' : 'en';
  document.title = t('appName');

  // One player of class audio for the window; it stops when the panel closes (the bar has none).
  const audio = document.createElement('audio');
  audio.id = 'class-audio';
  audio.preload = 'metadata';
  document.body.append(audio);
  const player = createPlayer(audio);
  store.subscribe((state, previous) => {
    if (state.panel === null && previous.panel !== null) player.stop();
  });

  let app: AppContext | undefined;
  const onKey = keyHandler(() => app as AppContext);
  const windowFit = fitWindowToView(store, appElement, host, onKey);
  app = createActions({
    store,
    capture,
    player,
    link,
    toast,
    dismissAlert: alerts.dismiss,
    togglePin: windowFit.togglePin,
    onLiveEvent(listener) {
      liveListeners.add(listener);
      return () => liveListeners.delete(listener);
    },
  });
  render(<Root app={app} />, appElement);

  document.addEventListener('keydown', onKey);
  unlockAudio(document);
  link.live.start();
  window.addEventListener('pagehide', () => link.live.stop());
  // Keep "what is not configured" fresh while the bar sits open.
  setInterval(() => {
    if (store.get().connection === 'online') void link.refreshHealth();
  }, 30_000);
  return { store };
}
