// An AI panel while the backend is offline: it says so, its buttons wait, and an answer already
// on screen is marked as being from before (never passed off as current).
import { useApp } from '../context.ts';
import { t } from '../i18n.ts';

/** True while the backend is offline (the panel's buttons and inputs wait). */
export function useOffline(): boolean {
  return useApp().store.use('connection').value === 'offline';
}

/** The notice, with a way to try again now; `stale` when an answer is on screen. */
export function OfflineNotice({ action, stale }: { action: string; stale: boolean }) {
  const app = useApp();
  const offline = useOffline();
  const [before, after] = t('offlineAi', { action }).split('{retry}');
  return (
    <div class="offline-notice" role="status" hidden={!offline}>
      {offline ? (
        <>
          <p>
            {before}
            <button type="button" class="link-button" onClick={() => app.retryConnection()}>
              {t('retry')}
            </button>
            {after}
          </p>
          {stale ? <p class="stale-note">{t('staleAnswer')}</p> : null}
        </>
      ) : null}
    </div>
  );
}
