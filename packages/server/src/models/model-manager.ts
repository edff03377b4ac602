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
import { mkdir, rename, rm, stat, statfs } from 'node:fs/promises';
import { join } from 'node:path';
import { isServerError, ServerError } from '../errors.ts';
import { type Localized, localized } from '../language.ts';
import { forbiddenDownloadHost } from '../security/download-address.ts';
import { type DownloadNetwork, downloadFile } from './download-file.ts';
import {
  isUnchecked,
  type ModelCatalogueEntry,
  type ModelEngine,
  type ModelLanguage,
  type ModelRole,
  type ModelSource,
  modelNameProblem,
  OFFICIAL_MODEL_CATALOGUE,
  roleOf,
  sourcesOf,
} from './model-catalogue.ts';
import {
  downloadsFolderOf,
  folderBytes,
  type InstalledModel,
  installArchive,
  installFolder,
  listInstalledModels,
  lockDownload,
  modelsFolderOf,
  removeInstalledModel,
  removeStaleFiles,
} from './model-store.ts';

/**
 * A catalogue model (optionally from one `source` first, and `allowUnchecked` to accept files
 * without a published SHA-256), or any model archive by URL with the SHA-256 its publisher gave.
 */
export type ModelRequest =
  | { id: string; source?: string | undefined; allowUnchecked?: boolean | undefined }
  | { url: string; sha256: string; name: string; language?: ModelLanguage | undefined };

/** A source as lists show it. */
interface ModelSourceItem {
  id: string;
  label: Localized;
  kind: string;
  /** The address of each file (in the order of `files`). */
  urls: string[];
}

/** One row of `GET /api/models` and `models list`. */
export interface ModelListItem {
  /** The catalogue id, or the folder name of a model installed otherwise. */
  id: string;
  /** The folder name under `<data>/models/`. */
  name: string;
  language: ModelLanguage | null;
  /** Every language it recognises (catalogue models), else its class language. */
  languages: string[];
  engine: ModelEngine;
  /** `punctuation`: punctuates a streaming model's lines; never a class's recognizer. */
  role: ModelRole;
  /** The download's size for catalogue models; the folder's size for other installed ones. */
  size_bytes: number;
  /** The installed folder's size, when known. */
  disk_bytes: number | null;
  /** In English (the original client's field). */
  description: string;
  /** The description in both languages. */
  descriptions: Localized;
  licence: string | null;
  /** Partial text while the teacher speaks; null when unknown. */
  streaming: boolean | null;
  recommended: boolean;
  /** Some file has no published SHA-256: downloading it needs `allow_unchecked`. */
  unchecked: boolean;
  files: Array<{
    name: string;
    size_bytes: number;
    sha256: string | null;
    sha256_source?: string;
    null_why?: string;
  }>;
  /** Hosts tried in this order (MODELS_BASE_URL first when set). */
  sources: ModelSourceItem[];
  published_accuracy: Array<{ metric: string; value: number; test_set: string; source: string }>;
  installed: boolean;
  path?: string;
  /** Progress of a download running in this process. */
  downloading?: {
    received_bytes: number;
    total_bytes: number | null;
    source: string | null;
    source_label: Localized | null;
    notice: Localized | null;
  };
}

/** What the manager reports while it works (the backend turns these into live events). */
export type ModelEvent =
  | {
      type: 'progress';
      id: string;
      name: string;
      received: number;
      total: number | undefined;
      source: { id: string; label: Localized } | undefined;
      /** The last source switch, e.g. "the official host cannot be reached; switching to …". */
      notice: Localized | undefined;
    }
  | { type: 'installed'; id: string; name: string; path: string }
  | {
      type: 'failed';
      id: string;
      name: string;
      code: string;
      /** In English (logs). */
      message: string;
      /** In both languages, when the error has them. */
      localized: Localized | undefined;
      /** The sources' answers or the system's own words, for a "details" view. */
      technical: string | undefined;
    };

