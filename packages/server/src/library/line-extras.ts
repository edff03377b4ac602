/**
 * What a class keeps about each line besides its text: the page of the material the line is about,
 * its translation into the student's language, and where its speech starts in the class's kept
 * audio. Kept in the class folder as `lines.jsonl`: one JSON object per change
 * (`{"id":12,"page":7}`), appended as the class runs; the last value of a field wins. A line torn by
 * a crash (the file's last) or one that does not parse is skipped, so a crash loses at most the
 * last change, never the others.
 */
import { open, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CLASS_FILES } from '../data-folder.ts';
import type { LineExtras } from '../events/live-events.ts';

/** A change to a line's extras: the fields given replace the line's. */
type LineExtrasPatch = Partial<LineExtras>;

/** A line without extras. */
export const NO_EXTRAS: Readonly<LineExtras> = Object.freeze({
  page: null,
  translation: null,
  audio_ms: null,
});

const FIELDS = ['page', 'translation', 'audio_ms'] as const;

/** The path of a class folder's extras file. */
export function lineExtrasPath(folder: string): string {
  return join(folder, CLASS_FILES.lineExtras);
}

/** The valid fields of one parsed record (a wrong type is dropped, not the record). */
function patchOf(record: Record<string, unknown>): LineExtrasPatch {
  const patch: LineExtrasPatch = {};
  const page = record.page;
  if (page === null || (Number.isInteger(page) && (page as number) >= 1)) {
    patch.page = page as number | null;
  }
  const translation = record.translation;
  if (translation === null || typeof translation === 'string') patch.translation = translation;
  const audio = record.audio_ms;
  if (audio === null || (Number.isInteger(audio) && (audio as number) >= 0)) {
    patch.audio_ms = audio as number | null;
  }
  return patch;
}

/** Applies `patch` to the extras of line `id` in `map`. */
function apply(map: Map<number, LineExtras>, id: number, patch: LineExtrasPatch): void {
  const next: LineExtras = { ...(map.get(id) ?? NO_EXTRAS) };
  for (const field of FIELDS) {
    if (patch[field] !== undefined) (next as Record<string, unknown>)[field] = patch[field];
  }
  map.set(id, next);
}

/**
 * Parses the text of a `lines.jsonl`: the extras of every line it names, by id.
 *
 * @example
 * parseLineExtras('{"id":1,"page":3}\n{"id":1,"translation":"Hello"}\n').get(1);
 * // { page: 3, translation: 'Hello', audio_ms: null }
 */
export function parseLineExtras(text: string): Map<number, LineExtras> {
  const map = new Map<number, LineExtras>();
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch {
      continue;
    }
    if (typeof record !== 'object' || record === null) continue;
    const id = (record as { id?: unknown }).id;
    if (!Number.isInteger(id) || (id as number) < 1) continue;
    apply(map, id as number, patchOf(record as Record<string, unknown>));
  }
  return map;
}

/** The extras of a class folder's lines (empty when it has none). */
export async function readLineExtras(folder: string): Promise<Map<number, LineExtras>> {
  try {
    return parseLineExtras(await readFile(lineExtrasPath(folder), 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new Map();
    throw error;
  }
}

/** The extras of a running class: read at once from memory, each change appended to its file. */
export interface LineExtrasLog {
  /** The extras of line `id` (all null when none). */
  get(id: number): LineExtras;
  /** Every line with extras. */
  all(): ReadonlyMap<number, LineExtras>;
  /** Changes line `id`'s extras now (in memory) and appends the change to the file. */
  set(id: number, patch: LineExtrasPatch): void;
  /** Resolves once every change so far is in the file, flushed to the disk. */
  flush(): Promise<void>;
}

/**
 * Opens the extras of the class folder `folder` (those it has already: a class going on after a
 * crash keeps them). `onError` hears of a failed append (the change stays in memory).
 */
export async function openLineExtrasLog(
  folder: string,
  onError: (error: unknown) => void,
): Promise<LineExtrasLog> {
  let text = '';
  try {
    text = await readFile(lineExtrasPath(folder), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const map = parseLineExtras(text);
  // A record torn by a crash stays alone on its line: the next one starts on a new line.
  let pending = text === '' || text.endsWith('\n') ? '' : '\n';
  let writing: Promise<void> = Promise.resolve();
  let synced = true;

  const write = (): Promise<void> => {
    writing = writing.then(async () => {
      if (pending === '') return;
      const text = pending;
      pending = '';
      try {
        const handle = await open(lineExtrasPath(folder), 'a');
        try {
          await handle.write(text);
          synced = false;
        } finally {
          await handle.close();
        }
      } catch (error) {
        onError(error);
      }
    });
    return writing;
  };

  return {
    get: (id) => map.get(id) ?? NO_EXTRAS,
    all: () => map,
    set(id, patch) {
      const record: Record<string, unknown> = { id };
      for (const field of FIELDS) if (patch[field] !== undefined) record[field] = patch[field];
      if (Object.keys(record).length === 1) return;
      apply(map, id, patch);
      pending += `${JSON.stringify(record)}\n`;
      void write();
    },
    async flush() {
      await write();
      if (synced) return;
      try {
        const handle = await open(lineExtrasPath(folder), 'a');
        try {
          await handle.datasync();
          synced = true;
        } finally {
          await handle.close();
        }
      } catch (error) {
        onError(error);
      }
    },
  };
}
