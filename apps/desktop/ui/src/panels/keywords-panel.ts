// Keywords: the student's name (and student-number digits), their other words, the alert and
// attention words of data/keywords.txt; the file itself (path, reload) under Advanced.
import { call } from '../api.ts';
import type { AppContext } from '../context.ts';
import { h, icon, replaceChildren } from '../dom.ts';
import { errorBox } from '../errors.ts';
import { t } from '../i18n.ts';
import { saveMyKeywords, storedOtherKeywords, storedStudent } from '../my-keywords.ts';
import { savePreference } from '../preferences.ts';
import { otherKeywords } from '../student.ts';
import type { KeywordsView } from '../types.ts';
import { createNameStep } from '../views/name-step.ts';
import type { Panel } from './panel.ts';

function chips(words: readonly string[], level: string): HTMLElement {
  return h(
    'div',
    { class: 'chips' },
    words.map((word) => h('span', { class: `chip ${level}` }, word)),
  );
}

/** Creates the keywords panel. */
export function createKeywordsPanel(context: AppContext): Panel {
  let others: string[] = storedOtherKeywords();
  const nameStep = createNameStep(context, { firstRun: false });
  const alertChips = h('div');
  const attentionChips = h('div');
  const customChips = h('div', { class: 'chips editable' });
  const input = h('input', {
    type: 'text',
    class: 'text-input',
    id: 'keyword-input',
    maxlength: 100,
    placeholder: t('keywordsAddPlaceholder'),
    'aria-label': t('keywordsOthers'),
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
      others.map((word) =>
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
              onclick: () => void save(others.filter((item) => item !== word)),
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
      const view = await call('GET /api/keywords');
      if (others.length === 0 && view.custom.length > 0) {
        // Set by another client (or an older version of this one): adopt them.
        others = otherKeywords(storedStudent(), view.custom);
        savePreference('customKeywords', JSON.stringify(others));
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
      const all = await saveMyKeywords({ others: next });
      others = next;
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
      .filter((word) => word !== '' && !others.includes(word));
    input.value = '';
    if (words.length > 0) void save([...others, ...words]);
  };
  addButton.addEventListener('click', add);
  input.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.isComposing) add();
  });
  reloadButton.addEventListener('click', async () => {
    try {
      await call('POST /api/reload_keywords');
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
      h('h4', null, t('keywordsName')),
      nameStep.element,
      h('h4', null, t('keywordsOthers')),
      customChips,
      h('div', { class: 'inline-form' }, input, addButton),
      status,
      h('h4', null, t('keywordsAlert')),
      alertChips,
      h('h4', null, t('keywordsAttention')),
      attentionChips,
      h(
        'details',
        { class: 'settings-group advanced keywords-file' },
        h('summary', null, t('keywordsAdvanced')),
        h('div', { class: 'file-row' }, fileInfo, reloadButton),
      ),
    ),
    onShow() {
      others = storedOtherKeywords();
      nameStep.load();
      void load();
    },
  };
}
