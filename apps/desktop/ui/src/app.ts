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
import { api } from './api.ts';
import type { AppContext } from './context.ts';
import { h, icon } from './dom.ts';
import { describeError } from './errors.ts';
import { type Lang, setLang, t } from './i18n.ts';
import { createLiveConnection } from './live.ts';
import { createCatchupPanel } from './panels/catchup-panel.ts';
import { createClassPanel } from './panels/class-panel.ts';
import {
  applyCustomKeywords,
  createKeywordsPanel,
  storedCustomKeywords,
} from './panels/keywords-panel.ts';
import { createNotesPanel } from './panels/notes-panel.ts';
import type { Panel } from './panels/panel.ts';
import { createRescuePanel } from './panels/rescue-panel.ts';
import { createSettingsPanel } from './panels/settings-panel.ts';
import { createTranscriptPanel } from './panels/transcript-panel.ts';
import { preference, savePreference } from './preferences.ts';
import { isTextField, shortcutFor } from './shortcuts.ts';
import {
  type AppState,
  createStore,
  IDLE_MONITOR,
  type PanelName,
  type Store,
  upsertLine,
} from './store.ts';
import type {
  BackgroundError,
  Health,
  KeywordAlert,
  KeywordsView,
  MonitorStatus,
  StartResult,
  StopResult,
  StreamOpened,
  TranscriptAnswer,
  TranscriptLine,
} from './types.ts';
import { createBar } from './views/bar.ts';
import { fitWindow, isFramed, openPip, pipWindow, type Size, WINDOW_SIZES } from './window.ts';

const TABS: Array<{ name: PanelName; text: Parameters<typeof t>[0] }> = [
  { name: 'class', text: 'tabClass' },
  { name: 'transcript', text: 'tabTranscript' },
  { name: 'rescue', text: 'tabRescue' },
  { name: 'catchup', text: 'tabCatchup' },
  { name: 'notes', text: 'tabNotes' },
  { name: 'keywords', text: 'tabKeywords' },
  { name: 'settings', text: 'tabSettings' },
];

/** How long an alert stays up by itself: attention 20 s, roll call until dismissed (max 3 min). */
const ALERT_MS = { danger: 180_000, warning: 20_000 };

function monitorOf(status: MonitorStatus & Record<string, unknown>): MonitorStatus {
  return {
    state: status.state,
    is_monitoring: status.is_monitoring,
    is_paused: status.is_paused,
    course_name: status.course_name,
    asr_mode: status.asr_mode,
    cite_filename: status.cite_filename,
    started_at: status.started_at,
    recognizer_state: status.recognizer_state,
  };
}

