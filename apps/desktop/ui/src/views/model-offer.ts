// In the class panel, when the offline mode has no model for the class language: the models of
// that language with their sizes, one click to download (with a progress bar) and then the class
// starts by itself. Never a silent fall-back to the demo: the demo stays a separate button.
import { api } from '../api.ts';
import type { AppContext } from '../context.ts';
import { h, replaceChildren } from '../dom.ts';
import { errorBox } from '../errors.ts';
import { t } from '../i18n.ts';
import { downloadModel, loadModels, megabytes } from '../models.ts';
import type { ModelItem, SettingsView } from '../types.ts';

/** The offer: its element, a refresh (models and language), and whether a download runs. */
export interface ModelOffer {
  element: HTMLElement;
  refresh(): Promise<void>;
  readonly busy: boolean;
}

/** Creates the offer; `startClass` starts the class once the model is installed. */
export function createModelOffer(context: AppContext, startClass: () => Promise<void>): ModelOffer {
  let busy = false;
  let language: 'zh' | 'en' = 'zh';
  const title = h('strong', { class: 'model-offer-title' });
  const languageSelect = h(
    'select',
    { class: 'select small', id: 'class-language', 'aria-label': t('classLanguage') },
    h('option', { value: 'zh' }, t('classLanguageZh')),
    h('option', { value: 'en' }, t('classLanguageEn')),
  );
  const choices = h('ul', { class: 'model-choices' });
  const progress = h('progress', { class: 'model-progress', max: 1, value: 0, hidden: true });
  const status = h('p', { class: 'model-status', 'aria-live': 'polite' });
  const element = h(
    'div',
    { class: 'model-offer' },
    title,
    h('label', { class: 'setting-row' }, h('span', null, t('classLanguage')), languageSelect),
    choices,
    progress,
    status,
    h(
      'button',
      { class: 'button small', onclick: () => void context.useDemoMode() },
      t('useDemoMode'),
    ),
  );

  const setBusy = (value: boolean) => {
    busy = value;
    languageSelect.disabled = value;
    for (const button of choices.querySelectorAll('button')) button.disabled = value;
  };

  const download = async (model: ModelItem) => {
    setBusy(true);
    progress.hidden = false;
    progress.value = 0;
    status.className = 'model-status';
    status.textContent = t('modelDownloading', {
      name: model.name,
      percent: 0,
      received: megabytes(0),
      total: megabytes(model.size_bytes),
    });
    const failed = (message: string | HTMLElement) => {
      setBusy(false);
      progress.hidden = true;
      if (typeof message === 'string') {
        status.className = 'model-status error-detail';
        status.textContent = t('modelFailed', { message });
      } else {
        status.replaceChildren(message);
      }
    };
    try {
      await downloadModel(
        context,
        { id: model.id },
        {
          onProgress(received, total) {
            const size = total ?? model.size_bytes;
            progress.value = size > 0 ? received / size : 0;
            status.textContent = t('modelDownloading', {
              name: model.name,
              percent: size > 0 ? Math.floor((received / size) * 100) : 0,
              received: megabytes(received),
              total: megabytes(size),
            });
          },
          onInstalled() {
            progress.value = 1;
            status.textContent = t('modelStarting');
            void (async () => {
              await context.refreshHealth();
              try {
                await startClass();
              } catch (error) {
                failed(errorBox(context, error, () => void startClass()));
                return;
              }
              setBusy(false);
              progress.hidden = true;
              status.textContent = '';
            })();
          },
          onFailed: (_code, message) => failed(message),
        },
      );
    } catch (error) {
      failed(errorBox(context, error));
    }
  };

  const renderChoices = async () => {
    let models: ModelItem[];
    try {
      models = await loadModels();
    } catch (error) {
      replaceChildren(choices, h('li', null, errorBox(context, error)));
      return;
    }
    const offers = models.filter((model) => model.language === language && !model.installed);
    title.textContent = t('modelNeeded', {
      language: language === 'zh' ? t('languageZh') : t('languageEn'),
    });
    replaceChildren(
      choices,
      offers.length === 0
        ? h('li', null, t('modelNoneForLanguage'))
        : offers.map((model) =>
            h(
              'li',
              { class: 'model-choice' },
              h(
                'button',
                {
                  class: 'button small primary model-download',
                  'data-model': model.id,
                  onclick: () => void download(model),
                },
                t('modelDownloadStart', { size: megabytes(model.size_bytes) }),
              ),
              h('span', null, h('code', null, model.name), ` ${model.description}`),
            ),
          ),
    );
  };

  languageSelect.addEventListener('change', async () => {
    language = languageSelect.value === 'en' ? 'en' : 'zh';
    setBusy(true);
    try {
      await api('/api/settings', { body: { fields: { LOCAL_ASR_LANGUAGE: language } } });
      await context.refreshHealth();
    } finally {
      setBusy(false);
    }
    await renderChoices();
  });

  return {
    element,
    get busy() {
      return busy;
    },
    async refresh() {
      if (busy) return;
      try {
        const view = await api<SettingsView>('/api/settings');
        language = view.effective.LOCAL_ASR_LANGUAGE === 'en' ? 'en' : 'zh';
      } catch {
        // Keep the language shown.
      }
      languageSelect.value = language;
      await renderChoices();
    },
  };
}
