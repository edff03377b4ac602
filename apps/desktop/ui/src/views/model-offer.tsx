// In the class panel, when the offline mode has no model for the class language: the models of
// that language with their sizes (recommended first, streaming or not), a download source (the
// automatic order by default), one click to download (with a progress bar naming the source and
// any switch to another one) and then the class starts by itself. A model with files that have no
// published checksum asks first. Never a silent fall-back to the demo: it stays a separate button.
import { useEffect, useRef, useState } from 'preact/hooks';
import { call } from '../api.ts';
import { ErrorBox } from '../components/error-box.tsx';
import { useApp } from '../context.ts';
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

/** What the line under the choices says. */
type Status =
  | { kind: 'none' }
  | { kind: 'text'; text: string }
  | { kind: 'failed'; message: string }
  | { kind: 'error'; error: unknown; retry?: () => void };

/**
 * The offer; `startClass` starts the class once the model is installed. It reads the settings
 * and the catalogue again each time `refresh` changes (unless a download runs).
 */
export function ModelOffer({
  startClass,
  refresh,
}: {
  startClass: () => Promise<void>;
  refresh: unknown;
}) {
  const app = useApp();
  const [language, setLanguage] = useState<'zh' | 'en'>('zh');
  /** LOCAL_ASR_ENGINE: with `sherpa` or `vosk`, only that engine's models can start the class. */
  const [engine, setEngine] = useState('auto');
  const [models, setModels] = useState<ModelItem[] | null>(null);
  const [loadError, setLoadError] = useState<unknown>(null);
  const [picked, setPicked] = useState('');
  const [busy, setBusy] = useState(false);
  const [progress, setProgress] = useState<number | null>(null);
  const [from, setFrom] = useState<{ id: string; label: string } | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [status, setStatus] = useState<Status>({ kind: 'none' });
  const running = useRef(false);

  const loadChoices = async () => {
    try {
      setModels(await loadModels());
      setLoadError(null);
    } catch (error) {
      setLoadError(error);
    }
  };
  useEffect(() => {
    if (running.current) return;
    void (async () => {
      try {
        const view = await call('GET /api/settings');
        setLanguage(view.effective.LOCAL_ASR_LANGUAGE === 'en' ? 'en' : 'zh');
        setEngine(String(view.effective.LOCAL_ASR_ENGINE ?? 'auto'));
      } catch {
        // Keep the language shown.
      }
      await loadChoices();
    })();
  }, [refresh]);

  const working = (value: boolean) => {
    running.current = value;
    setBusy(value);
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
    working(true);
    setFrom(null);
    setNotice(null);
    setProgress(0);
    const downloading = (received: number, size: number) =>
      setStatus({
        kind: 'text',
        text: t('modelDownloading', {
          name: model.name,
          percent: size > 0 ? Math.floor((received / size) * 100) : 0,
          received: megabytes(received),
          total: megabytes(size),
        }),
      });
    downloading(0, model.size_bytes);
    const failed = (next: Status) => {
      working(false);
      setProgress(null);
      setStatus(next);
    };
    try {
      await downloadModel(
        app,
        {
          id: model.id,
          ...(picked && model.sources.some((item) => item.id === picked) ? { source: picked } : {}),
          ...(allowUnchecked ? { allow_unchecked: true } : {}),
        },
        {
          onProgress(received, total, source, switched) {
            if (source) setFrom(source);
            if (switched) setNotice(switched);
            const size = total ?? model.size_bytes;
            setProgress(size > 0 ? received / size : 0);
            downloading(received, size);
          },
          onInstalled() {
            setProgress(1);
            setStatus({ kind: 'text', text: t('modelStarting') });
            void (async () => {
              await app.refreshHealth();
              try {
                await startClass();
              } catch (error) {
                failed({ kind: 'error', error, retry: () => void startClass() });
                return;
              }
              failed({ kind: 'none' });
            })();
          },
          onFailed: (_code, message) => failed({ kind: 'failed', message }),
        },
      );
    } catch (error) {
      failed({ kind: 'error', error });
    }
  };

  const chooseLanguage = async (value: string) => {
    const next = value === 'en' ? 'en' : 'zh';
    setLanguage(next);
    working(true);
    try {
      await call('POST /api/settings', { body: { fields: { LOCAL_ASR_LANGUAGE: next } } });
      await app.refreshHealth();
    } finally {
      working(false);
    }
    await loadChoices();
  };

  const offers = models ? offeredModels(models, language, engine) : [];
  // The sources offered are those of every model shown (the same hosts for models alike).
  const sources = new Map<string, string>();
  for (const model of offers) {
    for (const item of model.sources) {
      if (!sources.has(item.id)) sources.set(item.id, inLanguage(item.label));
    }
  }
  return (
    <div class="model-offer">
      <strong class="model-offer-title">
        {models
          ? t('modelNeeded', { language: language === 'zh' ? t('languageZh') : t('languageEn') })
          : ''}
      </strong>
      <label class="setting-row">
        <span>{t('classLanguage')}</span>
        <select
          class="select small"
          id="class-language"
          aria-label={t('classLanguage')}
          value={language}
          disabled={busy}
          onChange={(event) => void chooseLanguage(event.currentTarget.value)}
        >
          <option value="zh">{t('classLanguageZh')}</option>
          <option value="en">{t('classLanguageEn')}</option>
        </select>
      </label>
      <ul class="model-choices">
        {loadError ? (
          <li>
            <ErrorBox error={loadError} />
          </li>
        ) : models && offers.length === 0 ? (
          <li>{t('modelNoneForLanguage')}</li>
        ) : (
          offers.map((model) => (
            <li key={model.id} class="model-choice" data-model={model.id}>
              <button
                type="button"
                class={`button small model-download${model.recommended || offers.length === 1 ? ' primary' : ''}`}
                data-model={model.id}
                disabled={busy}
                onClick={() => void download(model)}
              >
                {t('modelDownloadStart', { size: megabytes(model.size_bytes) })}
              </button>
              <span>
                <code>{model.name}</code>{' '}
                {model.recommended ? (
                  <mark class="model-tag model-recommended">{t('modelRecommended')}</mark>
                ) : null}
                {model.streaming === null ? null : (
                  <small class="model-tag model-streaming">
                    {model.streaming ? t('modelStreaming') : t('modelNotStreaming')}
                  </small>
                )}
                {model.unchecked ? (
                  <small class="model-tag model-unchecked">{t('modelUnchecked')}</small>
                ) : null}
                {` ${modelDescription(model)}`}
              </span>
            </li>
          ))
        )}
      </ul>
      <label class="setting-row model-source-row" hidden={sources.size < 2}>
        <span>{t('modelSource')}</span>
        <select
          class="select small"
          id="model-source"
          aria-label={t('modelSource')}
          value={sources.has(picked) ? picked : ''}
          disabled={busy}
          onChange={(event) => setPicked(event.currentTarget.value)}
        >
          <option value="">{t('modelSourceAuto')}</option>
          {[...sources].map(([id, label]) => (
            <option key={id} value={id}>
              {label}
            </option>
          ))}
        </select>
      </label>
      <progress class="model-progress" max={1} value={progress ?? 0} hidden={progress === null} />
      <p
        class={status.kind === 'failed' ? 'model-status error-detail' : 'model-status'}
        aria-live="polite"
      >
        {status.kind === 'text' ? status.text : null}
        {status.kind === 'failed' ? t('modelFailed', { message: status.message }) : null}
        {status.kind === 'error' ? (
          <ErrorBox error={status.error} {...(status.retry ? { onDemoMode: status.retry } : {})} />
        ) : null}
      </p>
      <p class="model-source" hidden={from === null} data-source={from?.id}>
        {from ? t('modelFrom', { source: from.label }) : ''}
      </p>
      <p class="model-notice" aria-live="polite" hidden={notice === null}>
        {notice ?? ''}
      </p>
      <button type="button" class="button small" onClick={() => void app.useDemoMode()}>
        {t('useDemoMode')}
      </button>
    </div>
  );
}