/** The size the window should have for this state. */
export function viewSize(state: Pick<AppState, 'panel' | 'alert'>): Size {
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
  });

  const liveListeners = new Set<(name: string, data: unknown) => void>();
  let toastTimer: ReturnType<typeof setTimeout> | undefined;
  let alertTimer: ReturnType<typeof setTimeout> | undefined;
  let alertSerial = 0;
  let reloading: Promise<void> | undefined;
  /** A reload was asked for while one ran: its answers may predate what changed since. */
  let reloadAgain = false;
  let queued: Array<[string, unknown]> = [];

  const toast = (text: string, kind: 'info' | 'error' = 'info') => {
    clearTimeout(toastTimer);
    store.set({ toast: { text, kind } });
    toastTimer = setTimeout(() => store.set({ toast: null }), kind === 'error' ? 6000 : 3500);
  };

  const refreshHealth = async () => {
    try {
      store.set({ health: await api<Health>('/api/health') });
    } catch {
      // The live connection reports the backend as offline.
    }
  };

  const refreshKeywords = async (restarted: boolean) => {
    try {
      const view = await api<KeywordsView>('/api/keywords');
      const mine = storedCustomKeywords();
      // The backend keeps custom keywords in memory only: give them back after a restart.
      const same =
        mine.length === view.custom.length && mine.every((word) => view.custom.includes(word));
      if ((restarted || view.custom.length === 0) && mine.length > 0 && !same) {
        store.set({ keywords: await applyCustomKeywords(mine) });
      } else {
        store.set({ keywords: view.all });
      }
    } catch {
      // Highlighting is a nicety; alerts come from the backend anyway.
    }
  };

  /** Re-reads transcript, status and health; live events arriving meanwhile are applied after. */
  const reloadState = (restarted: boolean): Promise<void> => {
    if (reloading) {
      reloadAgain = true;
      return reloading;
    }
    reloading = (async () => {
      try {
        const [transcript, status] = await Promise.all([
          api<TranscriptAnswer>('/api/transcript?limit=500'),
          api<MonitorStatus & Record<string, unknown>>('/api/monitor_status'),
        ]);
        store.set({
          lines: transcript.entries,
          partial: transcript.partial,
          historySummary: transcript.history_summary,
          monitor: monitorOf(status),
        });
      } catch {
        // Offline again: the next connection reloads.
      } finally {
        reloading = undefined;
        const pending = queued;
        queued = [];
        for (const [name, data] of pending) handleEvent(name, data);
      }
      void refreshHealth();
      void refreshKeywords(restarted);
      if (reloadAgain) {
        reloadAgain = false;
        await reloadState(false);
      }
    })();
    return reloading;
  };

  /**
   * Sets the monitor status from any source (event, HTTP answer, stream opening). A class that
   * was not running before — told by its start time, whichever source comes first — starts a
   * new transcript (indexes from 0 again): drop the old lines and read what it already has.
   */
  const setMonitor = (monitor: MonitorStatus) => {
    const previous = store.get().monitor;
    store.set({ monitor });
    if (monitor.state !== 'idle' && monitor.started_at !== previous.started_at) {
      store.set({ lines: [], partial: '', historySummary: '' });
      void reloadState(false);
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

  const handleEvent = (name: string, data: unknown) => {
    if (
      reloading &&
      (name === 'line.appended' || name === 'line.updated' || name === 'history.folded')
    ) {
      queued.push([name, data]);
      return;
    }
    const state = store.get();
    switch (name) {
      case 'line.appended':
      case 'line.updated':
        store.set({ lines: upsertLine(state.lines, data as TranscriptLine) });
        break;
      case 'partial.changed':
        store.set({ partial: (data as { text: string }).text });
        break;
      case 'alert.raised':
        raiseAlert(data as KeywordAlert);
        break;
      case 'monitor.changed': {
        const monitor = monitorOf(data as MonitorStatus & Record<string, unknown>);
        setMonitor(monitor);
        if (monitor.recognizer_state === 'ended' && state.monitor.recognizer_state !== 'ended') {
          toast(t('recognizerEnded'));
        }
        break;
      }
      case 'history.folded':
        // Indexes shift after a fold: read the transcript again.
        store.set({ historySummary: (data as { summary: string }).summary });
        void reloadState(false);
        break;
      case 'notes.written':
        toast(t('notesWritten', { filename: (data as { filename: string }).filename }));
        break;
      case 'error.raised': {
        const error = data as BackgroundError;
        toast(
          error.source === 'recognizer'
            ? t('recognizerFailed', {
                mode: error.mode ?? state.monitor.asr_mode,
                message: error.message,
              })
            : t('errorGeneric', { message: error.message }),
          'error',
        );
        break;
      }
    }
    for (const listener of liveListeners) listener(name, data);
  };

  const live = createLiveConnection({
    onConnection(connection, retryAt) {
      const previous = store.get().connection;
      store.set({ connection, retryAt });
      if (connection === 'online' && previous === 'offline') toast(t('backOnline'));
    },
    onOpened(data: StreamOpened, reload) {
      const monitor = monitorOf(data.monitor as MonitorStatus & Record<string, unknown>);
      store.set({ partial: data.partial });
      if (reload) {
        store.set({ monitor });
        void reloadState(true);
      } else {
        setMonitor(monitor);
        void refreshHealth();
        // A backend that restarted before publishing any event looks like a reconnection: it
        // may have lost the student's own keywords.
        void refreshKeywords(false);
      }
    },
    onEvent: handleEvent,
  });

  // ---------------------------------------------------------------- actions for the views
  let panels = new Map<PanelName, Panel>();
  let rescuePanel: ReturnType<typeof createRescuePanel> | undefined;
  let catchupPanel: ReturnType<typeof createCatchupPanel> | undefined;

  const openPanel = (panel: PanelName | null) => {
    if (store.get().panel === panel) return;
    store.set({ panel });
    if (panel) panels.get(panel)?.onShow?.();
  };

  const monitorAction = async (path: string) => {
    try {
      const status = await api<{ status: string; message: string }>(path, { method: 'POST' });
      await reloadMonitor();
      return status;
    } catch (error) {
      toast(describeError(error, store.get().lang).message, 'error');
      return undefined;
    }
  };
  const reloadMonitor = async () => {
    setMonitor(
      monitorOf(await api<MonitorStatus & Record<string, unknown>>('/api/monitor_status')),
    );
  };

  const context: AppContext = {
    store,
    openPanel,
    togglePanel(panel) {
      openPanel(store.get().panel === panel ? null : panel);
    },
    toast,
    async start(body) {
      if (store.get().notifications) void requestNotificationPermission();
      // Loading an offline model can take a while.
      await api<StartResult>('/api/start_monitor', { body, timeoutMs: 120_000 });
      await reloadMonitor();
    },
    async pause() {
      await monitorAction('/api/pause_monitor');
    },
    async resume() {
      await monitorAction('/api/resume_monitor');
    },
    async stop(withNotes) {
      // With notes, the LLM writes them first (LLM_TIMEOUT and a retry).
      const result = await api<StopResult>(
        `/api/stop_monitor${withNotes ? '' : '?with_summary=false'}`,
        { method: 'POST', timeoutMs: 300_000 },
      );
      await reloadMonitor();
      return result;
    },
    rescue() {
      openPanel('rescue');
      rescuePanel?.run();
    },
    catchup() {
      openPanel('catchup');
      catchupPanel?.run();
    },
    dismissAlert,
    async useDemoMode() {
      try {
        await api('/api/settings', { body: { fields: { ASR_MODE: 'mock' } } });
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
        unlockAudio(pip.document);
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
    const list: Panel[] = [
      createClassPanel(context),
      createTranscriptPanel(context),
      rescuePanel,
      catchupPanel,
      createNotesPanel(context),
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
    // Let the window manager settle before judging whether we are in an ordinary tab.
    setTimeout(updateFramed, 150);
  };
  const updateFramed = () => {
    const size = viewSize(store.get());
    const framed =
      !pipWindow() && isFramed({ width: window.innerWidth, height: window.innerHeight }, size);
    document.body.classList.toggle('framed', framed);
    appElement.style.setProperty('--view-width', `${size.width}px`);
    appElement.style.setProperty('--view-height', `${size.height}px`);
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
        if (state.alert) dismissAlert();
        else if (state.panel) openPanel(null);
        break;
      case 'rescue':
        if (state.connection === 'online') context.rescue();
        break;
      case 'catchup':
        if (state.connection === 'online') context.catchup();
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
