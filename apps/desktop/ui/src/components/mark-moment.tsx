// ★: marks the current moment of the running class (its newest line) for later: the mark is
// listed with the class in the library and at the end of its notes.
import { call } from '../api.ts';
import { useApp } from '../context.ts';
import { describeError } from '../errors.ts';
import { t } from '../i18n.ts';
import type { ClassMark } from '../types.ts';

/** Local `HH:MM:SS` of an ISO time. */
function localTime(iso: string): string {
  return new Date(iso).toLocaleTimeString('sv-SE');
}

/** The ★ button: usable while a class runs (or is paused); says the time it marked. */
export function MarkMomentButton({ onMarked }: { onMarked?: (mark: ClassMark) => void }) {
  const app = useApp();
  const idle = app.store.use('monitor').value.state === 'idle';
  const label = t('markMoment');
  const mark = async () => {
    try {
      const answer = await call('POST /api/marks', { body: {} });
      app.toast(t('markedAt', { time: localTime(answer.mark.marked_at) }));
      onMarked?.(answer.mark);
    } catch (error) {
      app.toast(describeError(error, app.store.get().lang).message, 'error');
    }
  };
  return (
    <button
      type="button"
      class="icon-button mark-moment"
      title={label}
      aria-label={label}
      disabled={idle}
      onClick={mark}
    >
      ★
    </button>
  );
}
