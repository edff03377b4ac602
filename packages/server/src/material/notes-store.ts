import { mkdir, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '@class-assistant/transcript-core';
import { DATA_FOLDER, dataPaths } from '../data-folder.ts';
import { ServerError } from '../errors.ts';
import { displayName, isPlainFileName } from '../files.ts';
import { localized } from '../language.ts';
import { readContainedText } from '../security/contained-file.ts';
import { compactTimestamp, localDateTime, sanitizeMaterialName } from './cite-store.ts';

/** One notes file in data/summaries. */
interface NoteInfo {
  filename: string;
  /** From the file name ('' for `课堂笔记_…` notes). */
  course_name: string;
  /** Local time `YYYY-MM-DD HH:MM:SS`. */
  updated_at: string;
  /** The same instant in ISO 8601 (UTC). */
  updated_at_iso: string;
  /** Bytes. */
  size: number;
}

/** `{course}_{YYYYMMDD}_{HHMMSS}.md` as the store names notes; `课堂笔记_…` has no course. */
const NOTES_NAME = /^(.*)_(\d{4})(\d{2})(\d{2})_(\d{2})(\d{2})(\d{2})\.md$/;
/** The name's stem of notes without a course. */
const NO_COURSE = '课堂笔记';

/**
 * The course and the local time a notes file name carries (`null` time when the name is not one
 * this server writes).
 *
 * @example
 * parseNotesFilename('数据结构_20260307_224812.md') // { courseName: '数据结构', writtenAt: 2026-03-07 22:48:12 }
 */
export function parseNotesFilename(filename: string): {
  courseName: string;
  writtenAt: Date | null;
} {
  const match = NOTES_NAME.exec(filename);
  const course = match?.[1] ?? filename.replace(/\.md$/i, '');
  const [year, month, day, hours, minutes, seconds] = (match?.slice(2) ?? []).map(Number);
  return {
    courseName: course === NO_COURSE ? '' : course,
    writtenAt: match ? new Date(year!, month! - 1, day!, hours!, minutes!, seconds!) : null,
  };
}

/**
 * The post-class notes of a data folder (data/summaries): list, read, write. Names from outside
 * must be plain `.md` names of the folder, and a link in the folder is never read (it could lead
 * to the settings file).
 */
export interface NotesStore {
  readonly folder: string;
  /** Every notes file, newest first. */
  list(): Promise<NoteInfo[]>;
  /**
   * One notes file with its content.
   *
   * @throws ServerError `NOTES_FILENAME_INVALID` for a name that is not a plain .md name,
   *   `NOTES_NOT_FOUND` when there is no such file, `FILE_LINK_REFUSED` for a link.
   */
  read(filename: string): Promise<NoteInfo & { content: string }>;
  /**
   * Writes notes as `{course}_{YYYYMMDD}_{HHMMSS}.md` (`课堂笔记_…` without a course) at once
   * (temporary file, fsync, rename), ending in a newline.
   *
   * @throws ServerError `NOTES_WRITE_FAILED`, naming the file.
   */
  write(courseName: string, notes: string, now: Date): Promise<{ filename: string; path: string }>;
}

/**
 * Creates the notes store of a data folder.
 *
 * @example
 * const notes = createNotesStore(dataDir);
 * const { filename } = await notes.write('数据结构', '# 笔记\n', new Date());
 * (await notes.read(filename)).content; // '# 笔记\n'
 */
export function createNotesStore(dataDir: string): NotesStore {
  const folder = dataPaths(dataDir).summaries;

  const describe = (filename: string, info: { mtime: Date; size: number }): NoteInfo => ({
    filename,
    course_name: parseNotesFilename(filename).courseName,
    updated_at: localDateTime(info.mtime),
    updated_at_iso: info.mtime.toISOString(),
    size: info.size,
  });

  const existingNotes = async (filename: string) => {
    const shown = displayName(filename);
    if (!isPlainFileName(filename, '.md')) {
      throw new ServerError(
        'NOTES_FILENAME_INVALID',
        localized(
          `"${shown}" 不是笔记文件名（应为 /api/notes 列出的 .md 文件名）。`,
          `"${shown}" is not the name of a notes file (a plain .md name from /api/notes).`,
        ),
        { field: 'filename' },
      );
    }
    try {
      const info = await stat(join(folder, filename));
      if (info.isFile()) return info;
    } catch {
      // Reported below.
    }
    throw new ServerError(
      'NOTES_NOT_FOUND',
      localized(
        `data/summaries 中没有名为 "${shown}" 的笔记，请在 /api/notes 的列表中选择。`,
        `No notes named "${shown}" in data/summaries. See /api/notes for the list.`,
      ),
      { field: 'filename' },
    );
  };

  return {
    folder,
    async list() {
      let names: string[];
      try {
        names = await readdir(folder);
      } catch {
        names = [];
      }
      const items: NoteInfo[] = [];
      for (const name of names.filter((entry) => entry.toLowerCase().endsWith('.md'))) {
        try {
          const info = await stat(join(folder, name));
          if (info.isFile()) items.push(describe(name, info));
        } catch {
          // Deleted in between.
        }
      }
      return items.sort(
        (a, b) =>
          b.updated_at_iso.localeCompare(a.updated_at_iso) || b.filename.localeCompare(a.filename),
      );
    },
    async read(filename) {
      const info = await existingNotes(filename);
      // Not through a link: one placed in summaries/ could lead to the settings file.
      const content =
        (await readContainedText(dataDir, [DATA_FOLDER.summaries.name, filename])) ?? '';
      return { ...describe(filename, info), content };
    },
    async write(courseName, notes, now) {
      const stem = courseName ? sanitizeMaterialName(`${courseName}.md`) : NO_COURSE;
      const filename = `${stem}_${compactTimestamp(now)}.md`;
      const path = join(folder, filename);
      try {
        await mkdir(folder, { recursive: true });
        await writeFileAtomic(path, notes.endsWith('\n') ? notes : `${notes}\n`);
      } catch (error) {
        throw new ServerError(
          'NOTES_WRITE_FAILED',
          localized(
            `无法把笔记写入 ${path}：${(error as Error).message}`,
            `Could not write the notes to ${path}: ${(error as Error).message}`,
          ),
          {},
          { cause: error },
        );
      }
      return { filename, path };
    },
  };
}
