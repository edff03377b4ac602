// The live connection to the backend feeding the store: the transcript and status, health and
// keywords after each (re)connection, alerts and the toasts of background events.
import { call } from '../api.ts';
import { backgroundErrorText } from '../errors.ts';
import { t } from '../i18n.ts';
import { createLiveConnection, type LiveConnection } from '../live.ts';
import { createLiveSync, type LiveSync } from '../live-sync.ts';
import { sendCustomKeywords, wantedCustomKeywords } from '../my-keywords.ts';
import { loadSettingFacts } from '../setting-facts.ts';
import type { Store } from '../store.ts';
import type { KeywordAlert, LiveMessage } from '../types.ts';

/** What the link needs from the app. */
interface LinkNeeds {
  store: Store;
  toast(text: string, kind?: 'info' | 'error'): void;
  raiseAlert(alert: KeywordAlert): void;
  /** Every live event, after the store took it. */
  onEvent(message: LiveMessage): void;
}

/** The link to the backend. */
export interface BackendLink {
  live: LiveConnection;
  sync: LiveSync;
  /** Re-reads /api/health (and the setting facts its words come with). */
  refreshHealth(): Promise<void>;
}

/** Connects the store to the backend (call `live.start()` to begin). */
export function linkBackend({ store, toast, raiseAlert, onEvent }: LinkNeeds): BackendLink {
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

  /** The import running or last run: a window opened (or reloaded) mid-import shows it. */
  const refreshImport = async () => {
    try {
      sync.setImport((await call('GET /api/import')).import);
    } catch {
      // Offline (the next connection asks again), or a backend without imports.
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
      void refreshImport();
    },
    effects: {
      alert: raiseAlert,
      // The end of a recording being imported is the import's to report, not the class's.
      recognizerEnded: () => {
        if (store.get().import?.state !== 'running') toast(t('recognizerEnded'));
      },
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
        void refreshImport();
        // A backend that restarted before publishing any event looks like a reconnection: it
        // may have lost the student's own keywords.
        void refreshKeywords(false);
      }
    },
    onEvent(message) {
      sync.apply(message);
      onEvent(message);
    },
  });

  return { live, sync, refreshHealth };
}
