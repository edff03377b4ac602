// One class of the library on disk: `<data>/classes/<class-id>/` with plain files a person can
// read, which are the source of truth (the index is rebuilt from them):
//
//   transcript.txt  every line of the class in the live transcript's format — header lines,
//                   the history-summary block, `[HH:MM:SS] text` lines — never folded, so a
//                   line's id is its position
//   class.json      id, course, material, start and end, line count, alerts with their line
//                   ids, the notes and material files; while the class runs, its last sign of
//                   life (`alive_at`, every 10 s), and the gaps a crashed backend left in it
//                   (`interruptions`)
//   notes.md        notes written for the class (optional)
//   material.txt    the text of the class material as it was during the class (optional)
//   marks.json      the moments the student marked (★): each a line id with its time and text
//                   (optional; rewritten whole, atomically and fsynced, at each mark)
import { randomBytes } from 'node:crypto';
import { open, readFile, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import {
  formatEntryLine,
  formatTranscript,
  parseTranscript,
  type TranscriptDocument,
  type TranscriptEntry,
  writeFileAtomic,
} from '@class-assistant/transcript-core';
import { z } from 'zod';
import { CLASS_FILES } from '../data-folder.ts';
import {
  AlertLevelSchema,
  type ClassMark,
  ClassMarkSchema,
  ClassSourceSchema,
} from '../events/live-events.ts';
import { readContainedText } from '../security/contained-file.ts';

/** `YYYYMMDD-HHMMSS-xxxx`: local start time (so that names sort by it) and 4 random characters. */
const CLASS_ID = /^(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})-[a-z0-9]{4}$/;

/** True for a well-formed class id (also what keeps ids from the API inside the library). */
export function isClassId(value: string): boolean {
  return CLASS_ID.test(value);
}

/**
 * A new class id for a class started at `startedAt` (local time).
 *
 * @example
 * newClassId(new Date(2026, 10, 23, 10, 15, 0)) // '20261123-101500-k3f9'
 */
export function newClassId(startedAt: Date, random: () => string = randomSuffix): string {
  const pad = (value: number) => String(value).padStart(2, '0');
  const date = `${startedAt.getFullYear()}${pad(startedAt.getMonth() + 1)}${pad(startedAt.getDate())}`;
  const time = `${pad(startedAt.getHours())}${pad(startedAt.getMinutes())}${pad(startedAt.getSeconds())}`;
  return `${date}-${time}-${random()}`;
}

function randomSuffix(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  return Array.from(randomBytes(4), (byte) => alphabet[byte % alphabet.length]).join('');
}

/** The local start time an id carries. */
export function classIdTime(id: string): Date | null {
  const match = CLASS_ID.exec(id);
  if (!match) return null;
  const [, year, month, day, hours, minutes, seconds] = match.map(Number);
  return new Date(year!, month! - 1, day!, hours!, minutes!, seconds!);
}

/** An alert raised during a class, with the id of its line. */
export const ClassAlertSchema = z.object({
  line_id: z.number().int().min(1).describe('Id of the line the keywords were heard in.'),
  level: AlertLevelSchema,
  keywords: z.array(z.string()),
  text: z.string(),
  timestamp: z.string().describe('HH:MM:SS'),
});

/** An alert of a class. */
export type ClassAlert = z.infer<typeof ClassAlertSchema>;

/** Reads `marks.json` leniently: a damaged file or entry is left out, never the class. */
function parseMarks(text: string | undefined): ClassMark[] {
  if (text === undefined) return [];
  try {
    const parsed: unknown = JSON.parse(text);
    if (!Array.isArray(parsed)) return [];
    return parsed.flatMap((item) => {
      const mark = ClassMarkSchema.safeParse(item);
      return mark.success ? [mark.data] : [];
    });
  } catch {
    return [];
  }
}

/** Writes `marks.json` atomically and durably: a mark the student was told about is kept. */
export async function writeClassMarks(folder: string, marks: readonly ClassMark[]): Promise<void> {
  await writeFileAtomic(join(folder, CLASS_FILES.marks), `${JSON.stringify(marks, null, 2)}\n`, {
    durable: true,
  });
}

