/**
 * The installed models: one folder each under `<data>/models/`, put there whole or not at all.
 * An archive is unpacked into `<data>/models/.tmp-<name>-<pid>/`, checked for a model's layout,
 * and only then renamed to `<data>/models/<name>/` (a rename within one folder is atomic), so a
 * crash or a kill at any moment leaves either no model or a whole one. Temporary folders of
 * processes that are gone are removed by {@link removeStaleFiles} when the manager starts.
 *
 * ```
 * <data>/models/
 *   vosk-model-small-cn-0.22/        an installed model (+ .class-assistant-model.json)
 *   .tmp-vosk-model-small-cn-0.22-4242/   being unpacked by process 4242
 *   .download/vosk-model-small-cn-0.22.zip.part   being downloaded (kept to resume)
 *   .download/vosk-model-small-cn-0.22.zip.lock   the pid downloading it
 *   .download/sherpa-onnx-…-2024-07-17/          a model of separate files being downloaded:
 *       tokens.txt                               a file downloaded and checked
 *       model.int8.onnx.part                     a file being downloaded (kept to resume)
 * ```
 *
 * A model of separate files (sherpa-onnx) is downloaded file by file into its folder under
 * `.download/`, each file checked as it completes; when all are there the folder's layout is
 * checked and it is renamed into place the same way ({@link installFolder}).
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { dataPaths, modelDownloadsPath } from '../data-folder.ts';
import { ServerError } from '../errors.ts';
import { localized } from '../language.ts';
import {
  languageFromName,
  type ModelEngine,
  type ModelLanguage,
  type ModelRole,
  modelNameProblem,
} from './model-catalogue.ts';
import { isPunctuationFolder } from './sherpa-model.ts';
import { DEFAULT_UNPACK_LIMITS, type UnpackLimits, unpackArchive } from './unpack-archive.ts';

/** The file inside an installed model folder saying where it came from. */
export const MODEL_INFO_FILE = '.class-assistant-model.json';

/** An installed model. */
export interface InstalledModel {
  /** Its folder name under `<data>/models/`. */
  name: string;
  path: string;
  engine: ModelEngine;
  /** `punctuation`: a sherpa-onnx punctuation model, never used as a recognizer. */
  role: ModelRole;
  /** Its class language, from the catalogue, the request or its name; undefined if unknown. */
  language: ModelLanguage | undefined;
  /** The catalogue id it was installed from, if any. */
  id: string | undefined;
  /** SHA-256 of the archive it was unpacked from (absent for folders placed by hand). */
  sha256: string | undefined;
}

/** What {@link installArchive} records about a model. */
export interface ModelOrigin {
  id?: string | undefined;
  language?: ModelLanguage | undefined;
  /** SHA-256 of the archive (models of one archive). */
  sha256?: string | undefined;
  /** Where the archive came from, or the first file of a model of separate files. */
  url: string;
  /** The source that served it (`official`, `huggingface`, `mirror`, …). */
  source?: string | undefined;
  /**
   * Models of separate files: each file, the SHA-256 of what arrived, whether it was checked
   * against a published value (false: the student allowed an unchecked file) and its address.
   */
  files?: Array<{ name: string; sha256: string; checked: boolean; url: string }> | undefined;
}

/** `<data>/models`. */
export function modelsFolderOf(dataDir: string): string {
  return dataPaths(dataDir).models;
}

/** `<data>/models/.download`: `.part` files being downloaded and their locks. */
export function downloadsFolderOf(modelsFolder: string): string {
  return modelDownloadsPath(modelsFolder);
}

const isDirectory = (path: string) => {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
};

/**
 * Which engine a folder holds a model for, by its layout: Vosk (`am/final.mdl`, or `final.mdl`
 * in older models), PocketSphinx 5prealpha (`en-us/`, `en-us.lm.bin`, `cmudict-en-us.dict`) or
 * sherpa-onnx (`tokens.txt` and `.onnx` graphs).
 */
export function modelLayout(folder: string): ModelEngine | undefined {
  if (existsSync(join(folder, 'am', 'final.mdl')) || existsSync(join(folder, 'final.mdl'))) {
    return 'vosk';
  }
  if (
    isDirectory(join(folder, 'en-us')) &&
    existsSync(join(folder, 'en-us.lm.bin')) &&
    existsSync(join(folder, 'cmudict-en-us.dict'))
  ) {
    return 'pocketsphinx';
  }
  // sherpa-onnx models (SenseVoice, streaming transducers, Paraformer): ONNX graphs beside the
  // tokens.txt that maps their outputs to text.
  if (existsSync(join(folder, 'tokens.txt')) && hasOnnxFile(folder)) return 'sherpa';
  // A sherpa-onnx punctuation model: model*.onnx, its vocabulary inside (see modelRole).
  if (isPunctuationFolder(folder)) return 'sherpa';
  return undefined;
}

/**
 * What a model folder is for: `punctuation` for a sherpa-onnx punctuation model (a `model*.onnx`
 * graph and no `tokens.txt`), which only punctuates a streaming model's lines and is never
 * chosen as a recognizer; `recognizer` for every other model.
 */
