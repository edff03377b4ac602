/**
 * The temporary folders of hot-words files: `<data>/.tmp/hotwords-<pid>-<random>/`, one per class
 * on a streaming transducer, removed when the class ends. A backend killed mid-class (SIGKILL)
 * cannot remove its own; the next start removes the folders of processes that no longer run.
 */
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { dataPaths } from '../data-folder.ts';
import { processAlive } from '../models/model-store.ts';

/** The backend's temporary area in the data folder. */
const temporaryArea = (dataDir: string) => dataPaths(dataDir).temporary;

const HOTWORDS_FOLDER = /^hotwords-(\d+)-/;

/**
 * A new, private hot-words folder of this process.
 *
 * @example
 * await createHotwordsFolder('./data'); // './data/.tmp/hotwords-4242-Xy12ab'
 */
export async function createHotwordsFolder(dataDir: string): Promise<string> {
  const area = temporaryArea(dataDir);
  await mkdir(area, { recursive: true, mode: 0o700 });
  return mkdtemp(join(area, `hotwords-${process.pid}-`));
}

/** Removes the hot-words folders of processes that no longer run; returns the names removed. */
export async function removeStaleHotwordsFolders(dataDir: string): Promise<string[]> {
  const area = temporaryArea(dataDir);
  const removed: string[] = [];
  for (const name of await readdir(area).catch(() => [] as string[])) {
    const pid = Number(HOTWORDS_FOLDER.exec(name)?.[1]);
    if (!Number.isInteger(pid) || pid <= 0) continue;
    if (pid === process.pid || processAlive(pid)) continue;
    await rm(join(area, name), { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}