/** A gap in a class: the backend died without stopping it and resumed it when it came back. */
const ClassInterruptionSchema = z.object({
  at: z.string().describe('ISO 8601: when the class resumed.'),
  seconds: z.number().int().min(0).describe('How long nothing was recorded.'),
});

/** `class.json`. Read leniently: a hand-edited file keeps what is valid in it. */
const ClassMetaSchema = z.object({
  id: z.string(),
  course_name: z.string().catch(''),
  material_name: z.string().catch(''),
  started_at: z.string().describe('ISO 8601.'),
  ended_at: z.string().nullable().catch(null).describe('ISO 8601; null while the class runs.'),
  line_count: z.number().int().min(0).catch(0),
  alerts: z.array(ClassAlertSchema).catch([]),
  notes_file: z.string().nullable().catch(null),
  material_file: z.string().nullable().catch(null),
  alive_at: z
    .string()
    .optional()
    .catch(undefined)
    .describe('ISO 8601: the last sign of life of the backend while the class ran.'),
  interruptions: z
    .array(ClassInterruptionSchema)
    .optional()
    .catch(undefined)
    .describe('The gaps left by a backend that died during the class and resumed it.'),
  source: ClassSourceSchema.nullable()
    .optional()
    .catch(undefined)
    .describe(
      'The recording the class was transcribed from: its lines’ times are positions in it. Absent or null: live audio.',
    ),
});

/** The content of `class.json`. */
export type ClassMeta = z.infer<typeof ClassMetaSchema>;

/** A class folder as read from disk. */
export interface ClassFolderContent {
  meta: ClassMeta;
  /** The transcript (entries with their ids, the history summary). */
  transcript: TranscriptDocument;
  notes: string | null;
  material: string | null;
  marks: ClassMark[];
  /** What {@link folderSignature} said before the files were read. */
  signature: string;
}

/**
 * Sizes and modification times of a class folder's files: when it changes, someone (this
 * process or a person with an editor) changed the class and its index rows are rebuilt.
 */
export async function folderSignature(folder: string): Promise<string> {
  const parts: string[] = [];
  // The audio is not indexed: its growing is no change to search.
  for (const name of Object.values(CLASS_FILES).filter((file) => file !== CLASS_FILES.audio)) {
    try {
      const info = await stat(join(folder, name));
      parts.push(`${info.size}:${Math.round(info.mtimeMs)}`);
    } catch {
      parts.push('-');
    }
  }
  return parts.join('|');
}

/**
 * Reads a class folder. A missing or damaged `class.json` is rebuilt in memory from the folder
 * name and the transcript's header, so a class is never lost to a bad edit; `null` when the
 * folder has neither file.
 */
export async function readClassFolder(
  folder: string,
  id: string,
): Promise<ClassFolderContent | null> {
  const signature = await folderSignature(folder);
  // Neither the folder nor its files may be links: one could lead to the settings file. The
  // file is named as `classes/<id>/<name>`.
  const read = (name: string) =>
    readContainedText(dirname(dirname(folder)), [
      basename(dirname(folder)),
      basename(folder),
      name,
    ]);
  const [metaText, transcriptText, notes, marksText] = await Promise.all([
    read(CLASS_FILES.meta),
    read(CLASS_FILES.transcript),
    read(CLASS_FILES.notes),
    read(CLASS_FILES.marks),
  ]);
  if (metaText === undefined && transcriptText === undefined) return null;
  const transcript = parseTranscript(transcriptText ?? '');
  let meta: ClassMeta | null = null;
  if (metaText !== undefined) {
    try {
      const parsed = ClassMetaSchema.safeParse(JSON.parse(metaText));
      if (parsed.success) meta = { ...parsed.data, id };
    } catch {
      // Not JSON: rebuilt below.
    }
  }
  meta ??= metaFromTranscript(id, transcript);
  const materialFile = meta.material_file ?? CLASS_FILES.material;
  const material = isPlainName(materialFile) ? ((await read(materialFile)) ?? null) : null;
  return {
    meta,
    transcript,
    notes: notes ?? null,
    material,
    marks: parseMarks(marksText),
    signature,
  };
}

