import { join } from 'node:path';
import type {
  TranscriptDocument,
  TranscriptEntry,
  TranscriptStore,
} from '@class-assistant/transcript-core';
import { writeFileAtomic } from '@class-assistant/transcript-core';
import { ServerError } from '../errors.ts';
import { localized } from '../language.ts';
import type { AiCallOptions, ClassAi, ClassContext, TranscriptLine } from '../llm/class-ai.ts';
import {
  type CiteStore,
  compactTimestamp,
  localDateTime,
  sanitizeMaterialName,
} from '../material/cite-store.ts';

/** How far back each feature looks: rescue the last 2 minutes, catch-up the last 10. */
export const RESCUE_WINDOW_MINUTES = 2;
export const CATCHUP_WINDOW_MINUTES = 10;
/** When the window is empty (a quiet teacher), the last lines are used instead. */
const FALLBACK_LINES = 8;

/** Post-class notes as written to data/summaries. */
export interface NotesResult {
  filename: string;
  path: string;
  course_name: string;
  summary: string;
}

/** What the AI features read about the class, and where notes go. */
export interface ClassRecord {
  /** Material, history summary and the lines of the last `minutes` (or the last few lines). */
  context(minutes: number, courseName: string): Promise<ClassContext>;
  /** True when the transcript has at least one entry. */
  hasEntries(): Promise<boolean>;
  /** Writes notes for the whole class to data/summaries/{course}_{YYYYMMDD}_{HHMMSS}.md. */
  writeNotes(courseName: string, options?: AiCallOptions): Promise<NotesResult>;
}

function toLines(entries: readonly TranscriptEntry[]): TranscriptLine[] {
  return entries.map((entry) => ({ id: entry.id, timestamp: entry.time ?? '', text: entry.text }));
}

/** `{course}_{YYYYMMDD}_{HHMMSS}.md` as {@link writeNotesFile} names notes; `课堂笔记_…` has no course. */
const NOTES_NAME = /^(.*)_(\d{4})(\d{2})(\d{2})_(\d{2})(\d{2})(\d{2})\.md$/;

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
    courseName: course === '课堂笔记' ? '' : course,
    writtenAt: match ? new Date(year!, month! - 1, day!, hours!, minutes!, seconds!) : null,
  };
}

/** What notes are written from: a class's transcript and material. */
export interface NotesSource {
  document: Pick<TranscriptDocument, 'header' | 'summary' | 'entries'>;
  /** The course name ('' to take the transcript header's). */
  courseName: string;
  material: string;
  /** The class's date `YYYY-MM-DD` for the notes' title (default: today). */
  date?: string;
}

/**
 * Writes notes for a whole class with the LLM to data/summaries/{course}_{YYYYMMDD}_{HHMMSS}.md
 * (the live class's, or a past class's from the library).
 *
 * @throws ServerError `TRANSCRIPT_EMPTY` (409) for a class without lines, `NOTES_WRITE_FAILED`,
 *   and the LLM's errors.
 */
export async function writeNotesFile(
  options: { ai: ClassAi; summariesDir: string; now: () => Date },
  source: NotesSource,
  callOptions?: AiCallOptions,
): Promise<NotesResult> {
  const { document } = source;
  if (document.entries.length === 0 && document.summary.trim() === '') {
    throw new ServerError(
      'TRANSCRIPT_EMPTY',
      localized(
        '还没有可以总结的课堂记录：请先开始监听，让课堂进行一会儿。',
        'There is no class transcript to summarise yet: start monitoring and let the class run first.',
      ),
    );
  }
  const course = source.courseName || document.header.courseName || '';
  const now = options.now();
  const notes = await options.ai.notes(
    {
      courseName: course,
      material: source.material,
      historySummary: document.summary,
      lines: toLines(document.entries),
      date: source.date ?? localDateTime(now).slice(0, 10),
    },
    callOptions,
  );
  const stem = course ? sanitizeMaterialName(`${course}.md`) : '课堂笔记';
  const filename = `${stem}_${compactTimestamp(now)}.md`;
  const path = join(options.summariesDir, filename);
  try {
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
  return { filename, path, course_name: course, summary: notes };
}

/** Creates the class record over the transcript store, the material and the AI. */
export function createClassRecord(options: {
  dataDir: string;
  store: TranscriptStore;
  cite: CiteStore;
  ai: ClassAi;
  now: () => Date;
  /** Called with notes just written (the class library keeps a copy with the class). */
  onNotes?: (notes: NotesResult) => Promise<void>;
}): ClassRecord {
  const summariesDir = join(options.dataDir, 'summaries');
  return {
    async context(minutes, courseName) {
      const [material, historySummary, header] = await Promise.all([
        options.cite.readCurrent(),
        options.store.readSummary(),
        options.store.readHeader(),
      ]);
      let entries = await options.store.readRecent({ minutes });
      if (entries.length === 0) entries = await options.store.readRecent({ count: FALLBACK_LINES });
      return {
        courseName: courseName || header.courseName || '',
        material,
        materialName: material.trim() === '' ? '' : (header.materialName ?? ''),
        historySummary,
        lines: toLines(entries),
      };
    },
    async hasEntries() {
      return (await options.store.readRecent({ count: 1 })).length > 0;
    },
    async writeNotes(courseName, callOptions) {
      const result = await writeNotesFile(
        { ai: options.ai, summariesDir, now: options.now },
        {
          document: await options.store.read(),
          courseName,
          material: await options.cite.readCurrent(),
        },
        callOptions,
      );
      await options.onNotes?.(result);
      return result;
    },
  };
}
