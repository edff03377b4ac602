import { access, readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '@class-assistant/transcript-core';
import { DATA_FOLDER, dataPaths } from '../data-folder.ts';
import { ServerError } from '../errors.ts';
import { displayName, isPlainFileName } from '../files.ts';
import { localized } from '../language.ts';
import { readContainedText } from '../security/contained-file.ts';

/** One material text in data/cite (the original's `{filename, updated_at, size}`). */
interface CiteFileInfo {
  filename: string;
  /** Local time `YYYY-MM-DD HH:MM:SS`, as the original client shows it. */
  updated_at: string;
  /** Bytes. */
  size: number;
  /** The same instant in ISO 8601 (UTC), for programs. */
  updated_at_iso: string;
  /** Slides or pages in it (its `--- 第 N 页 ---` markers; 0 for text without them). */
  pages: number;
}

/** How many page markers a material text has. */
function countMaterialPages(text: string): number {
  return text.match(/^--- 第 \d+ 页 ---$/gm)?.length ?? 0;
}

const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])$/i;
const MAX_NAME_CHARACTERS = 80;

/**
 * Turns an uploaded file's name into a safe base name: no folders, no `..`, no characters that
 * are illegal on Windows or macOS, no control characters, no Windows device names, at most 80
 * characters; Chinese and other letters are kept.
 *
 * @example
 * sanitizeMaterialName('../../第3章 链表.pptx'); // '第3章_链表'
 */
