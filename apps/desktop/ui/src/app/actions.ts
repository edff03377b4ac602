// The actions the components call: panels, the class (start, pause, resume, stop), toasts,
// preferences and the requests made of panels from outside them.
import { signal } from '@preact/signals';
import { requestNotificationPermission } from '../alert-effects.ts';
import { call, uploadRecording } from '../api.ts';
import type { WindowCapture } from '../capture/window-capture.ts';
import type { AppContext } from '../context.ts';
import { describeError } from '../errors.ts';
import { setLang, t } from '../i18n.ts';
import { monitorOf } from '../live-sync.ts';
import type { Player } from '../playback.ts';
import { savePreference } from '../preferences.ts';
import { loadSettingFacts, modeNeedingNothing } from '../setting-facts.ts';
import type { PanelName, Store } from '../store.ts';
import type { BackendLink } from './backend-link.ts';

/** What the actions are made of. */
interface ActionParts {
  store: Store;
  capture: WindowCapture;
  player: Player;
  link: BackendLink;
  toast: AppContext['toast'];
  dismissAlert(): void;
  togglePin(): Promise<void>;
  onLiveEvent: AppContext['onLiveEvent'];
}

/** The app as the components see it. */
export function createActions(parts: ActionParts): AppContext {
  const { store, link, toast } = parts;
  const requests: AppContext['requests'] = {
    rescue: signal(0),
    catchup: signal(0),
    reveal: signal(null),
    recording: signal(null),
    libraryClass: signal(null),
  };
  const openPanel = (panel: PanelName | null) => {
    if (store.get().panel !== panel) store.set({ panel });
  };
  const reloadMonitor = async () => {
    link.sync.setMonitor(monitorOf(await call('GET /api/monitor_status')));
  };
  const monitorAction = async (route: 'POST /api/pause_monitor' | 'POST /api/resume_monitor') => {
    try {
      const answer = await call(route);
      // Not paused or resumed (the class ended or changed elsewhere): the answer says why.
      if (answer.status !== 'paused' && answer.status !== 'resumed') toast(answer.message);
      await reloadMonitor();
    } catch (error) {
      toast(describeError(error, store.get().lang).message, 'error');
    }
  };

  return {
    store,
    capture: parts.capture,
    player: parts.player,
    requests,
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
    pause: () => monitorAction('POST /api/pause_monitor'),
    resume: () => monitorAction('POST /api/resume_monitor'),
    async stop(withNotes) {
      // With notes, the LLM writes them first (LLM_TIMEOUT and a retry).
      const result = await call('POST /api/stop_monitor', {
        query: withNotes ? {} : { with_summary: 'false' },
        timeoutMs: 300_000,
      });
      await reloadMonitor();
      return result;
    },
    pickRecording(file) {
      requests.recording.value = { file };
      openPanel('class');
    },
    async importRecording(file, fields, onProgress, signal) {
      const answer = await uploadRecording(file, fields, onProgress, signal);
      link.sync.setImport(answer.import);
    },
    async cancelImport() {
      link.sync.setImport((await call('POST /api/import/cancel')).import);
    },
    async resumeImport(id) {
      link.sync.setImport((await call('POST /api/import/resume', { body: { id } })).import);
    },
    openClass(id) {
      requests.libraryClass.value = { id };
      openPanel('library');
    },
    rescue() {
      // Offline, the panel says so instead of asking (and keeps an older answer marked as such).
      openPanel('rescue');
      requests.rescue.value++;
    },
    catchup() {
      openPanel('catchup');
      requests.catchup.value++;
    },
    showLine(id) {
      requests.reveal.value = { id };
      openPanel('transcript');
    },
    dismissAlert: parts.dismissAlert,
    async useDemoMode() {
      try {
        const demo = modeNeedingNothing(await loadSettingFacts());
        if (!demo) return false;
        await call('POST /api/settings', { body: { fields: { ASR_MODE: demo.mode } } });
        await link.refreshHealth();
        toast(t('demoModeSet'));
        return true;
      } catch (error) {
        toast(describeError(error, store.get().lang).message, 'error');
        return false;
      }
    },
    refreshHealth: link.refreshHealth,
    setPreference(patch) {
      if (patch.lang !== undefined) savePreference('lang', patch.lang);
      if (patch.sound !== undefined) savePreference('sound', String(patch.sound));
      if (patch.captionSize !== undefined) savePreference('caption-size', patch.captionSize);
      if (patch.notifications !== undefined) {
        savePreference('notifications', String(patch.notifications));
      }
      // The components are drawn again in the new language (the root is keyed by it).
      if (patch.lang !== undefined) setLang(patch.lang);
      store.set(patch);
    },
    togglePin: parts.togglePin,
    onLiveEvent: parts.onLiveEvent,
    retryConnection() {
      link.live.retryNow();
    },
  };
}
