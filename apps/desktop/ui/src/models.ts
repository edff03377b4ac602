// Offline models from the UI: the backend's catalogue and installed models (GET /api/models),
// starting a download and following it through the model.* live events until it is in.
import type { RestBody } from '@class-assistant/server/rest-contract';
import { call } from './api.ts';
import type { AppContext } from './context.ts';
import { lang } from './i18n.ts';
import type { BothLanguages, ModelDownloadStart, ModelItem } from './types.ts';

/** A text the backend sends in both languages, in the UI's. */
export function inLanguage(text: BothLanguages): string {
  return text[lang()];
}

/** What a model is good for, in the UI's language (an older backend sent English only). */
export function modelDescription(model: {
  description: string;
  descriptions?: BothLanguages | undefined;
}): string {
  return model.descriptions ? inLanguage(model.descriptions) : model.description;
}

/** What a download asks for: a catalogue model, or a model file by its address and hash. */
export type DownloadRequest = RestBody<'POST /api/models/download'>;

/** Megabytes with one decimal, e.g. "41.9 MB". */
export function megabytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** The catalogue and the installed models. */
export async function loadModels(): Promise<ModelItem[]> {
  return (await call('GET /api/models')).items;
}

/** What a followed download reports. */
export interface DownloadWatcher {
  /**
   * Bytes so far, the source the current file comes from and the last switch to another
   * source (both in the UI's language; null until the backend names them).
   */
  onProgress(
    received: number,
    total: number | null,
    source: { id: string; label: string } | null,
    notice: string | null,
  ): void;
  onInstalled(path: string): void;
  /** The message in the UI's language; `technical`: the sources' answers, for "details". */
  onFailed(code: string, message: string, technical: string | undefined): void;
}

/**
 * Starts a download (a catalogue `{id}` or `{url, sha256, name}`) and reports it until it ends.
 * Resolves with the download's answer; a model already installed reports `onInstalled` at once.
 */
export async function downloadModel(
  context: AppContext,
  body: DownloadRequest,
  watcher: DownloadWatcher,
): Promise<ModelDownloadStart> {
  let id: string | undefined;
  const early: Parameters<Parameters<AppContext['onLiveEvent']>[0]>[0][] = [];
  const handle = (message: (typeof early)[number]) => {
    if (message.name === 'model.progress' && message.data.id === id) {
      const { source, source_label: label, notice } = message.data;
      watcher.onProgress(
        message.data.received_bytes,
        message.data.total_bytes,
        source !== null && label !== null ? { id: source, label: inLanguage(label) } : null,
        notice !== null ? inLanguage(notice) : null,
      );
    } else if (message.name === 'model.installed' && message.data.id === id) {
      stop();
      watcher.onInstalled(message.data.path);
    } else if (message.name === 'model.failed' && message.data.id === id) {
      stop();
      const text = message.data.messages;
      watcher.onFailed(
        message.data.code,
        text ? inLanguage(text) : message.data.message,
        message.data.technical ?? undefined,
      );
    }
  };
  // Events may arrive before the answer names the id: keep them until then.
  const stop = context.onLiveEvent((message) =>
    id === undefined ? early.push(message) : handle(message),
  );
  try {
    const started = await call('POST /api/models/download', { body });
    id = started.id;
    for (const message of early.splice(0)) handle(message);
    if (started.state === 'installed') {
      stop();
      const model = (await loadModels()).find((item) => item.name === started.name);
      watcher.onInstalled(model?.path ?? '');
    }
    return started;
  } catch (error) {
    stop();
    throw error;
  }
}

/** Removes an installed model, or cancels its download. */
export function removeModel(name: string): Promise<unknown> {
  return call('DELETE /api/models/:name', { params: { name } });
}

/**
 * The catalogue models offered for a class in `language` when LOCAL_ASR_ENGINE is `engine`: not
 * installed yet, run by that engine (any with `auto`), recommended first; those made for that
 * language, else those that also recognise it (SenseVoice in an English class).
 */
export function offeredModels(
  models: readonly ModelItem[],
  language: 'zh' | 'en',
  engine: string,
): ModelItem[] {
  const runnable = models.filter(
    (model) =>
      !model.installed &&
      // A punctuation model is no recognizer: a class cannot start with it alone.
      model.role !== 'punctuation' &&
      (engine === 'auto' || engine === '' || model.engine === engine),
  );
  const made = runnable.filter((model) => model.language === language);
  const offers =
    made.length > 0 ? made : runnable.filter((model) => model.languages.includes(language));
  return offers.sort((a, b) => Number(b.recommended) - Number(a.recommended));
}
