// In the class panel, when the offline mode has no model for the class language: the models of
// that language with their sizes (recommended first, streaming or not), a download source (the
// automatic order by default), one click to download (with a progress bar naming the source and
// any switch to another one) and then the class starts by itself. A model with files that have no
// published checksum asks first. Never a silent fall-back to the demo: it stays a separate button.
import { call } from '../api.ts';
import type { AppContext } from '../context.ts';
import { h, replaceChildren } from '../dom.ts';
import { errorBox } from '../errors.ts';
import { t } from '../i18n.ts';
import {
  downloadModel,
  inLanguage,
  loadModels,
  megabytes,
  modelDescription,
  offeredModels,
} from '../models.ts';
import type { ModelItem } from '../types.ts';

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
  /** LOCAL_ASR_ENGINE: with `sherpa` or `vosk`, only that engine's models can start the class. */
  let engine = 'auto';
  const title = h('strong', { class: 'model-offer-title' });
  const languageSelect = h(
    'select',
    { class: 'select small', id: 'class-language', 'aria-label': t('classLanguage') },
    h('option', { value: 'zh' }, t('classLanguageZh')),
    h('option', { value: 'en' }, t('classLanguageEn')),
  );
  const choices = h('ul', { class: 'model-choices' });
  const sourceSelect = h('select', {
    class: 'select small',
    id: 'model-source',
    'aria-label': t('modelSource'),
  });
  const sourceRow = h(
    'label',
    { class: 'setting-row model-source-row' },
    h('span', null, t('modelSource')),
    sourceSelect,
  );
  const progress = h('progress', { class: 'model-progress', max: 1, value: 0, hidden: true });
  const status = h('p', { class: 'model-status', 'aria-live': 'polite' });
  const source = h('p', { class: 'model-source', hidden: true });
  const notice = h('p', { class: 'model-notice', 'aria-live': 'polite', hidden: true });
  const element = h(
    'div',
    { class: 'model-offer' },
    title,
    h('label', { class: 'setting-row' }, h('span', null, t('classLanguage')), languageSelect),
    choices,
    sourceRow,
    progress,
    status,
    source,
    notice,
    h(
      'button',
      { class: 'button small', onclick: () => void context.useDemoMode() },
      t('useDemoMode'),
    ),
  );

  const setBusy = (value: boolean) => {
    busy = value;
    languageSelect.disabled = value;
    sourceSelect.disabled = value;
    for (const button of choices.querySelectorAll('button')) button.disabled = value;
  };

  const download = async (model: ModelItem) => {
    let allowUnchecked = false;
    if (model.unchecked) {
      const files = model.files
        .filter((file) => file.sha256 === null)
        .map((file) => file.name)
        .join(', ');
      if (!window.confirm(t('modelUncheckedConfirm', { name: model.name, files }))) return;
      allowUnchecked = true;
    }
    const picked = sourceSelect.value;
    setBusy(true);
    source.hidden = true;
    notice.hidden = true;
    notice.textContent = '';
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
        {
          id: model.id,
          ...(picked && model.sources.some((item) => item.id === picked) ? { source: picked } : {}),
          ...(allowUnchecked ? { allow_unchecked: true } : {}),
        },
        {
          onProgress(received, total, from, switched) {
            if (from) {
              source.hidden = false;
              source.dataset.source = from.id;
              source.textContent = t('modelFrom', { source: from.label });
            }
            if (switched) {
              notice.hidden = false;
              notice.textContent = switched;
            }
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
    const offers = offeredModels(models, language, engine);
    title.textContent = t('modelNeeded', {
      language: language === 'zh' ? t('languageZh') : t('languageEn'),
    });
    // The sources offered are those of every model shown (the same hosts for models alike).
    const seen = new Map<string, string>();
    for (const model of offers) {
      for (const item of model.sources) {
        if (!seen.has(item.id)) seen.set(item.id, inLanguage(item.label));
      }
    }
    const keep = sourceSelect.value;
    replaceChildren(
      sourceSelect,
      h('option', { value: '' }, t('modelSourceAuto')),
      [...seen].map(([id, label]) => h('option', { value: id }, label)),
    );
    sourceSelect.value = seen.has(keep) ? keep : '';
    sourceRow.hidden = seen.size < 2;
    replaceChildren(
      choices,
      offers.length === 0
        ? h('li', null, t('modelNoneForLanguage'))
        : offers.map((model) =>
            h(
              'li',
              { class: 'model-choice', 'data-model': model.id },
              h(
                'button',
                {
                  class: `button small model-download${model.recommended || offers.length === 1 ? ' primary' : ''}`,
                  'data-model': model.id,
                  onclick: () => void download(model),
                },
                t('modelDownloadStart', { size: megabytes(model.size_bytes) }),
              ),
              h(
                'span',
                null,
                h('code', null, model.name),
                ' ',
                model.recommended
                  ? h('mark', { class: 'model-tag model-recommended' }, t('modelRecommended'))
                  : null,
                model.streaming === null
                  ? null
                  : h(
                      'small',
                      { class: 'model-tag model-streaming' },
                      model.streaming ? t('modelStreaming') : t('modelNotStreaming'),
                    ),
                model.unchecked
                  ? h('small', { class: 'model-tag model-unchecked' }, t('modelUnchecked'))
                  : null,
                ` ${modelDescription(model)}`,
              ),
            ),
          ),
    );
  };

  languageSelect.addEventListener('change', async () => {
    language = languageSelect.value === 'en' ? 'en' : 'zh';
    setBusy(true);
    try {
      await call('POST /api/settings', { body: { fields: { LOCAL_ASR_LANGUAGE: language } } });
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
        const view = await call('GET /api/settings');
        language = view.effective.LOCAL_ASR_LANGUAGE === 'en' ? 'en' : 'zh';
        engine = String(view.effective.LOCAL_ASR_ENGINE ?? 'auto');
      } catch {
        // Keep the language shown.
      }
      languageSelect.value = language;
      await renderChoices();
    },
  };
}
