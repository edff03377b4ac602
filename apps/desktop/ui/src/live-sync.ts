// Keeps the store in step with the backend: applies each live event to the state, re-reads the
// transcript and status when the live connection says the state may be stale, and holds back
// line events that arrive while such a reload is running (they are applied after it, so a
// reload never erases a newer line). No DOM, no fetch: the caller supplies the reads and the
// side effects, so this runs and is tested without a browser.
import { type Store, translateLine, upsertLine } from './store.ts';
import type {
  BackgroundError,
  ImportStatus,
  KeywordAlert,
  LiveMessage,
  MonitorStatus,
  StreamOpened,
  TranscriptAnswer,
} from './types.ts';

/** What the sync reads and does outside the state. */
export interface LiveSyncOptions {
  store: Store;
  /** Reads the transcript and the monitor status. */
  load(): Promise<{ transcript: TranscriptAnswer; monitor: MonitorStatus }>;
  /** After every reload attempt (`restarted`: the backend may have lost in-memory state). */
  afterReload(restarted: boolean): void;
  /** What an event does besides changing the state (sound, notifications, toasts). */
  effects: {
    alert(alert: KeywordAlert): void;
    recognizerEnded(): void;
    notesWritten(filename: string): void;
    backgroundError(error: BackgroundError): void;
  };
}

/** The live-state sync of one app. */
export interface LiveSync {
  /** Applies one live event. */
  apply(message: LiveMessage): void;
  /** The live connection (re)opened; `reload` when the state must be read again. */
  opened(data: StreamOpened, reload: boolean): void;
  /** Sets the monitor status from any source (event, HTTP answer, stream opening). */
  setMonitor(monitor: MonitorStatus): void;
  /**
   * Sets the import's status from any source (event, HTTP answer): an answer older than what
   * the store has is left out, and `null` (no import) never erases one.
   */
  setImport(status: ImportStatus | null): void;
  /** Re-reads transcript and status; resolves when done (concurrent calls share one run). */
  reload(restarted: boolean): Promise<void>;
}

/** Only the fields the UI knows: the backend may add more. */
export function monitorOf(status: MonitorStatus): MonitorStatus {
  return {
    state: status.state,
    is_monitoring: status.is_monitoring,
    is_paused: status.is_paused,
    course_name: status.course_name,
    asr_mode: status.asr_mode,
    cite_filename: status.cite_filename,
    started_at: status.started_at,
    recognizer_state: status.recognizer_state,
    // (A backend from before interruptions does not say.)
    interruption: status.interruption ?? null,
    // The page the teacher is on (null from a backend before the page tracker).
    current_page: status.current_page ?? null,
  };
}

const LINE_EVENTS: ReadonlySet<LiveMessage['name']> = new Set([
  'line.appended',
  'line.updated',
  'line.translated',
]);

/** Creates the sync. */
export function createLiveSync(options: LiveSyncOptions): LiveSync {
  const { store, effects } = options;
  let reloading: Promise<void> | undefined;
  /** A reload was asked for while one ran: its answers may predate what changed since. */
  let reloadAgain = false;
  let held: LiveMessage[] = [];

  const reload = (restarted: boolean): Promise<void> => {
    if (reloading) {
      reloadAgain = true;
      return reloading;
    }
    reloading = (async () => {
      try {
        const { transcript, monitor } = await options.load();
        store.set({
          lines: transcript.entries,
          partial: transcript.partial,
          historySummary: transcript.history_summary,
          monitor: monitorOf(monitor),
        });
      } catch {
        // Offline again: the next connection reloads.
      } finally {
        reloading = undefined;
        const pending = held;
        held = [];
        for (const message of pending) apply(message);
      }
      options.afterReload(restarted);
      if (reloadAgain) {
        reloadAgain = false;
        await reload(false);
      }
    })();
    return reloading;
  };

  /**
   * A class that was not running before — told by its start time, whichever source comes
   * first — has a new transcript (ids from 1 again): drop the old lines and read what it has.
   */
  const setMonitor = (monitor: MonitorStatus) => {
    const previous = store.get().monitor;
    store.set({ monitor });
    if (monitor.state !== 'idle' && monitor.started_at !== previous.started_at) {
      store.set({ lines: [], partial: '', historySummary: '' });
      void reload(false);
    }
  };

  const setImport = (status: ImportStatus | null) => {
    const current = store.get().import;
    if (status === null) return;
    if (current && current.id === status.id && current.updated_at > status.updated_at) return;
    if (current && current.id !== status.id && current.started_at > status.started_at) return;
    store.set({ import: status });
  };

  const apply = (message: LiveMessage) => {
    if (reloading && LINE_EVENTS.has(message.name)) {
      held.push(message);
      return;
    }
    const state = store.get();
    switch (message.name) {
      case 'line.appended':
      case 'line.updated':
        store.set({ lines: upsertLine(state.lines, message.data) });
        return;
      case 'line.translated':
        store.set({
          lines: translateLine(state.lines, message.data.id, message.data.translation),
        });
        return;
      case 'partial.changed':
        store.set({ partial: message.data.text });
        return;
      case 'alert.raised':
        effects.alert(message.data);
        return;
      case 'monitor.changed': {
        const monitor = monitorOf(message.data);
        setMonitor(monitor);
        if (monitor.recognizer_state === 'ended' && state.monitor.recognizer_state !== 'ended') {
          effects.recognizerEnded();
        }
        return;
      }
      case 'page.changed':
        store.set({ monitor: { ...state.monitor, current_page: message.data.page } });
        return;
      case 'history.folded':
        // The lines shown keep their ids: only the summary changes.
        store.set({ historySummary: message.data.summary });
        return;
      case 'notes.written':
        effects.notesWritten(message.data.filename);
        return;
      case 'error.raised':
        effects.backgroundError(message.data);
        return;
      case 'capture.changed':
        store.set({ capture: message.data });
        return;
      case 'import.changed':
        setImport(message.data);
        return;
      case 'material.uploaded':
      case 'library.changed':
      case 'mark.added':
        // Panels that show them listen through onLiveEvent.
        return;
    }
  };

  return {
    apply,
    setMonitor,
    setImport,
    reload,
    opened(data, reloadNow) {
      const monitor = monitorOf(data.monitor);
      // (A backend from before the app window's capture does not say.)
      store.set({ partial: data.partial, capture: data.capture ?? null });
      if (reloadNow) {
        store.set({ monitor });
        void reload(true);
      } else {
        setMonitor(monitor);
      }
    },
  };
}