function isPlainName(name: string): boolean {
  return name !== '' && !/[/\\]/.test(name) && !name.includes('..');
}

/** What class.json would say, from the folder name and the transcript header. */
function metaFromTranscript(id: string, transcript: TranscriptDocument): ClassMeta {
  const header = transcript.header;
  const started = parseHeaderTime(header.startedAt) ?? classIdTime(id) ?? new Date(0);
  return {
    id,
    course_name: header.courseName ?? '',
    material_name: header.materialName ?? '',
    started_at: started.toISOString(),
    ended_at: started.toISOString(),
    line_count: transcript.entries.length,
    alerts: [],
    notes_file: null,
    material_file: null,
  };
}

/** Writes class.json atomically (`durable`: fsynced, for the moments that must survive a crash). */
export async function writeClassMeta(
  folder: string,
  meta: ClassMeta,
  options: { durable: boolean },
): Promise<void> {
  await writeFileAtomic(join(folder, CLASS_FILES.meta), `${JSON.stringify(meta, null, 2)}\n`, {
    durable: options.durable,
  });
}

/** Writes a whole transcript.txt atomically and durably. */
export async function writeClassTranscript(
  folder: string,
  document: Pick<TranscriptDocument, 'headerLines' | 'summary' | 'entries'>,
): Promise<void> {
  await writeFileAtomic(
    join(folder, CLASS_FILES.transcript),
    formatTranscript({
      header: { startedAt: null, courseName: null, materialName: null, foldedCount: 0 },
      ...document,
    }),
  );
}

/**
 * Appends entries to transcript.txt and fdatasyncs it: one write and one sync for the whole
 * batch. The entries must follow the file's last entry (their ids are positions).
 */
export async function appendClassEntries(
  folder: string,
  entries: readonly TranscriptEntry[],
): Promise<void> {
  if (entries.length === 0) return;
  const handle = await open(join(folder, CLASS_FILES.transcript), 'a');
  try {
    await handle.write(entries.map((entry) => `${formatEntryLine(entry)}\n`).join(''));
    await handle.datasync();
  } finally {
    await handle.close();
  }
}

/**
 * The class's entries after taking in `incoming` (entries of the live transcript, by id): newer
 * ids are added, and the last known entry takes the newer text of the same id (the recognizer
 * extended it). Pure: returns what to append and whether the last entry changed.
 */
export function mergeEntries(
  known: readonly TranscriptEntry[],
  incoming: readonly TranscriptEntry[],
): { entries: TranscriptEntry[]; appended: TranscriptEntry[]; replacedLast: boolean } {
  const entries = [...known];
  const appended: TranscriptEntry[] = [];
  let replacedLast = false;
  for (const entry of incoming) {
    const last = entries[entries.length - 1];
    const lastId = last?.id ?? 0;
    if (entry.id > lastId) {
      // Ids are positions: renumber so a gap (a hand edit of the live file) cannot break them.
      const added = { ...entry, id: lastId + 1 };
      entries.push(added);
      appended.push(added);
    } else if (last && entry.id === lastId && entry.text !== last.text) {
      entries[entries.length - 1] = { ...last, text: entry.text };
      replacedLast = true;
    }
  }
  return { entries, appended, replacedLast };
}

/**
 * fsyncs a folder so that a file or folder just created in it survives a crash. Windows cannot
 * open a folder for fsync; there creating and renaming are durable enough and this does nothing.
 */
export async function syncFolder(folder: string): Promise<void> {
  if (process.platform === 'win32') return;
  const handle = await open(folder, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** The local time of a transcript header's `YYYY-MM-DD HH:MM:SS`, or null. */
export function parseHeaderTime(value: string | null): Date | null {
  const match = value ? /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/.exec(value) : null;
  if (!match) return null;
  const [, year, month, day, hours, minutes, seconds] = match.map(Number);
  return new Date(year!, month! - 1, day!, hours!, minutes!, seconds!);
}

/** Reads a class folder's transcript (an empty document when missing). */
export async function readClassTranscript(folder: string): Promise<TranscriptDocument> {
  return parseTranscript(
    (await readFile(join(folder, CLASS_FILES.transcript), 'utf8').catch(() => '')) as string,
  );
}
