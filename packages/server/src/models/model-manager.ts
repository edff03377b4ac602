/**
 * The model manager: the catalogue, what is installed, and downloads — each one checked for free
 * space first, fetched with resume, verified against its pinned size and SHA-256 (and MD5) and
 * only then unpacked and renamed into place (./model-store.ts). The backend runs downloads in the
 * background and reports them as live events; the CLI runs one in the foreground.
 *
 * A download's lifecycle:
 *
 * ```
 * start ─> checking space ─> downloading (resumes after drops) ─> verifying ─> unpacking ─> installed
 *                 │                  │                               │             │
 *                 └──────────────────┴──── failed (code, message) ───┴─────────────┘
 *                                    └──── cancelled (remove) ─ the .part file is deleted
 * ```
 */
import { mkdir, rm, statfs } from 'node:fs/promises';
import { join } from 'node:path';
import { isServerError, ServerError } from '../errors.ts';
import { localized } from '../language.ts';
import { forbiddenDownloadHost } from '../security/download-address.ts';
import { type DownloadNetwork, downloadFile } from './download-file.ts';
import {
  type ModelCatalogueEntry,
  type ModelEngine,
  type ModelLanguage,
  modelArchiveUrl,
  modelNameProblem,
  OFFICIAL_MODEL_CATALOGUE,
} from './model-catalogue.ts';
import {
  downloadsFolderOf,
  folderBytes,
  type InstalledModel,
  installArchive,
  listInstalledModels,
  lockDownload,
  modelsFolderOf,
  removeInstalledModel,
  removeStaleFiles,
} from './model-store.ts';

/** A catalogue model, or any model by URL with the SHA-256 its publisher gave. */
export type ModelRequest =
  | { id: string }
  | { url: string; sha256: string; name: string; language?: ModelLanguage | undefined };

/** One row of `GET /api/models` and `models list`. */
export interface ModelListItem {
  /** The catalogue id, or the folder name of a model installed otherwise. */
  id: string;
  /** The folder name under `<data>/models/`. */
  name: string;
  language: ModelLanguage | null;
  engine: ModelEngine;
  /** The archive's size for catalogue models; the folder's size for other installed ones. */
  size_bytes: number;
  description: string;
  installed: boolean;
  path?: string;
  /** Progress of a download running in this process. */
  downloading?: { received_bytes: number; total_bytes: number | null };
}

/** What the manager reports while it works (the backend turns these into live events). */
export type ModelEvent =
  | { type: 'progress'; id: string; name: string; received: number; total: number | undefined }
  | { type: 'installed'; id: string; name: string; path: string }
  | { type: 'failed'; id: string; name: string; code: string; message: string };

/** Options of {@link createModelManager}. */
export interface ModelManagerOptions {
  /** The data folder; models live in `<dataDir>/models`. */
  dataDir: string;
  /** Default: {@link OFFICIAL_MODEL_CATALOGUE}. */
  catalogue?: readonly ModelCatalogueEntry[];
  /** MODELS_BASE_URL at the moment a download starts ('' for the official host). */
  baseUrl?: () => string;
  /** Background downloads report here. */
  onEvent?: (event: ModelEvent) => void;
  /** Free bytes where models go (default: `fs.statfs`). Replaced in tests. */
  freeSpace?: (folder: string) => Promise<number>;
  /** How model hosts are resolved and connected (default: the system's); replaced in tests. */
  network?: DownloadNetwork;
  /** Milliseconds without a byte before a download try is stalled (default 30 000). */
  stallMs?: number;
  /** Milliseconds between two progress events of one download (default 200). */
  progressIntervalMs?: number;
}

/** The answer to starting a background download. */
export interface DownloadStart {
  /** The download's id: the catalogue id, or the name of a model by URL. */
  id: string;
  name: string;
  /** `started` now, `running` already, or `installed` (nothing to do). */
  state: 'started' | 'running' | 'installed';
}

