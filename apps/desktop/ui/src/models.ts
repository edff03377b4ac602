// Offline models from the UI: the backend's catalogue and installed models (GET /api/models),
// starting a download and following it through the model.* live events until it is in.
import { api } from './api.ts';
import type { AppContext } from './context.ts';
import type { ModelDownloadStart, ModelItem, ModelList } from './types.ts';

/** Megabytes with one decimal, e.g. "41.9 MB". */
export function megabytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** The catalogue and the installed models. */
export async function loadModels(): Promise<ModelItem[]> {
  return (await api<ModelList>('/api/models')).items;
}

/** What a followed download reports. */
export interface DownloadWatcher {
  onProgress(received: number, total: number | null): void;
  onInstalled(path: string): void;
  onFailed(code: string, message: string): void;
}

/**
 * Starts a download (a catalogue `{id}` or `{url, sha256, name}`) and reports it until it ends.
 * Resolves with the download's answer; a model already installed reports `onInstalled` at once.
 */
export async function downloadModel(
  context: AppContext,
  body: { id: string } | { url: string; sha256: string; name: string; language?: string },
  watcher: DownloadWatcher,
): Promise<ModelDownloadStart> {
  let id: string | undefined;
  const early: Parameters<Parameters<AppContext['onLiveEvent']>[0]>[0][] = [];
  const handle = (message: (typeof early)[number]) => {
    if (message.name === 'model.progress' && message.data.id === id) {
      watcher.onProgress(message.data.received_bytes, message.data.total_bytes);
    } else if (message.name === 'model.installed' && message.data.id === id) {
      stop();
      watcher.onInstalled(message.data.path);
    } else if (message.name === 'model.failed' && message.data.id === id) {
      stop();
      watcher.onFailed(message.data.code, message.data.message);
    }
  };
  // Events may arrive before the answer names the id: keep them until then.
  const stop = context.onLiveEvent((message) =>
    id === undefined ? early.push(message) : handle(message),
  );
  try {
    const started = await api<ModelDownloadStart>('/api/models/download', { body });
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
  return api(`/api/models/${encodeURIComponent(name)}`, { method: 'DELETE' });
}
