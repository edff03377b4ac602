// The app: one store fed by the live connection, the actions the views call, the window size
// following the view, alerts, shortcuts and the always-on-top window.
import {
  blinkTitle,
  notifyAlert,
  playAlertSound,
  requestNotificationPermission,
  stopTitleBlink,
  unlockAudio,
} from './alert-effects.ts';
import { call } from './api.ts';
import { captureMessage } from './capture/capture-message.ts';
import { createWindowCapture } from './capture/window-capture.ts';
import type { AppContext } from './context.ts';
import { h, icon } from './dom.ts';
import { backgroundErrorText, describeError } from './errors.ts';
import { type Lang, setLang, t } from './i18n.ts';
import { interruptionNotice } from './interruption-notice.ts';
import { createLiveConnection } from './live.ts';
import { createLiveSync, monitorOf } from './live-sync.ts';
import { sendCustomKeywords, wantedCustomKeywords } from './my-keywords.ts';
import { createAskPanel } from './panels/ask-panel.ts';
import { createCatchupPanel } from './panels/catchup-panel.ts';
import { createClassPanel } from './panels/class-panel.ts';
import { createKeywordsPanel } from './panels/keywords-panel.ts';
import { createLibraryPanel } from './panels/library-panel.ts';
import { createNotesPanel } from './panels/notes-panel.ts';
import type { Panel } from './panels/panel.ts';
import { createRescuePanel } from './panels/rescue-panel.ts';
import { createSettingsPanel } from './panels/settings-panel.ts';
import { createTranscriptPanel } from './panels/transcript-panel.ts';
import { preference, savePreference } from './preferences.ts';
import { loadSettingFacts, modeNeedingNothing } from './setting-facts.ts';
import { isTextField, shortcutFor } from './shortcuts.ts';
import { type AppState, createStore, IDLE_MONITOR, type PanelName, type Store } from './store.ts';
import type { KeywordAlert, LiveMessage } from './types.ts';
import { createBar } from './views/bar.ts';
import { fitWindow, isFramed, openPip, pipWindow, type Size, WINDOW_SIZES } from './window.ts';

const TABS: Array<{ name: PanelName; text: Parameters<typeof t>[0] }> = [
  { name: 'class', text: 'tabClass' },
  { name: 'transcript', text: 'tabTranscript' },
  { name: 'rescue', text: 'tabRescue' },
  { name: 'catchup', text: 'tabCatchup' },
  { name: 'ask', text: 'tabAsk' },
  { name: 'notes', text: 'tabNotes' },
  { name: 'library', text: 'tabLibrary' },
  { name: 'keywords', text: 'tabKeywords' },
  { name: 'settings', text: 'tabSettings' },
];

/** How long an alert stays up by itself: attention 20 s, roll call until dismissed (max 3 min). */
const ALERT_MS = { danger: 180_000, warning: 20_000 };
/** How long the bar says that the class went on after the backend died (or why it could not). */
const INTERRUPTION_NOTICE_MS = 12_000;

/** The size the window should have for this state. */
function viewSize(state: Pick<AppState, 'panel' | 'alert'>): Size {
  if (state.panel) return WINDOW_SIZES.panel;
  if (state.alert) return WINDOW_SIZES.alert;
  return WINDOW_SIZES.bar;
}