function modelRole(folder: string): ModelRole {
  return isPunctuationFolder(folder) ? 'punctuation' : 'recognizer';
}

function hasOnnxFile(folder: string): boolean {
  try {
    return readdirSync(folder).some((name) => name.endsWith('.onnx'));
  } catch {
    return false;
  }
}

async function readInfo(folder: string): Promise<Partial<ModelOrigin>> {
  try {
    const parsed = JSON.parse(await readFile(join(folder, MODEL_INFO_FILE), 'utf8')) as unknown;
    return typeof parsed === 'object' && parsed !== null ? (parsed as Partial<ModelOrigin>) : {};
  } catch {
    return {};
  }
}

/** The models installed in `modelsFolder` (folders with a model's layout), by name. */
export async function listInstalledModels(modelsFolder: string): Promise<InstalledModel[]> {
  let names: string[];
  try {
    names = await readdir(modelsFolder);
  } catch {
    return [];
  }
  const models: InstalledModel[] = [];
  for (const name of names.sort()) {
    if (name.startsWith('.')) continue;
    const path = join(modelsFolder, name);
    if (!isDirectory(path)) continue;
    const engine = modelLayout(path);
    if (!engine) continue;
    const info = await readInfo(path);
    const language =
      info.language === 'zh' || info.language === 'en' ? info.language : languageFromName(name);
    models.push({
      name,
      path,
      engine,
      role: modelRole(path),
      language: engine === 'pocketsphinx' ? 'en' : language,
      id: typeof info.id === 'string' ? info.id : undefined,
      sha256: typeof info.sha256 === 'string' ? info.sha256 : undefined,
    });
  }
  return models;
}

/** Bytes of all files under a folder. */
export async function folderBytes(folder: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(folder, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += (await stat(join(entry.parentPath, entry.name))).size;
  }
  return total;
}

/** Whether a process with this id is running (a process of another user counts). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const TEMPORARY = /^\.tmp-(.+)-(\d+)$/;

/**
 * Removes what interrupted installations left: temporary folders and download locks of processes
 * that no longer run (and of this process, which has started none yet). `.part` files stay, so
 * that the next download resumes. Returns the names removed.
 */
export async function removeStaleFiles(modelsFolder: string): Promise<string[]> {
  const removed: string[] = [];
  for (const name of await readdir(modelsFolder).catch(() => [] as string[])) {
    const match = TEMPORARY.exec(name);
    if (!match) continue;
    const pid = Number(match[2]);
    if (pid !== process.pid && processAlive(pid)) continue;
    await rm(join(modelsFolder, name), { recursive: true, force: true });
    removed.push(name);
  }
  const downloads = downloadsFolderOf(modelsFolder);
  for (const name of await readdir(downloads).catch(() => [] as string[])) {
    if (!name.endsWith('.lock')) continue;
    const pid = Number((await readFile(join(downloads, name), 'utf8').catch(() => '')).trim());
    if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && processAlive(pid)) continue;
    await rm(join(downloads, name), { force: true });
    removed.push(`.download/${name}`);
  }
  return removed;
}

/**
 * Takes the download lock of one model (a file holding this pid): two processes (the backend and
 * the CLI) never write the same `.part` file. Returns the release function; throws MODEL_BUSY
 * while another live process holds it.
 */
export async function lockDownload(
  modelsFolder: string,
  name: string,
): Promise<() => Promise<void>> {
  const downloads = downloadsFolderOf(modelsFolder);
  await mkdir(downloads, { recursive: true });
  const path = join(downloads, `${name}.zip.lock`);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await open(path, 'wx');
      await handle.writeFile(String(process.pid));
      await handle.close();
      return () => rm(path, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const pid = Number((await readFile(path, 'utf8').catch(() => '')).trim());
      if (Number.isInteger(pid) && pid > 0 && processAlive(pid)) {
        throw new ServerError(
          'MODEL_BUSY',
          localized(
            `模型 ${name} 正在${pid === process.pid ? '' : `由进程 ${pid} `}下载。请等它完成，或删除它以取消。`,
            `The model ${name} is already being downloaded${pid === process.pid ? '' : ` by process ${pid}`}. Wait for it to finish, or remove it to cancel.`,
          ),
        );
      }
      await rm(path, { force: true });
    }
  }
  throw new ServerError(
    'MODEL_BUSY',
    localized(`没能锁定 ${name} 的下载。`, `Could not lock the download of ${name}.`),
  );
}

/**
 * Installs a downloaded (and already verified) archive as `<modelsFolder>/<name>`: unpacks into a
 * temporary folder, checks the layout, records the origin and renames it into place. Throws
 * MODEL_ARCHIVE_INVALID (nothing installed, the temporary folder removed) or MODEL_BUSY when a
 * model of that name appeared meanwhile.
 */
