import type {
  TranscriptDocument,
  TranscriptEntry,
  TranscriptStore,
} from '@class-assistant/transcript-core';
import { ServerError } from '../errors.ts';
import type { ClassMark, LineExtras } from '../events/live-events.ts';
import { localized } from '../language.ts';
import type { AiCallOptions, ClassAi, ClassContext, TranscriptLine } from '../llm/class-ai.ts';
import { type CiteStore, localDateTime } from '../material/cite-store.ts';
import type { NotesStore } from '../material/notes-store.ts';
import { withMarks } from './marks-section.ts';

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

function toLines(
  entries: readonly TranscriptEntry[],
  extras?: ReadonlyMap<number, LineExtras>,
): TranscriptLine[] {
  return entries.map((entry) => ({
    id: entry.id,
    timestamp: entry.time ?? '',
    text: entry.text,
    page: extras?.get(entry.id)?.page ?? null,
  }));
}

/** What notes are written from: a class's transcript and material. */
export interface NotesSource {
  document: Pick<TranscriptDocument, 'header' | 'summary' | 'entries'>;
  /** The course name ('' to take the transcript header's). */
  courseName: string;
  material: string;
  /** The class's date `YYYY-MM-DD` for the notes' title (default: today). */
  date?: string;
  /** The moments the student marked: listed after the LLM's notes. */
  marks?: readonly ClassMark[];
  /** The extras of the class's lines (their pages label the lines the notes are written from). */
  extras?: ReadonlyMap<number, LineExtras>;
}

/**
 * Writes notes for a whole class with the LLM to data/summaries/{course}_{YYYYMMDD}_{HHMMSS}.md
 * (the live class's, or a past class's from the library).
 *
 * @throws ServerError `TRANSCRIPT_EMPTY` (409) for a class without lines, `NOTES_WRITE_FAILED`,
 *   and the LLM's errors.
 */
export async function writeNotesFile(
  options: { ai: ClassAi; notes: NotesStore; now: () => Date },
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
  const written = await options.ai.notes(
    {
      courseName: course,
      material: source.material,
      historySummary: document.summary,
      lines: toLines(document.entries, source.extras),
      date: source.date ?? localDateTime(now).slice(0, 10),
    },
    callOptions,
  );
  const notes = withMarks(written, source.marks ?? []);
  const { filename, path } = await options.notes.write(course, notes, now);
  return { filename, path, course_name: course, summary: notes };
}

/** Creates the class record over the transcript store, the material and the AI. */
export function createClassRecord(options: {
  notes: NotesStore;
  store: TranscriptStore;
  cite: CiteStore;
  ai: ClassAi;
  now: () => Date;
  /** Called with notes just written (the class library keeps a copy with the class). */
  onNotes?: (notes: NotesResult) => Promise<void>;
  /** The moments marked in the class of the live transcript, for its notes. */
  marks?: () => Promise<ClassMark[]>;
  /** The extras (pages) of the live transcript's lines. */
  lineExtras?: () => Promise<ReadonlyMap<number, LineExtras>>;
  /** The material page the teacher is on now (null when unknown). */
  currentPage?: () => number | null;
}): ClassRecord {
  return {
    async context(minutes, courseName) {
      const [material, historySummary, header, extras] = await Promise.all([
        options.cite.readCurrent(),
        options.store.readSummary(),
        options.store.readHeader(),
        options.lineExtras?.(),
      ]);
      let entries = await options.store.readRecent({ minutes });
      if (entries.length === 0) entries = await options.store.readRecent({ count: FALLBACK_LINES });
      return {
        courseName: courseName || header.courseName || '',
        material,
        materialName: material.trim() === '' ? '' : (header.materialName ?? ''),
        historySummary,
        lines: toLines(entries, extras),
        currentPage: options.currentPage?.() ?? null,
      };
    },
    async hasEntries() {
      return (await options.store.readRecent({ count: 1 })).length > 0;
    },
    async writeNotes(courseName, callOptions) {
      const result = await writeNotesFile(
        { ai: options.ai, notes: options.notes, now: options.now },
        {
          document: await options.store.read(),
          courseName,
          material: await options.cite.readCurrent(),
          marks: (await options.marks?.()) ?? [],
          ...(options.lineExtras ? { extras: await options.lineExtras() } : {}),
        },
        callOptions,
      );
      await options.onNotes?.(result);
      return result;
    },
  };
}