/** The model manager. */
export interface ModelManager {
  /** `<data>/models`. */
  readonly folder: string;
  readonly catalogue: readonly ModelCatalogueEntry[];
  /** Creates the folder and removes what interrupted installations left. Call once at start. */
  prepare(): Promise<void>;
  list(): Promise<ModelListItem[]>;
  installed(): Promise<InstalledModel[]>;
  /** Downloads and installs now; resolves with the model, rejects with a coded error. */
  pull(
    request: ModelRequest,
    options?: {
      signal?: AbortSignal;
      onProgress?: (received: number, total: number | undefined) => void;
      onStage?: (stage: 'downloading' | 'verifying' | 'unpacking') => void;
    },
  ): Promise<InstalledModel>;
  /** Starts a download in the background (events through `onEvent`). Throws on a bad request. */
  start(request: ModelRequest): Promise<DownloadStart>;
  /** Cancels a running download of this name or id and removes the installed model. */
  remove(nameOrId: string): Promise<{ removed: boolean; cancelled: boolean }>;
  /** Cancels every running download and waits for them to stop. */
  close(): Promise<void>;
}

interface Target {
  id: string;
  name: string;
  url: string;
  sha256: string;
  md5: string | undefined;
  sizeBytes: number | undefined;
  language: ModelLanguage | undefined;
  /** Whether it comes from the catalogue (its id is then recorded with the model). */
  fromCatalogue: boolean;
}

interface Job {
  target: Target;
  controller: AbortController;
  received: number;
  total: number | undefined;
  done: Promise<void>;
}

/** Bytes kept free beyond the archive and its unpacked files. */
const SPACE_MARGIN = 64 * 1024 * 1024;

/** Space a model needs: what is left to download, plus its unpacked files (about twice the archive). */
export function spaceNeeded(total: number, received: number): number {
  return total - received + total * 2 + SPACE_MARGIN;
}

async function systemFreeSpace(folder: string): Promise<number> {
  const info = await statfs(folder);
  return Number(info.bavail) * Number(info.bsize);
}

const megabytes = (bytes: number) => `${Math.ceil(bytes / (1024 * 1024))} MB`;

/**
 * Creates the model manager of a data folder.
 *
 * @example
 * const models = createModelManager({ dataDir: './data' });
 * await models.prepare();
 * await models.pull({ id: 'vosk-small-cn' }, { onProgress: (got, total) => … });
 */
