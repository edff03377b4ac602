// In the settings panel: the installed offline models (each removable) and a form to add any
// model by URL with the SHA-256 its publisher lists (nothing is installed unless it matches).
import type { AppContext } from '../context.ts';
import { h, replaceChildren } from '../dom.ts';
import { errorBox } from '../errors.ts';
import { t } from '../i18n.ts';
import { downloadModel, loadModels, megabytes, removeModel } from '../models.ts';

/** The section: its element and a reload. */
export function createModelsSection(context: AppContext): {
  element: HTMLElement;
  load(): Promise<void>;
} {
  const list = h('ul', { class: 'model-list' });
  const status = h('div', { class: 'panel-status', 'aria-live': 'polite' });
  const url = h('input', {
    class: 'text-input',
    id: 'model-url',
    type: 'url',
    placeholder: 'https://…/model.zip',
  });
  const sha256 = h('input', {
    class: 'text-input',
    id: 'model-sha256',
    spellcheck: false,
    maxlength: 64,
  });
  const name = h('input', {
    class: 'text-input',
    id: 'model-name',
    spellcheck: false,
    maxlength: 100,
  });
  const language = h(
    'select',
    { class: 'select small', id: 'model-language', 'aria-label': t('classLanguage') },
    h('option', { value: 'zh' }, t('languageZh')),
    h('option', { value: 'en' }, t('languageEn')),
  );
  const progress = h('progress', { class: 'model-progress', max: 1, value: 0, hidden: true });
  const addButton = h('button', { class: 'button', id: 'model-add' }, t('modelAdd'));

  const load = async () => {
    try {
      const installed = (await loadModels()).filter((model) => model.installed);
      replaceChildren(
        list,
        installed.length === 0
          ? h('li', { class: 'file-info' }, t('modelsNone'))
          : installed.map((model) =>
              h(
                'li',
                { class: 'model-row', 'data-model': model.name },
                h('code', null, model.name),
                h(
                  'small',
                  null,
                  ` ${model.language ?? '?'} · ${model.engine} · ${megabytes(model.size_bytes)} `,
                ),
                h(
                  'button',
                  {
                    class: 'button small danger',
                    onclick: async () => {
                      try {
                        await removeModel(model.name);
                        status.replaceChildren(
                          h('p', { class: 'notice ok' }, t('modelRemoved', { name: model.name })),
                        );
                        await Promise.all([load(), context.refreshHealth()]);
                      } catch (error) {
                        status.replaceChildren(errorBox(context, error));
                      }
                    },
                  },
                  t('modelRemove'),
                ),
              ),
            ),
      );
    } catch (error) {
      replaceChildren(list, h('li', null, errorBox(context, error)));
    }
  };

  addButton.addEventListener('click', async () => {
    addButton.disabled = true;
    status.replaceChildren();
    progress.hidden = false;
    progress.value = 0;
    const done = () => {
      addButton.disabled = false;
      progress.hidden = true;
    };
    try {
      await downloadModel(
        context,
        {
          url: url.value.trim(),
          sha256: sha256.value.trim(),
          name: name.value.trim(),
          language: language.value === 'en' ? 'en' : 'zh',
        },
        {
          onProgress(received, total) {
            if (total) progress.value = received / total;
          },
          onInstalled() {
            done();
            status.replaceChildren(
              h('p', { class: 'notice ok' }, t('modelInstalled', { name: name.value.trim() })),
            );
            void load();
            void context.refreshHealth();
          },
          onFailed(_code, message) {
            done();
            status.replaceChildren(
              h('p', { class: 'error-detail' }, t('modelFailed', { message })),
            );
          },
        },
      );
    } catch (error) {
      done();
      status.replaceChildren(errorBox(context, error));
    }
  });

  const element = h(
    'div',
    { class: 'models-section' },
    list,
    h(
      'details',
      { class: 'settings-group' },
      h('summary', null, t('modelAddByUrl')),
      h('label', { class: 'field-label', for: 'model-url' }, t('modelUrl')),
      url,
      h('label', { class: 'field-label', for: 'model-sha256' }, t('modelSha256')),
      sha256,
      h('label', { class: 'field-label', for: 'model-name' }, t('modelName')),
      h('div', { class: 'setting-row' }, name, language),
      h('div', { class: 'button-row' }, addButton),
      progress,
    ),
    status,
  );
  return { element, load };
}
