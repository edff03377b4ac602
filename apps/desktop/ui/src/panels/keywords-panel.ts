// Keywords: the alert and attention words of data/keywords.txt, and the student's own words (their
// name). The backend keeps custom words in memory only (as the original did), so this app stores
// them and gives them back to a backend that restarted.
import { api } from '../api.ts';
import type { AppContext } from '../context.ts';
import { h, icon, replaceChildren } from '../dom.ts';
import { errorBox } from '../errors.ts';
import { t } from '../i18n.ts';
import { listPreference, savePreference } from '../preferences.ts';
import type { KeywordsView } from '../types.ts';
import type { Panel } from './panel.ts';

/** The student's own keywords as stored by this app. */
export function storedCustomKeywords(): string[] {
  return listPreference('customKeywords');
}

/** Sends the custom keywords; returns every keyword now in use. */
export async function applyCustomKeywords(keywords: string[]): Promise<string[]> {
  const result = await api<{ all_keywords: string[] }>('/api/update_keywords', {
    body: { keywords },
  });
  savePreference('customKeywords', JSON.stringify(keywords));
  return result.all_keywords;
}

function chips(words: readonly string[], level: string): HTMLElement {
  return h(
    'div',
    { class: 'chips' },
    words.map((word) => h('span', { class: `chip ${level}` }, word)),
  );
}

/** Creates the keywords panel. */
export function createKeywordsPanel(context: AppContext): Panel {
  let custom: string[] = storedCustomKeywords();
  const alertChips = h('div');
  const attentionChips = h('div');
  const customChips = h('div', { class: 'chips editable' });
  const input = h('input', {
    type: 'text',
    class: 'text-input',
    maxlength: 100,
    placeholder: t('keywordsAddPlaceholder'),
    'aria-label': t('keywordsMine'),
  });
  const addButton = h('button', { class: 'button' }, t('keywordsAdd'));
  const fileInfo = h('p', { class: 'file-info' });
  const status = h('div', { class: 'panel-status' });
  const reloadButton = h('button', { class: 'button small' }, t('reload'));

  const render = (view: KeywordsView) => {
    replaceChildren(alertChips, chips(view.builtin, 'danger'));
    replaceChildren(attentionChips, chips(view.warning, 'warning'));
    replaceChildren(
      customChips,
      custom.map((word) =>
        h(
          'span',
          { class: 'chip mine' },
          word,
          h(
            'button',
            {
              class: 'chip-remove',
              title: `${t('close')} ${word}`,
              'aria-label': `${t('close')} ${word}`,
              onclick: () => void save(custom.filter((item) => item !== word)),
            },
            icon('close'),
          ),
        ),
      ),
    );
    replaceChildren(
      fileInfo,
      t('keywordsFile', { file: view.file }),
      h('br'),
      h('small', null, t('keywordsFileHint')),
      view.problems.length > 0
        ? h(
            'small',
            { class: 'error-detail' },
            ` ${t('keywordsProblems', { count: view.problems.length })}`,
          )
        : null,
    );
  };

  const load = async () => {
    try {
      const view = await api<KeywordsView>('/api/keywords');
      if (custom.length === 0 && view.custom.length > 0) {
        // Set by another client (or an older version of this one): adopt them.
        custom = view.custom;
        savePreference('customKeywords', JSON.stringify(custom));
      }
      context.store.set({ keywords: view.all });
      render(view);
    } catch (error) {
      status.replaceChildren(errorBox(context, error));
    }
  };

  const save = async (next: string[]) => {
    status.replaceChildren();
    try {
      const all = await applyCustomKeywords(next);
      custom = next;
      context.store.set({ keywords: all });
      status.replaceChildren(h('p', { class: 'notice ok' }, t('keywordsSaved')));
      await load();
    } catch (error) {
      status.replaceChildren(errorBox(context, error));
    }
  };

  const add = () => {
    const words = input.value
      .split(/[,，、\n]/)
      .map((word) => word.trim())
      .filter((word) => word !== '' && !custom.includes(word));
    input.value = '';
    if (words.length > 0) void save([...custom, ...words]);
  };
  addButton.addEventListener('click', add);
  input.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.isComposing) add();
  });
  reloadButton.addEventListener('click', async () => {
    try {
      await api('/api/reload_keywords', { method: 'POST' });
      await load();
    } catch (error) {
      status.replaceChildren(errorBox(context, error));
    }
  });

  return {
    name: 'keywords',
    element: h(
      'section',
      { class: 'panel-body keywords-panel' },
      h('p', { class: 'intro' }, t('keywordsIntro')),
      h('h4', null, t('keywordsMine')),
      customChips,
      h('div', { class: 'inline-form' }, input, addButton),
      status,
      h('h4', null, t('keywordsAlert')),
      alertChips,
      h('h4', null, t('keywordsAttention')),
      attentionChips,
      h('div', { class: 'file-row' }, fileInfo, reloadButton),
    ),
    onShow() {
      custom = storedCustomKeywords();
      void load();
    },
  };
}