export function createModelManager(options: ModelManagerOptions): ModelManager {
  const folder = modelsFolderOf(options.dataDir);
  const catalogue = options.catalogue ?? OFFICIAL_MODEL_CATALOGUE;
  const freeSpace = options.freeSpace ?? systemFreeSpace;
  const interval = options.progressIntervalMs ?? 200;
  const jobs = new Map<string, Job>();

  /** Refuses a link-local or metadata host before anything is connected. */
  const checkHost = (url: string, field: string) => {
    let hostname: string;
    try {
      hostname = new URL(url).hostname;
    } catch {
      return;
    }
    const refusal = forbiddenDownloadHost(hostname);
    if (refusal) {
      throw new ServerError(
        'MODEL_ADDRESS_REFUSED',
        403,
        localized(`没有下载 ${url}：${refusal.zh}。`, `Did not download ${url}: ${refusal.en}.`),
        { field },
      );
    }
  };

  const resolveTarget = (request: ModelRequest): Target => {
    if ('id' in request) {
      const entry = catalogue.find((candidate) => candidate.id === request.id);
      if (!entry) {
        throw new ServerError(
          'MODEL_UNKNOWN',
          404,
          `No model "${request.id}" in the catalogue; known: ${catalogue.map((candidate) => candidate.id).join(', ')}.`,
          { field: 'id' },
        );
      }
      const archiveUrl = modelArchiveUrl(entry, options.baseUrl?.() ?? '');
      checkHost(archiveUrl, 'MODELS_BASE_URL');
      return {
        id: entry.id,
        name: entry.name,
        url: archiveUrl,
        sha256: entry.sha256,
        md5: entry.md5,
        sizeBytes: entry.sizeBytes,
        language: entry.language,
        fromCatalogue: true,
      };
    }
    const problem = modelNameProblem(request.name);
    if (problem) throw new ServerError('MODEL_NAME_INVALID', 400, `${problem}.`, { field: 'name' });
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      throw new ServerError('VALIDATION_FAILED', 400, `"${request.url}" is not a URL.`, {
        field: 'url',
      });
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      throw new ServerError(
        'VALIDATION_FAILED',
        400,
        'The model URL must start with https:// or http://.',
        {
          field: 'url',
        },
      );
    }
    checkHost(url.href, 'url');
    if (!/^[0-9a-fA-F]{64}$/.test(request.sha256)) {
      throw new ServerError(
        'VALIDATION_FAILED',
        400,
        'sha256 must be the 64 hexadecimal digits of the archive’s SHA-256 (as its publisher lists it).',
        { field: 'sha256' },
      );
    }
    return {
      id: request.name,
      name: request.name,
      url: url.href,
      sha256: request.sha256.toLowerCase(),
      md5: undefined,
      sizeBytes: undefined,
      language: request.language,
      fromCatalogue: false,
    };
  };

  const checkSpace = async (total: number, received: number) => {
    const needed = spaceNeeded(total, received);
    const free = await freeSpace(folder);
    if (free < needed) {
      throw new ServerError(
        'MODEL_DISK_SPACE',
        507,
        `Not enough disk space for the model: it needs about ${megabytes(needed)} (download and unpacked files) in ${folder}, and ${megabytes(free)} are free. Free some space and try again.`,
      );
    }
  };

  const install = async (
    target: Target,
    signal: AbortSignal | undefined,
    report: {
      onProgress?: ((received: number, total: number | undefined) => void) | undefined;
      onStage?: ((stage: 'downloading' | 'verifying' | 'unpacking') => void) | undefined;
    },
  ): Promise<InstalledModel> => {
    const installed = (await listInstalledModels(folder)).find(
      (model) => model.name === target.name,
    );
    if (installed) return installed;
    const release = await lockDownload(folder, target.name);
    const part = join(downloadsFolderOf(folder), `${target.name}.zip.part`);
    try {
      if (target.sizeBytes !== undefined) await checkSpace(target.sizeBytes, 0);
      report.onStage?.('downloading');
      const file = await downloadFile({
        url: target.url,
        destination: part,
        ...(target.sizeBytes !== undefined ? { expectedSize: target.sizeBytes } : {}),
        md5: target.md5 !== undefined,
        ...(signal ? { signal } : {}),
        ...(options.network ? { network: options.network } : {}),
        ...(options.stallMs !== undefined ? { stallMs: options.stallMs } : {}),
        ...(report.onProgress ? { onProgress: report.onProgress } : {}),
        onTotal: (total, received) =>
          target.sizeBytes === undefined ? checkSpace(total, received) : undefined,
      });
      report.onStage?.('verifying');
      const problems: string[] = [];
      if (target.sizeBytes !== undefined && file.bytes !== target.sizeBytes) {
        problems.push(`${file.bytes} bytes instead of ${target.sizeBytes}`);
      }
      if (file.sha256 !== target.sha256) {
        problems.push(`SHA-256 ${file.sha256} instead of ${target.sha256}`);
      }
      if (target.md5 !== undefined && file.md5 !== target.md5) {
        problems.push(`MD5 ${file.md5} instead of ${target.md5}`);
      }
      if (problems.length > 0) {
        await rm(part, { force: true });
        throw new ServerError(
          'MODEL_CHECKSUM_MISMATCH',
          422,
          `The file downloaded from ${target.url} is not the expected model (${problems.join('; ')}): it was deleted and nothing was installed. A mirror or proxy may serve a different file under that name.`,
        );
      }
      report.onStage?.('unpacking');
      try {
        return await installArchive({
          archive: part,
          modelsFolder: folder,
          name: target.name,
          origin: {
            id: target.fromCatalogue ? target.id : undefined,
            language: target.language,
            sha256: file.sha256,
            url: target.url,
          },
          ...(signal ? { signal } : {}),
        });
      } finally {
        // Verified bytes that did not unpack are no use either: nothing is kept.
        await rm(part, { force: true });
      }
    } finally {
      await release();
    }
  };

  const manager: ModelManager = {
    folder,
    catalogue,
    async prepare() {
      await mkdir(folder, { recursive: true });
      await removeStaleFiles(folder);
    },
    async installed() {
      return listInstalledModels(folder);
    },
    async list() {
      const installed = await listInstalledModels(folder);
      const byName = new Map(installed.map((model) => [model.name, model]));
      const downloading = (name: string) => {
        const job = [...jobs.values()].find((candidate) => candidate.target.name === name);
        return job
          ? { downloading: { received_bytes: job.received, total_bytes: job.total ?? null } }
          : {};
      };
      const items: ModelListItem[] = catalogue.map((entry) => {
        const model = byName.get(entry.name);
        return {
          id: entry.id,
          name: entry.name,
          language: entry.language,
          engine: entry.engine,
          size_bytes: entry.sizeBytes,
          description: entry.description,
          installed: model !== undefined,
          ...(model ? { path: model.path } : {}),
          ...downloading(entry.name),
        };
      });
      for (const model of installed) {
        if (catalogue.some((entry) => entry.name === model.name)) continue;
        items.push({
          id: model.id ?? model.name,
          name: model.name,
          language: model.language ?? null,
          engine: model.engine,
          size_bytes: await folderBytes(model.path),
          description: 'installed by URL or by hand',
          installed: true,
          path: model.path,
        });
      }
      for (const job of jobs.values()) {
        if (items.some((item) => item.name === job.target.name)) continue;
        items.push({
          id: job.target.id,
          name: job.target.name,
          language: job.target.language ?? null,
          engine: 'vosk',
          size_bytes: job.total ?? 0,
          description: `downloading from ${job.target.url}`,
          installed: false,
          ...downloading(job.target.name),
        });
      }
      return items;
    },
    async pull(request, pullOptions = {}) {
      return install(resolveTarget(request), pullOptions.signal, pullOptions);
    },
    async start(request) {
      const target = resolveTarget(request);
      const running = jobs.get(target.name);
      if (running) return { id: running.target.id, name: target.name, state: 'running' };
      if ((await listInstalledModels(folder)).some((model) => model.name === target.name)) {
        return { id: target.id, name: target.name, state: 'installed' };
      }
      const controller = new AbortController();
      let last = 0;
      const job: Job = {
        target,
        controller,
        received: 0,
        total: target.sizeBytes,
        done: Promise.resolve(),
      };
      const emit = (event: ModelEvent) => options.onEvent?.(event);
      job.done = install(target, controller.signal, {
        onProgress(received, total) {
          job.received = received;
          job.total = total;
          const now = Date.now();
          if (now - last < interval && received !== total) return;
          last = now;
          emit({ type: 'progress', id: target.id, name: target.name, received, total });
        },
      })
        .then(
          (model) =>
            emit({ type: 'installed', id: target.id, name: target.name, path: model.path }),
          (error: unknown) => {
            const known = isServerError(error)
              ? error
              : new ServerError(
                  'MODEL_NETWORK_FAILED',
                  500,
                  `The model download failed: ${(error as Error).message}`,
                );
            emit({
              type: 'failed',
              id: target.id,
              name: target.name,
              code: known.code,
              message: known.message,
            });
          },
        )
        .finally(() => jobs.delete(target.name));
      jobs.set(target.name, job);
      return { id: target.id, name: target.name, state: 'started' };
    },
    async remove(nameOrId) {
      const entry = catalogue.find((candidate) => candidate.id === nameOrId);
      const name = entry?.name ?? nameOrId;
      const job = jobs.get(name);
      let cancelled = false;
      if (job) {
        job.controller.abort();
        await job.done;
        cancelled = true;
      }
      // A cancelled download is discarded, not kept for resuming.
      if (cancelled) {
        const part = join(downloadsFolderOf(folder), `${name}.zip.part`);
        await rm(part, { force: true });
        await rm(`${part}.validator`, { force: true });
      }
      const removed = await removeInstalledModel(folder, name);
      return { removed, cancelled };
    },
    async close() {
      const running = [...jobs.values()];
      for (const job of running) job.controller.abort();
      await Promise.all(running.map((job) => job.done));
    },
  };
  return manager;
}
