// In the settings panel: the installed offline models (each removable) and a form to add any
// model by URL with the SHA-256 its publisher lists (nothing is installed unless it matches).
import { useEffect, useState } from 'preact/hooks';
import { ErrorBox, TechnicalDetails } from '../components/error-box.tsx';
import { useApp } from '../context.ts';
import { t } from '../i18n.ts';
import { downloadModel, loadModels, megabytes, removeModel } from '../models.ts';
import type { ModelItem } from '../types.ts';

/** What the section says under the form. */
type Status =
  | { kind: 'none' }
  | { kind: 'done'; text: string }
  | { kind: 'download-failed'; message: string; technical?: string | undefined }
  | { kind: 'error'; error: unknown };

/** The section; the list is read again each time the settings panel becomes `active`. */
export function ModelsSection({ active }: { active: boolean }) {
  const app = useApp();
  const [installed, setInstalled] = useState<ModelItem[] | null>(null);
  const [listError, setListError] = useState<unknown>(null);
  const [status, setStatus] = useState<Status>({ kind: 'none' });
  const [form, setForm] = useState({ url: '', sha256: '', name: '', language: 'zh' });
  /** Download progress 0–1, or null when no download runs. */
  const [progress, setProgress] = useState<number | null>(null);

  const load = async () => {
    try {
      setInstalled((await loadModels()).filter((model) => model.installed));
      setListError(null);
    } catch (error) {
      setListError(error);
    }
  };
  useEffect(() => {
    if (active) void load();
  }, [active]);

  const remove = async (name: string) => {
    try {
      await removeModel(name);
      setStatus({ kind: 'done', text: t('modelRemoved', { name }) });
      await Promise.all([load(), app.refreshHealth()]);
    } catch (error) {
      setStatus({ kind: 'error', error });
    }
  };

  const add = async () => {
    setStatus({ kind: 'none' });
    setProgress(0);
    const name = form.name.trim();
    try {
      await downloadModel(
        app,
        {
          url: form.url.trim(),
          sha256: form.sha256.trim(),
          name,
          language: form.language === 'en' ? 'en' : 'zh',
        },
        {
          onProgress(received, total) {
            if (total) setProgress(received / total);
          },
          onInstalled() {
            setProgress(null);
            setStatus({ kind: 'done', text: t('modelInstalled', { name }) });
            void load();
            void app.refreshHealth();
          },
          onFailed(_code, message, technical?: string) {
            setProgress(null);
            setStatus({ kind: 'download-failed', message, technical });
          },
        },
      );
    } catch (error) {
      setProgress(null);
      setStatus({ kind: 'error', error });
    }
  };

  const field = (key: keyof typeof form) => ({
    value: form[key],
    onInput: (event: { currentTarget: HTMLInputElement | HTMLSelectElement }) =>
      setForm({ ...form, [key]: event.currentTarget.value }),
  });

  return (
    <div class="models-section">
      <ul class="model-list">
        {listError ? (
          <li>
            <ErrorBox error={listError} />
          </li>
        ) : installed?.length === 0 ? (
          <li class="file-info">{t('modelsNone')}</li>
        ) : (
          installed?.map((model) => (
            <li class="model-row" data-model={model.name} key={model.name}>
              <code>{model.name}</code>
              <small>
                {` ${model.language ?? '?'} · ${model.engine} · ${megabytes(model.size_bytes)} `}
              </small>
              <button
                type="button"
                class="button small danger"
                onClick={() => void remove(model.name)}
              >
                {t('modelRemove')}
              </button>
            </li>
          ))
        )}
      </ul>
      <details class="settings-group">
        <summary>{t('modelAddByUrl')}</summary>
        <label class="field-label" for="model-url">
          {t('modelUrl')}
        </label>
        <input
          class="text-input"
          id="model-url"
          type="url"
          placeholder="https://…/model.zip"
          {...field('url')}
        />
        <label class="field-label" for="model-sha256">
          {t('modelSha256')}
        </label>
        <input
          class="text-input"
          id="model-sha256"
          spellcheck={false}
          maxLength={64}
          {...field('sha256')}
        />
        <label class="field-label" for="model-name">
          {t('modelName')}
        </label>
        <div class="setting-row">
          <input
            class="text-input"
            id="model-name"
            spellcheck={false}
            maxLength={100}
            {...field('name')}
          />
          <select
            class="select small"
            id="model-language"
            aria-label={t('classLanguage')}
            {...field('language')}
          >
            <option value="zh">{t('languageZh')}</option>
            <option value="en">{t('languageEn')}</option>
          </select>
        </div>
        <div class="button-row">
          <button
            type="button"
            class="button"
            id="model-add"
            disabled={progress !== null}
            onClick={() => void add()}
          >
            {t('modelAdd')}
          </button>
        </div>
        <progress class="model-progress" max={1} value={progress ?? 0} hidden={progress === null} />
      </details>
      <div class="panel-status" aria-live="polite">
        {status.kind === 'done' ? <p class="notice ok">{status.text}</p> : null}
        {status.kind === 'download-failed' ? (
          <div class="error-box" role="alert">
            <p class="error-message">{t('modelFailed', { message: status.message })}</p>
            <TechnicalDetails text={status.technical} />
          </div>
        ) : null}
        {status.kind === 'error' ? <ErrorBox error={status.error} /> : null}
      </div>
    </div>
  );
}