export async function installArchive(options: {
  archive: string;
  modelsFolder: string;
  name: string;
  origin: ModelOrigin;
  limits?: UnpackLimits;
  signal?: AbortSignal;
}): Promise<InstalledModel> {
  const { modelsFolder, name } = options;
  const problem = modelNameProblem(name);
  if (problem) throw new ServerError('MODEL_NAME_INVALID', `${problem}.`, { field: 'name' });
  const temporary = join(modelsFolder, `.tmp-${name}-${process.pid}`);
  const target = join(modelsFolder, name);
  await rm(temporary, { recursive: true, force: true });
  try {
    const content = join(temporary, 'content');
    await unpackArchive(
      options.archive,
      content,
      options.limits ?? DEFAULT_UNPACK_LIMITS,
      options.signal,
    );
    // Most archives hold one top folder named after the model; some hold the files directly.
    const top = await readdir(content, { withFileTypes: true });
    const root = top.length === 1 && top[0]!.isDirectory() ? join(content, top[0]!.name) : content;
    const engine = modelLayout(root);
    if (!engine) {
      throw new ServerError(
        'MODEL_ARCHIVE_INVALID',
        localized(
          `${options.origin.url} 的压缩包里没有模型：既不是 Vosk 模型（am/final.mdl），也不是 PocketSphinx 模型（en-us/、en-us.lm.bin、cmudict-en-us.dict）。没有安装任何东西。`,
          `The archive from ${options.origin.url} holds no model: neither a Vosk model (am/final.mdl) nor a PocketSphinx model (en-us/, en-us.lm.bin, cmudict-en-us.dict). Nothing was installed.`,
        ),
      );
    }
    const language =
      engine === 'pocketsphinx' ? 'en' : (options.origin.language ?? languageFromName(name));
    return await moveIntoPlace(root, target, { name, engine, language, origin: options.origin });
  } finally {
    await rm(temporary, { recursive: true, force: true });
  }
}

/** Removes an installed model's folder; false when there was none. */
export async function removeInstalledModel(modelsFolder: string, name: string): Promise<boolean> {
  const problem = modelNameProblem(name);
  if (problem) throw new ServerError('MODEL_NAME_INVALID', `${problem}.`, { field: 'name' });
  const target = join(modelsFolder, name);
  if (!existsSync(target)) return false;
  // Renamed away first, so that a half-deleted folder is never taken for a model.
  const doomed = join(modelsFolder, `.tmp-${name}-removing-${process.pid}`);
  await rename(target, doomed);
  await rm(doomed, { recursive: true, force: true });
  return true;
}

/**
 * Installs a folder of downloaded (and already verified) files as `<modelsFolder>/<name>`: checks
 * the layout, records the origin and renames the folder into place (one atomic rename). Throws
 * MODEL_ARCHIVE_INVALID when the files make no model (the folder is removed) or MODEL_BUSY when
 * a model of that name appeared meanwhile.
 */
export async function installFolder(options: {
  folder: string;
  modelsFolder: string;
  name: string;
  origin: ModelOrigin;
}): Promise<InstalledModel> {
  const { modelsFolder, name, folder } = options;
  const problem = modelNameProblem(name);
  if (problem) throw new ServerError('MODEL_NAME_INVALID', `${problem}.`, { field: 'name' });
  const target = join(modelsFolder, name);
  const engine = modelLayout(folder);
  if (!engine) {
    await rm(folder, { recursive: true, force: true });
    throw new ServerError(
      'MODEL_ARCHIVE_INVALID',
      localized(
        `为 ${name} 下载的文件组不成模型（sherpa-onnx 模型需要 tokens.txt 和 .onnx 文件）。没有安装任何东西。`,
        `The files downloaded for ${name} make no model (a sherpa-onnx model needs tokens.txt and .onnx files). Nothing was installed.`,
      ),
    );
  }
  const language = options.origin.language ?? languageFromName(name);
  // Its files were checked one by one: no single digest stands for the model.
  return {
    ...(await moveIntoPlace(folder, target, { name, engine, language, origin: options.origin })),
    sha256: undefined,
  };
}

/**
 * Records the origin in `folder` and renames it to `target` (one atomic rename); MODEL_BUSY
 * when a model of that name appeared meanwhile.
 */
async function moveIntoPlace(
  folder: string,
  target: string,
  model: {
    name: string;
    engine: ModelEngine;
    language: ModelLanguage | undefined;
    origin: ModelOrigin;
  },
): Promise<InstalledModel> {
  const { name, engine, language, origin } = model;
  await writeFile(
    join(folder, MODEL_INFO_FILE),
    `${JSON.stringify({ ...origin, language, engine, installed_at: new Date().toISOString() }, null, 2)}\n`,
  );
  if (existsSync(target)) {
    throw new ServerError(
      'MODEL_BUSY',
      localized(`已经装有名为 ${name} 的模型。`, `A model named ${name} is already installed.`),
    );
  }
  await rename(folder, target);
  return {
    name,
    path: target,
    engine,
    role: modelRole(target),
    language,
    id: origin.id,
    sha256: origin.sha256,
  };
}