/** Options of {@link createModelManager}. */
export interface ModelManagerOptions {
  /** The data folder; models live in `<dataDir>/models`. */
  dataDir: string;
  /** Default: {@link OFFICIAL_MODEL_CATALOGUE}. */
  catalogue?: readonly ModelCatalogueEntry[];
  /** MODELS_BASE_URL at the moment a download starts ('' for none). */
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

/** What a foreground download reports besides bytes. */
interface PullReport {
  onProgress?: ((received: number, total: number | undefined) => void) | undefined;
  onStage?: ((stage: 'downloading' | 'verifying' | 'unpacking') => void) | undefined;
  /** A file now comes from `source` (the first one, or after a switch with its `notice`). */
  onSource?:
    | ((source: { id: string; label: Localized }, notice: Localized | undefined) => void)
    | undefined;
}

/** The model manager. */
export interface ModelManager {
  /** `<data>/models`. */
  readonly folder: string;
  readonly catalogue: readonly ModelCatalogueEntry[];
  /** Creates the folder and removes what interrupted installations left. Call once at start. */
  prepare(): Promise<void>;
  /** The catalogue and the installed models; never touches the network. */
  list(): Promise<ModelListItem[]>;
  installed(): Promise<InstalledModel[]>;
  /** Downloads and installs now; resolves with the model, rejects with a coded error. */
  pull(
    request: ModelRequest,
    options?: { signal?: AbortSignal } & PullReport,
  ): Promise<InstalledModel>;
  /** Starts a download in the background (events through `onEvent`). Throws on a bad request. */
  start(request: ModelRequest): Promise<DownloadStart>;
  /** Cancels a running download of this name or id and removes the installed model. */
  remove(nameOrId: string): Promise<{ removed: boolean; cancelled: boolean }>;
  /** Cancels every running download and waits for them to stop. */
  close(): Promise<void>;
}

interface TargetFile {
  name: string;
  sizeBytes: number | undefined;
  sha256: string | null;
  md5: string | undefined;
}

interface Target {
  id: string;
  name: string;
  language: ModelLanguage | undefined;
  packaging: 'zip' | 'files';
  files: TargetFile[];
  /** Tried in this order. */
  sources: ModelSource[];
  /** The sum of the file sizes, when all are known. */
  sizeBytes: number | undefined;
  /** Whether it comes from the catalogue (its id is then recorded with the model). */
  fromCatalogue: boolean;
}

interface Job {
  target: Target;
  controller: AbortController;
  received: number;
  total: number | undefined;
  source: { id: string; label: Localized } | undefined;
  notice: Localized | undefined;
  done: Promise<void>;
}

/** Bytes kept free beyond the archive and its unpacked files. */
const SPACE_MARGIN = 64 * 1024 * 1024;

/** Space a model needs: what is left to download, plus its unpacked files (about twice the archive). */
function spaceNeeded(total: number, received: number): number {
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
  const baseUrl = () => options.baseUrl?.() ?? '';

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
        localized(`没有下载 ${url}：${refusal.zh}。`, `Did not download ${url}: ${refusal.en}.`),
        { field },
      );
    }
  };

  const catalogueTarget = (
    entry: ModelCatalogueEntry,
    request: { source?: string | undefined; allowUnchecked?: boolean | undefined },
  ): Target => {
    let sources = sourcesOf(entry, baseUrl());
    const first = entry.files[0]?.name ?? '';
    if (sources[0]?.kind === 'mirror') checkHost(sources[0].urlFor(first), 'MODELS_BASE_URL');
    if (request.source !== undefined) {
      const picked = sources.find((source) => source.id === request.source);
      if (!picked) {
        const known = sources.map((source) => source.id).join(', ');
        throw new ServerError(
          'MODEL_SOURCE_UNKNOWN',
          localized(
            `${entry.id} 没有名为“${request.source}”的下载源；可选：${known}。`,
            `${entry.id} has no source "${request.source}"; its sources are ${known}.`,
          ),
          { field: 'source' },
        );
      }
      // The student's pick first; the others stay behind it as the fallback.
      sources = [picked, ...sources.filter((source) => source !== picked)];
    }
    if (isUnchecked(entry) && request.allowUnchecked !== true) {
      const files = entry.files.filter((file) => file.sha256 === null);
      const why = files.map((file) => `${file.name}: ${file.nullWhy ?? 'no published SHA-256'}`);
      throw new ServerError(
        'MODEL_UNCHECKED',
        localized(
          `${entry.id} 的文件没有公开的 SHA-256 校验值（${why.join('；')}），下载后无法确认它就是发布的文件。确认要下载未校验的文件，请明确允许（allow_unchecked / --allow-unchecked）。`,
          `${entry.id} has files without a published SHA-256 (${why.join('; ')}): what arrives cannot be checked against the published file. To download it unchecked, allow it explicitly (allow_unchecked / --allow-unchecked).`,
        ),
        { field: 'allow_unchecked' },
      );
    }
    return {
      id: entry.id,
      name: entry.name,
      language: entry.language,
      packaging: entry.packaging,
      files: entry.files.map((file) => ({
        name: file.name,
        sizeBytes: file.sizeBytes,
        sha256: file.sha256,
        md5: file.md5,
      })),
      sources,
      sizeBytes: entry.files.reduce((sum, file) => sum + file.sizeBytes, 0),
      fromCatalogue: true,
    };
  };

  const resolveTarget = (request: ModelRequest): Target => {
    if ('id' in request) {
      const entry = catalogue.find((candidate) => candidate.id === request.id);
      if (!entry) {
        throw new ServerError(
          'MODEL_UNKNOWN',
          `No model "${request.id}" in the catalogue; known: ${catalogue.map((candidate) => candidate.id).join(', ')}.`,
          { field: 'id' },
        );
      }
      return catalogueTarget(entry, request);
    }
    const problem = modelNameProblem(request.name);
    if (problem) throw new ServerError('MODEL_NAME_INVALID', `${problem}.`, { field: 'name' });
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      throw new ServerError('VALIDATION_FAILED', `"${request.url}" is not a URL.`, {
        field: 'url',
      });
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      throw new ServerError(
        'VALIDATION_FAILED',
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
        'sha256 must be the 64 hexadecimal digits of the archive’s SHA-256 (as its publisher lists it).',
        { field: 'sha256' },
      );
    }
    const href = url.href;
    return {
      id: request.name,
      name: request.name,
      language: request.language,
      packaging: 'zip',
      files: [
        {
          name: `${request.name}.zip`,
          sizeBytes: undefined,
          sha256: request.sha256.toLowerCase(),
          md5: undefined,
        },
      ],
      sources: [
        {
          id: 'url',
          kind: 'official',
          label: { zh: url.host, en: url.host },
          urlFor: () => href,
        },
      ],
      sizeBytes: undefined,
      fromCatalogue: false,
    };
  };

  const checkSpace = async (needed: number) => {
    const free = await freeSpace(folder);
    if (free < needed) {
      throw new ServerError(
        'MODEL_DISK_SPACE',
        localized(
          `磁盘空间不够放这个模型：${folder} 需要约 ${megabytes(needed)}（下载和安装的文件），只剩 ${megabytes(free)}。请腾出一些空间后重试。`,
          `Not enough disk space for the model: it needs about ${megabytes(needed)} (download and installed files) in ${folder}, and ${megabytes(free)} are free. Free some space and try again.`,
        ),
      );
    }
  };

  /** Where a file of a target is downloaded to (kept between tries to resume). */
  const partOf = (target: Target, file: TargetFile) =>
    target.packaging === 'zip'
      ? join(downloadsFolderOf(folder), `${target.name}.zip.part`)
      : join(downloadsFolderOf(folder), target.name, `${file.name}.part`);

  const install = async (
    target: Target,
    signal: AbortSignal | undefined,
    report: PullReport,
  ): Promise<InstalledModel> => {
    const installed = (await listInstalledModels(folder)).find(
      (model) => model.name === target.name,
    );
    if (installed) return installed;
    const release = await lockDownload(folder, target.name);
    try {
      if (target.sizeBytes !== undefined) {
        await checkSpace(
          target.packaging === 'zip'
            ? spaceNeeded(target.sizeBytes, 0)
            : target.sizeBytes + SPACE_MARGIN,
        );
      }
      report.onStage?.('downloading');
      const staging = join(downloadsFolderOf(folder), target.name);
      if (target.packaging === 'files') await mkdir(staging, { recursive: true });
      // Bytes of the files already done, for one progress over the whole model.
      let before = 0;
      let current = 0;
      const fetched: Array<{ name: string; sha256: string; checked: boolean; url: string }> = [];
      let announced: { id: string; label: Localized } | undefined;
      for (const file of target.files) {
        const finalPath = target.packaging === 'files' ? join(staging, file.name) : undefined;
        // A file of an interrupted download that was complete and checked is not fetched again.
        if (finalPath && file.sizeBytes !== undefined) {
          const size = await stat(finalPath).then(
            (info) => info.size,
            () => -1,
          );
          if (size === file.sizeBytes && file.sha256 !== null) {
            before += size;
            fetched.push({ name: file.name, sha256: file.sha256, checked: true, url: '' });
            continue;
          }
        }
        const result = await fetchFromSources(target, file, current, signal, {
          before,
          total: target.sizeBytes,
          report,
          announce(source, notice) {
            if (announced?.id === source.id && notice === undefined) return;
            announced = { id: source.id, label: source.label };
            report.onSource?.(announced, notice);
          },
        });
        current = result.sourceIndex;
        before += file.sizeBytes ?? result.bytes;
        fetched.push({
          name: file.name,
          sha256: result.sha256,
          checked: file.sha256 !== null,
          url: result.url,
        });
        if (finalPath) await rename(partOf(target, file), finalPath);
      }
      const source = target.sources[current];
      report.onStage?.('verifying');
      if (target.packaging === 'files') {
        return await installFolder({
          folder: staging,
          modelsFolder: folder,
          name: target.name,
          origin: {
            id: target.fromCatalogue ? target.id : undefined,
            language: target.language,
            url: fetched[0]?.url ?? '',
            source: source?.id,
            files: fetched,
          },
        });
      }
      const part = partOf(target, target.files[0]!);
      report.onStage?.('unpacking');
      try {
        return await installArchive({
          archive: part,
          modelsFolder: folder,
          name: target.name,
          origin: {
            id: target.fromCatalogue ? target.id : undefined,
            language: target.language,
            sha256: fetched[0]?.sha256 ?? undefined,
            url: fetched[0]?.url ?? '',
            source: target.fromCatalogue ? source?.id : undefined,
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

  /**
   * Downloads one file from the sources in order, starting at `from`: a source that fails
   * (no connection, an HTTP error, a stall, a wrong size or checksum) hands over to the next one,
   * keeping what arrived so the next one resumes it. Resolves with the file and the source
   * that worked; rejects with one error naming every source and why it failed.
   */
  const fetchFromSources = async (
    target: Target,
    file: TargetFile,
    from: number,
    signal: AbortSignal | undefined,
    progress: {
      before: number;
      total: number | undefined;
      report: PullReport;
      announce(source: ModelSource, notice: Localized | undefined): void;
    },
  ): Promise<{ sourceIndex: number; bytes: number; sha256: string; url: string }> => {
    const failures: Array<{
      source: ModelSource;
      url: string;
      why: Localized;
      checksum: boolean;
      /** The source's answer or the system's words. */
      technical: string;
    }> = [];
    const part = partOf(target, file);
    let notice: Localized | undefined;
    for (let index = from; index < target.sources.length; index++) {
      const source = target.sources[index]!;
      const url = source.urlFor(file.name);
      progress.announce(source, notice);
      try {
        const downloaded = await downloadFile({
          url,
          destination: part,
          ...(file.sizeBytes !== undefined ? { expectedSize: file.sizeBytes } : {}),
          md5: file.md5 !== undefined,
          // A dead host is left for the next source soon; the last one gets the usual tries.
          attempts: index < target.sources.length - 1 ? 2 : 5,
          ...(signal ? { signal } : {}),
          ...(options.network ? { network: options.network } : {}),
          ...(options.stallMs !== undefined ? { stallMs: options.stallMs } : {}),
          onProgress: (received, total) =>
            progress.report.onProgress?.(progress.before + received, progress.total ?? total),
          onTotal: (total, received) =>
            target.sizeBytes === undefined ? checkSpace(spaceNeeded(total, received)) : undefined,
        });
        const problems: string[] = [];
        if (file.sizeBytes !== undefined && downloaded.bytes !== file.sizeBytes) {
          problems.push(`${downloaded.bytes} bytes instead of ${file.sizeBytes}`);
        }
        if (file.sha256 !== null && downloaded.sha256 !== file.sha256) {
          problems.push(`SHA-256 ${downloaded.sha256} instead of ${file.sha256}`);
        }
        if (file.md5 !== undefined && downloaded.md5 !== file.md5) {
          problems.push(`MD5 ${downloaded.md5} instead of ${file.md5}`);
        }
        if (problems.length > 0) {
          await rm(part, { force: true });
          throw new ServerError(
            'MODEL_CHECKSUM_MISMATCH',
            localized(
              `从 ${url} 下载的文件不是预期的模型（${problems.join('；')}）：已删除，没有安装任何东西。镜像或代理可能用这个名字提供了别的文件。`,
              `The file downloaded from ${url} is not the expected model (${problems.join('; ')}): it was deleted and nothing was installed. A mirror or proxy may serve a different file under that name.`,
            ),
          );
        }
        return { sourceIndex: index, bytes: downloaded.bytes, sha256: downloaded.sha256, url };
      } catch (error) {
        if (!isServerError(error)) throw error;
        if (
          error.code === 'MODEL_DOWNLOAD_CANCELLED' ||
          error.code === 'MODEL_ADDRESS_REFUSED' ||
          error.code === 'MODEL_DISK_SPACE'
        ) {
          throw error;
        }
        const checksum = error.code === 'MODEL_CHECKSUM_MISMATCH';
        const why = failureReason(error.message, checksum);
        if (file.sha256 === null) {
          // Without a pinned digest a splice of two hosts' files could not be told: the next
          // source starts this file over instead of resuming it.
          await rm(part, { force: true });
          await rm(`${part}.validator`, { force: true });
        }
        failures.push({
          source,
          url,
          why,
          checksum,
          technical: error.details.technical ?? `${url}: ${error.message}`,
        });
        const next = target.sources[index + 1];
        if (next) {
          notice = localized(
            `${source.label.zh}${why.zh}，正在改用 ${next.label.zh}…`,
            `${capitalised(source.label.en)} ${why.en}; switching to ${next.label.en}…`,
          );
        }
        if (failures.length === 1 && target.sources.length - from === 1) throw error;
      }
    }
    const tried = {
      zh: failures.map((failure) => `${failure.source.label.zh}${failure.why.zh}`).join('；'),
      en: failures.map((failure) => `${failure.source.label.en} ${failure.why.en}`).join('; '),
    };
    const checksum = failures.every((failure) => failure.checksum);
    const technical = failures.map((failure) => failure.technical).join('\n');
    if (checksum) {
      const lines = failures.map((failure) => ({
        zh: `${failure.source.label.zh}（${failure.url}）：${failure.why.zh}`,
        en: `${failure.source.label.en} (${failure.url}): ${failure.why.en}`,
      }));
      throw new ServerError(
        'MODEL_CHECKSUM_MISMATCH',
        localized(
          `${file.name} 没能从任何下载源取得，已经试过：${lines.map((line) => line.zh).join('；')}。已下载的部分会保留，下次从这里续传；也可以在 MODELS_BASE_URL 设置自己的镜像。`,
          `${file.name} could not be downloaded from any source. Tried: ${lines.map((line) => line.en).join('; ')}. What arrived is kept and the next try resumes it; MODELS_BASE_URL can name a mirror of your own.`,
        ),
        { technical },
      );
    }
    // No source could be reached at all: said so first.
    const unreachable = failures.every(
      (failure) => !failure.checksum && !/HTTP/.test(failure.why.en),
    );
    throw new ServerError(
      'MODEL_NETWORK_FAILED',
      localized(
        `${unreachable ? '无法连接模型下载站点：' : ''}${file.name} 没能从任何下载源取得（${tried.zh}）。请检查网络后重试，或换一个下载源；已下载的部分会保留，下次从这里续传。`,
        `${unreachable ? 'Cannot reach the model download site: ' : ''}${file.name} could not be downloaded from any source (${tried.en}). Check the network and try again, or pick another source; what arrived is kept and the next try resumes it.`,
      ),
      { technical },
    );
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
          ? {
              downloading: {
                received_bytes: job.received,
                total_bytes: job.total ?? null,
                source: job.source?.id ?? null,
                source_label: job.source?.label ?? null,
                notice: job.notice ?? null,
              },
            }
          : {};
      };
      const base = baseUrl();
      const items: ModelListItem[] = catalogue.map((entry) => {
        const model = byName.get(entry.name);
        return {
          id: entry.id,
          name: entry.name,
          language: entry.language,
          languages: [...entry.languages],
          engine: entry.engine,
          role: roleOf(entry),
          size_bytes: entry.sizeBytes,
          disk_bytes: entry.diskBytes,
          description: entry.description,
          descriptions: localized(entry.descriptionZh ?? entry.description, entry.description),
          licence: entry.licence,
          streaming: entry.streaming,
          recommended: entry.recommended === true,
          unchecked: isUnchecked(entry),
          files: entry.files.map((file) => ({
            name: file.name,
            size_bytes: file.sizeBytes,
            sha256: file.sha256,
            ...(file.sha256Source !== undefined ? { sha256_source: file.sha256Source } : {}),
            ...(file.nullWhy !== undefined ? { null_why: file.nullWhy } : {}),
          })),
          sources: sourcesOf(entry, base).map((source) => ({
            id: source.id,
            label: { ...source.label },
            kind: source.kind,
            urls: entry.files.map((file) => source.urlFor(file.name)),
          })),
          published_accuracy: entry.publishedAccuracy.map((accuracy) => ({
            metric: accuracy.metric,
            value: accuracy.value,
            test_set: accuracy.testSet,
            source: accuracy.source,
          })),
          installed: model !== undefined,
          ...(model ? { path: model.path } : {}),
          ...downloading(entry.name),
        };
      });
      const other = (
        name: string,
        language: ModelLanguage | undefined,
      ): Omit<
        ModelListItem,
        'id' | 'engine' | 'role' | 'size_bytes' | 'description' | 'descriptions' | 'installed'
      > => ({
        name,
        language: language ?? null,
        languages: language ? [language] : [],
        disk_bytes: null,
        licence: null,
        streaming: null,
        recommended: false,
        unchecked: false,
        files: [],
        sources: [],
        published_accuracy: [],
      });
      for (const model of installed) {
        if (catalogue.some((entry) => entry.name === model.name)) continue;
        const bytes = await folderBytes(model.path);
        items.push({
          ...other(model.name, model.language),
          id: model.id ?? model.name,
          engine: model.engine,
          role: model.role,
          size_bytes: bytes,
          disk_bytes: bytes,
          description: 'installed by URL or by hand',
          descriptions: localized('通过网址或手动安装', 'installed by URL or by hand'),
          installed: true,
          path: model.path,
        });
      }
      for (const job of jobs.values()) {
        if (items.some((item) => item.name === job.target.name)) continue;
        items.push({
          ...other(job.target.name, job.target.language),
          id: job.target.id,
          engine: 'vosk',
          role: 'recognizer',
          size_bytes: job.total ?? 0,
          description: `downloading from ${job.target.sources[0]?.urlFor('') ?? ''}`,
          descriptions: localized(
            `正在从 ${job.target.sources[0]?.urlFor('') ?? ''} 下载`,
            `downloading from ${job.target.sources[0]?.urlFor('') ?? ''}`,
          ),
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
        source: undefined,
        notice: undefined,
        done: Promise.resolve(),
      };
      const emit = (event: ModelEvent) => options.onEvent?.(event);
      const progressEvent = (): ModelEvent => ({
        type: 'progress',
        id: target.id,
        name: target.name,
        received: job.received,
        total: job.total,
        source: job.source,
        notice: job.notice,
      });
      job.done = install(target, controller.signal, {
        onProgress(received, total) {
          job.received = received;
          job.total = total;
          const now = Date.now();
          if (now - last < interval && received !== total) return;
          last = now;
          emit(progressEvent());
        },
        onSource(source, notice) {
          job.source = source;
          if (notice) job.notice = notice;
          // A switch is told at once, not at the next progress tick.
          emit(progressEvent());
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
                  localized(
                    `模型下载失败了：${(error as Error).message}`,
                    `The model download failed: ${(error as Error).message}`,
                  ),
                );
            emit({
              type: 'failed',
              id: target.id,
              name: target.name,
              code: known.code,
              message: known.message,
              localized: known.localized,
              technical: known.details.technical,
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
        if (modelNameProblem(name) === undefined) {
          await rm(join(downloadsFolderOf(folder), name), { recursive: true, force: true });
        }
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

/** A label at the start of a sentence: "the official host" → "The official host" (names stay). */
const capitalised = (text: string) =>
  /^(the|your) /.test(text) ? text.charAt(0).toUpperCase() + text.slice(1) : text;

/** Why a source failed, in a few words for the progress line. */
function failureReason(message: string, checksum: boolean): Localized {
  if (checksum) {
    return localized(
      '提供的文件与校验值不符（已删除）',
      'served a file that does not match its pinned size or checksum (deleted)',
    );
  }
  if (/stalled/.test(message)) return localized('下载停滞', 'stalled');
  const status = /HTTP (\d{3})/.exec(message)?.[1];
  if (status) return localized(`返回了 HTTP ${status}`, `answered HTTP ${status}`);
  return localized('无法连接', 'cannot be reached');
}