export function sanitizeMaterialName(original: string): string {
  const base = original.slice(Math.max(original.lastIndexOf('/'), original.lastIndexOf('\\')) + 1);
  const dot = base.lastIndexOf('.');
  const stem = (dot > 0 ? base.slice(0, dot) : base).normalize('NFC');
  let clean = stem
    .replace(/[\p{Cc}\p{Cf}<>:"/\\|?*]/gu, '')
    .replace(/\s+/g, '_')
    .replace(/\.{2,}/g, '.')
    .replace(/_+/g, '_')
    .replace(/^[._-]+|[._-]+$/g, '');
  clean = Array.from(clean)
    .slice(0, MAX_NAME_CHARACTERS)
    .join('')
    .replace(/[._-]+$/g, '');
  if (clean === '') clean = 'material';
  if (WINDOWS_RESERVED.test(clean)) clean = `_${clean}`;
  return clean;
}

/** `YYYYMMDD_HHMMSS` in local time. */
export function compactTimestamp(date: Date): string {
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${date.getFullYear()}${pad(date.getMonth() + 1)}${pad(date.getDate())}_${pad(date.getHours())}${pad(date.getMinutes())}${pad(date.getSeconds())}`;
}

/** `YYYY-MM-DD HH:MM:SS` in local time. */
export function localDateTime(date: Date): string {
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

/** The class-material files of a data folder: data/cite and data/current_class_material.txt. */
export interface CiteStore {
  readonly folder: string;
  readonly currentMaterialPath: string;
  /** Writes an upload's text as `<sanitised-name>_<YYYYMMDD_HHMMSS>.txt`; never overwrites. */
  write(originalName: string, text: string, now: Date): Promise<string>;
  /** Every .txt in data/cite, newest first. */
  list(): Promise<CiteFileInfo[]>;
  /** Copies a cite file to current_class_material.txt, or empties it when `filename` is empty. */
  activate(filename: string | null | undefined): Promise<void>;
  /**
   * Checks and reads what {@link CiteStore.activate} would write, without writing it yet:
   * `commit()` writes it. start_monitor activates the material only once the class runs.
   */
  prepareActivation(
    filename: string | null | undefined,
  ): Promise<{ text: string; commit(): Promise<void> }>;
  /** Text of current_class_material.txt ('' when absent). */
  readCurrent(): Promise<string>;
}

/** Creates the cite store of a data folder. */
export function createCiteStore(dataDir: string): CiteStore {
  const { cite: folder, currentMaterial: currentMaterialPath } = dataPaths(dataDir);
  const reserved = new Set<string>();
  // Page counts by file, kept while the file is unchanged (listing reads each file once).
  const pageCounts = new Map<string, { stamp: string; pages: number }>();
  const pagesOf = async (filename: string, stamp: string): Promise<number> => {
    const known = pageCounts.get(filename);
    if (known?.stamp === stamp) return known.pages;
    const pages = countMaterialPages(await readFile(join(folder, filename), 'utf8'));
    pageCounts.set(filename, { stamp, pages });
    return pages;
  };

  const existingMaterialPath = async (filename: string): Promise<string> => {
    const shown = displayName(filename);
    if (!isPlainFileName(filename, '.txt')) {
      throw new ServerError(
        'CITE_FILENAME_INVALID',
        localized(
          `"${shown}" 不是资料文件名（应为 /api/cite_files 列出的 .txt 文件名）。`,
          `"${shown}" is not the name of a material file (a plain .txt name from /api/cite_files).`,
        ),
        { field: 'cite_filename' },
      );
    }
    const path = join(folder, filename);
    try {
      if (!(await stat(path)).isFile()) throw new Error('not a file');
    } catch {
      throw new ServerError(
        'CITE_FILE_NOT_FOUND',
        localized(
          `data/cite 中没有名为 "${shown}" 的资料，请从 /api/cite_files 中选择，或重新上传。`,
          `No material named "${shown}" in data/cite. Pick one from /api/cite_files or upload it again.`,
        ),
        { field: 'cite_filename' },
      );
    }
    return path;
  };

  const prepareActivation = async (filename: string | null | undefined) => {
    // Not through a link: one placed in cite/ could lead to the settings file, which would
    // become the class material the class agent reads.
    const text = filename
      ? (((await existingMaterialPath(filename)) &&
          (await readContainedText(dataDir, [DATA_FOLDER.cite.name, filename]))) ??
        '')
      : '';
    return { text, commit: () => writeFileAtomic(currentMaterialPath, text) };
  };

  return {
    folder,
    currentMaterialPath,
    async write(originalName, text, now) {
      const stem = `${sanitizeMaterialName(originalName)}_${compactTimestamp(now)}`;
      for (let attempt = 1; ; attempt++) {
        const filename = attempt === 1 ? `${stem}.txt` : `${stem}_${attempt}.txt`;
        // Reserve before the first await, so concurrent uploads of one name in one second differ.
        if (reserved.has(filename)) continue;
        reserved.add(filename);
        const path = join(folder, filename);
        let taken = true;
        try {
          await access(path);
        } catch {
          taken = false;
        }
        if (taken) {
          reserved.delete(filename);
          continue;
        }
        try {
          await writeFileAtomic(path, text);
        } finally {
          reserved.delete(filename);
        }
        return filename;
      }
    },
    async list() {
      let names: string[];
      try {
        names = await readdir(folder);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
        throw error;
      }
      const items: Array<CiteFileInfo & { mtime: number }> = [];
      for (const filename of names) {
        if (!filename.toLowerCase().endsWith('.txt') || filename.startsWith('.')) continue;
        try {
          const info = await stat(join(folder, filename));
          if (!info.isFile()) continue;
          items.push({
            filename,
            updated_at: localDateTime(info.mtime),
            size: info.size,
            updated_at_iso: info.mtime.toISOString(),
            pages: await pagesOf(filename, `${info.mtimeMs}:${info.size}`),
            mtime: info.mtimeMs,
          });
        } catch {
          // Deleted meanwhile.
        }
      }
      items.sort((a, b) => b.mtime - a.mtime || b.filename.localeCompare(a.filename));
      return items.map(({ mtime: _mtime, ...item }) => item);
    },
    prepareActivation,
    async activate(filename) {
      await (await prepareActivation(filename)).commit();
    },
    async readCurrent() {
      // Not through a link: what it returns goes to the LLM with the class.
      return (await readContainedText(dataDir, [DATA_FOLDER.currentMaterial.name])) ?? '';
    },
  };
}