/** Mounts the app into `host` (the page's #app). */
export function startApp(host: HTMLElement): { store: Store } {
  const initialLang: Lang = preference('lang', 'zh') === 'en' ? 'en' : 'zh';
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
    toast: null,
    pinned: false,
    capture: null,
    room: { width: host.clientWidth, height: host.clientHeight },
  });

  const liveListeners = new Set<(message: LiveMessage) => void>();
  let toastTimer: ReturnType<typeof setTimeout> | undefined;
  let alertTimer: ReturnType<typeof setTimeout> | undefined;
  let alertSerial = 0;

  const toast = (text: string, kind: 'info' | 'error' = 'info', durationMs?: number) => {
    clearTimeout(toastTimer);
    store.set({ toast: { text, kind } });
    toastTimer = setTimeout(
      () => store.set({ toast: null }),
      durationMs ?? (kind === 'error' ? 6000 : 3500),
    );
  };

  const refreshHealth = async () => {
    try {
      // The names of the modes and keys health mentions come with the setting facts.
      const [health] = await Promise.all([
        call('GET /api/health'),
        loadSettingFacts().catch(() => undefined),
      ]);
      store.set({ health });
    } catch {
      // The live connection reports the backend as offline.
    }
  };

  const refreshKeywords = async (restarted: boolean) => {
    try {
      const view = await call('GET /api/keywords');
      const mine = wantedCustomKeywords();
      // The backend keeps custom keywords in memory only: give them back after a restart.
      const same =
        mine.length === view.custom.length && mine.every((word) => view.custom.includes(word));
      if ((restarted || view.custom.length === 0) && mine.length > 0 && !same) {
        store.set({ keywords: await sendCustomKeywords(mine) });
      } else {
        store.set({ keywords: view.all });
      }
    } catch {
      // Highlighting is a nicety; alerts come from the backend anyway.
    }
  };

  const raiseAlert = (alert: KeywordAlert) => {
    const level = alert.level === 'danger' ? 'danger' : 'warning';
    alertSerial++;
    store.set({ alert: { ...alert, serial: alertSerial } });
    const state = store.get();
    if (state.sound) playAlertSound(level);
    if (state.notifications) notifyAlert(level, alert.keywords, alert.text);
    blinkTitle(level, t('appName'));
    clearTimeout(alertTimer);
    alertTimer = setTimeout(dismissAlert, ALERT_MS[level]);
  };

  const dismissAlert = () => {
    clearTimeout(alertTimer);
    stopTitleBlink(t('appName'));
    if (store.get().alert) store.set({ alert: null });
  };

  const sync = createLiveSync({
    store,
    load: async () => {
      const [transcript, monitor] = await Promise.all([
        call('GET /api/transcript', { query: { limit: 500 } }),
        call('GET /api/monitor_status'),
      ]);
      return { transcript, monitor };
    },
    afterReload(restarted) {
      void refreshHealth();
      void refreshKeywords(restarted);
    },
    effects: {
      alert: raiseAlert,
      recognizerEnded: () => toast(t('recognizerEnded')),
      notesWritten: (filename) => toast(t('notesWritten', { filename })),
      backgroundError: (error) =>
        toast(backgroundErrorText(error, store.get().monitor.asr_mode), 'error'),
    },
  });

  const live = createLiveConnection({
    onConnection(connection, retryAt) {
      const previous = store.get().connection;
      store.set({ connection, retryAt });
      if (connection === 'online' && previous === 'offline') toast(t('backOnline'));
    },
    onOpened(data, reload) {
      sync.opened(data, reload);
      if (!reload) {
        void refreshHealth();
        // A backend that restarted before publishing any event looks like a reconnection: it
        // may have lost the student's own keywords.
        void refreshKeywords(false);
      }
    },
    onEvent(message) {
      sync.apply(message);
      for (const listener of liveListeners) listener(message);
    },
  });

  // The backend died during the class and came back: said once, without a tap (the status
  // carries it while the resumed class runs, so a window that connects later hears it too).
  store.subscribe((state, previous) => {
    if (state.monitor === previous.monitor) return;
    const notice = interruptionNotice(
      state.monitor,
      state.lang,
      preference('told-interruption', '') || null,
    );
    if (!notice) return;
    savePreference('told-interruption', notice.at);
    toast(t(notice.key, notice.values), notice.kind, INTERRUPTION_NOTICE_MS);
  });

  // ---------------------------------------------------------------- this window's microphone
  // It follows the backend: capturing while a class listens to the window (AUDIO_INPUT=app).
  const capture = createWindowCapture();
  store.subscribe((state, previous) => {
    if (state.capture !== previous.capture) capture.follow(state.capture);
  });
  // A class that stops hearing the room says so in the bar, whatever panel is open.
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
    if (state.capture !== previous.capture) toastCaptureProblem();
  });

  // ---------------------------------------------------------------- actions for the views
  let panels = new Map<PanelName, Panel>();
  let rescuePanel: ReturnType<typeof createRescuePanel> | undefined;
  let catchupPanel: ReturnType<typeof createCatchupPanel> | undefined;
  let transcriptPanel: ReturnType<typeof createTranscriptPanel> | undefined;

  const openPanel = (panel: PanelName | null) => {
    if (store.get().panel === panel) return;
    store.set({ panel });
    if (panel) panels.get(panel)?.onShow?.();
  };

  const monitorAction = async (route: 'POST /api/pause_monitor' | 'POST /api/resume_monitor') => {
    try {
      const status = await call(route);
      await reloadMonitor();
      return status;
    } catch (error) {
      toast(describeError(error, store.get().lang).message, 'error');
      return undefined;
    }
  };
  const reloadMonitor = async () => {
    sync.setMonitor(monitorOf(await call('GET /api/monitor_status')));
  };

  const context: AppContext = {
    store,
    capture,
    openPanel,
    togglePanel(panel) {
      openPanel(store.get().panel === panel ? null : panel);
    },
    toast,
    async start(body) {
      if (store.get().notifications) void requestNotificationPermission();
      // Loading an offline model can take a while.
      await call('POST /api/start_monitor', { body, timeoutMs: 120_000 });
      await reloadMonitor();
    },
    async pause() {
      await monitorAction('POST /api/pause_monitor');
    },
    async resume() {
      await monitorAction('POST /api/resume_monitor');
    },
    async stop(withNotes) {
      // With notes, the LLM writes them first (LLM_TIMEOUT and a retry).
      const result = await call('POST /api/stop_monitor', {
        query: withNotes ? {} : { with_summary: 'false' },
        timeoutMs: 300_000,
      });
      await reloadMonitor();
      return result;
    },
    rescue() {
      // Offline, the panel says so instead of asking (and keeps an older answer marked as such).
      openPanel('rescue');
      rescuePanel?.run();
    },
    catchup() {
      openPanel('catchup');
      catchupPanel?.run();
    },
    showLine(id) {
      transcriptPanel?.reveal(id);
      openPanel('transcript');
    },
    dismissAlert,
    async useDemoMode() {
      try {
        const demo = modeNeedingNothing(await loadSettingFacts());
        if (!demo) return false;
        await call('POST /api/settings', { body: { fields: { ASR_MODE: demo.mode } } });
        await refreshHealth();
        toast(t('demoModeSet'));
        return true;
      } catch (error) {
        toast(describeError(error, store.get().lang).message, 'error');
        return false;
      }
    },
    refreshHealth,
    setPreference(patch) {
      if (patch.lang !== undefined) savePreference('lang', patch.lang);
      if (patch.sound !== undefined) savePreference('sound', String(patch.sound));
      if (patch.notifications !== undefined)
        savePreference('notifications', String(patch.notifications));
      store.set(patch);
      if (patch.lang !== undefined) {
        setLang(patch.lang);
        mount();
      }
    },
    async togglePin() {
      const open = pipWindow();
      if (open) {
        open.close();
        return;
      }
      const pip = await openPip(appElement, host, viewSize(store.get()), () => {
        store.set({ pinned: false });
        applySize();
      });
      if (pip) {
        store.set({ pinned: true });
        pip.document.addEventListener('keydown', onKey);
        pip.addEventListener('resize', measureRoom);
        unlockAudio(pip.document);
        measureRoom();
      }
    },
    onLiveEvent(listener) {
      liveListeners.add(listener);
      return () => liveListeners.delete(listener);
    },
    retryConnection() {
      live.retryNow();
    },
  };

  // ---------------------------------------------------------------- the DOM
  const appElement = h('div', { class: 'app' });
  // index.html paints a placeholder bar before this script runs; the real one takes its place.
  host.replaceChildren(appElement);
  let unsubscribeViews: (() => void) | undefined;

  /** Builds every view (again, after a language change). */
  const mount = () => {
    unsubscribeViews?.();
    liveListeners.clear();
    document.documentElement.lang = store.get().lang === 'zh' ? 'zh-CN' : 'en';
    document.title = t('appName');
    const bar = createBar(context);
    rescuePanel = createRescuePanel(context);
    catchupPanel = createCatchupPanel(context);
    transcriptPanel = createTranscriptPanel(context);
    const list: Panel[] = [
      createClassPanel(context),
      transcriptPanel,
      rescuePanel,
      catchupPanel,
      createAskPanel(context),
      createNotesPanel(context),
      createLibraryPanel(context),
      createKeywordsPanel(context),
      createSettingsPanel(context),
    ];
    panels = new Map(list.map((panel) => [panel.name, panel]));
    const tabs = h(
      'nav',
      { class: 'tabs', role: 'tablist' },
      TABS.map((tab) =>
        h(
          'button',
          {
            class: 'tab',
            role: 'tab',
            'data-panel': tab.name,
            onclick: () => openPanel(tab.name),
          },
          t(tab.text),
        ),
      ),
      h(
        'button',
        {
          class: 'icon-button tab-close',
          title: `${t('close')} (Esc)`,
          'aria-label': t('close'),
          onclick: () => openPanel(null),
        },
        icon('close'),
      ),
    );
    const content = h('div', { class: 'panel-content' });
    for (const panel of list) {
      panel.element.hidden = true;
      content.appendChild(panel.element);
    }
    const shell = h('div', { class: 'panel-shell', hidden: true }, tabs, content);
    appElement.replaceChildren(bar.element, shell);

    const render = (state: AppState, previous: AppState) => {
      bar.update(state);
      shell.hidden = state.panel === null;
      // Each panel starts at its top (the transcript scrolls itself to its newest line).
      if (state.panel !== previous.panel) content.scrollTop = 0;
      appElement.dataset.view = state.panel ? 'panel' : state.alert ? 'alert' : 'bar';
      for (const button of Array.from(tabs.querySelectorAll<HTMLButtonElement>('.tab'))) {
        const selected = button.dataset.panel === state.panel;
        button.setAttribute('aria-selected', String(selected));
        button.classList.toggle('selected', selected);
      }
      for (const panel of list) {
        panel.element.hidden = panel.name !== state.panel;
        panel.update?.(state, previous);
      }
      if (viewSize(state) !== viewSize(previous) || state.pinned !== previous.pinned) applySize();
    };
    const first = store.get();
    // Render everything once: a "previous" state that differs from the current one everywhere.
    render(first, {
      ...first,
      health: null,
      lines: [],
      partial: '\u0000',
      historySummary: '\u0000',
      keywords: [],
      monitor: { ...IDLE_MONITOR, state: first.monitor.state === 'idle' ? 'running' : 'idle' },
    });
    unsubscribeViews = store.subscribe(render);
    const open = first.panel;
    if (open) panels.get(open)?.onShow?.();
  };

  // ---------------------------------------------------------------- window size
  const applySize = () => {
    const size = viewSize(store.get());
    const pip = pipWindow();
    const target = pip ?? window;
    fitWindow(target, size);
    updateFramed();
    // Let the window manager settle before judging whether we are in an ordinary tab.
    setTimeout(updateFramed, 150);
  };
  /** What the window gave the app (the alert card needs 320x156; see views/bar.ts). */
  const measureRoom = () => {
    const room = { width: appElement.clientWidth, height: appElement.clientHeight };
    const known = store.get().room;
    if (room.width !== known.width || room.height !== known.height) store.set({ room });
  };
  const updateFramed = () => {
    const size = viewSize(store.get());
    const framed =
      !pipWindow() && isFramed({ width: window.innerWidth, height: window.innerHeight }, size);
    document.body.classList.toggle('framed', framed);
    appElement.style.setProperty('--view-width', `${size.width}px`);
    appElement.style.setProperty('--view-height', `${size.height}px`);
    measureRoom();
  };
  window.addEventListener('resize', updateFramed);

  // ---------------------------------------------------------------- keys
  const onKey = (event: KeyboardEvent) => {
    const target = (event.target as Element | null) ?? null;
    const action = shortcutFor(event, isTextField(target));
    if (!action) return;
    const state = store.get();
    event.preventDefault();
    switch (action) {
      case 'escape':
        // Focus leaves the field it was in, so the next key is a shortcut, not typed text.
        // (Checked by shape: the Picture-in-Picture window's elements are of another realm.)
        if (target && 'blur' in target && target !== target.ownerDocument?.body) {
          (target as HTMLElement).blur();
        }
        if (state.alert) dismissAlert();
        else if (state.panel) openPanel(null);
        break;
      case 'rescue':
        context.rescue();
        break;
      case 'catchup':
        context.catchup();
        break;
      case 'pause':
        if (state.monitor.state === 'running') void context.pause();
        else if (state.monitor.state === 'paused') void context.resume();
        break;
      default:
        context.togglePanel(action);
    }
  };
  document.addEventListener('keydown', onKey);
  unlockAudio(document);

  mount();
  updateFramed();
  applySize();
  live.start();
  window.addEventListener('pagehide', () => live.stop());
  // Keep "what is not configured" fresh while the bar sits open.
  setInterval(() => {
    if (store.get().connection === 'online') void refreshHealth();
  }, 30_000);
  return { store };
}
