// An AI panel while the backend is offline: it says so, its buttons wait, and an answer already
// on screen is marked as being from before (never passed off as current).
import type { AppContext } from '../context.ts';
import { h, replaceChildren } from '../dom.ts';
import { t } from '../i18n.ts';
import type { AppState } from '../store.ts';

/** Creates the notice; call `update` on every state change. */
export function createOfflineNotice(
  context: AppContext,
  parts: {
    /** The feature's name in the sentence ("救场"). */
    action: string;
    button: HTMLButtonElement;
    /** The answer on screen (marked stale while offline). */
    result: HTMLElement;
    /** More controls that need the backend (the follow-up chat's input and send button). */
    controls: ParentNode;
  },
): { element: HTMLElement; update(state: AppState): void } {
  const element = h('div', { class: 'offline-notice', role: 'status', hidden: true });
  let offline = false;
  const update = (state: AppState) => {
    const now = state.connection === 'offline';
    if (now === offline) return;
    offline = now;
    element.hidden = !now;
    const stale = now && !parts.result.hidden && parts.result.textContent?.trim() !== '';
    parts.result.classList.toggle('stale', stale);
    if (now) {
      const [before, after] = t('offlineAi', { action: parts.action }).split('{retry}');
      replaceChildren(
        element,
        h(
          'p',
          null,
          before,
          h(
            'button',
            { class: 'link-button', onclick: () => context.retryConnection() },
            t('retry'),
          ),
          after,
        ),
        stale ? h('p', { class: 'stale-note' }, t('staleAnswer')) : null,
      );
    }
    parts.button.disabled = now;
    for (const control of Array.from(
      parts.controls.querySelectorAll<HTMLButtonElement | HTMLTextAreaElement>('button, textarea'),
    )) {
      control.disabled = now;
    }
  };
  return { element, update };
}
