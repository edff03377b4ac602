// The class library: every class kept in its own folder (class-folder.ts), indexed for search
// across a term (library-index.ts), exported and annotated with notes.
//
// How each line of a class reaches its folder. The live transcript (data/class_transcript.txt)
// stays the durable record of a running class: every acknowledged line is fsynced there first.
// History folding removes old lines from that file, so before a fold the library appends the
// lines about to be folded to the class's transcript.txt (one write and one fsync per fold, not
// per line); at the end of the class it adds the rest and the history summary.
//
// After a crash (no clean stop: class.json has no end time) the next start finds the class from
// the live file's header. If the backend was alive within the last 30 minutes (RESUME_WINDOW_MS:
// class.json's `alive_at`, written every 10 s while the class runs, or the newest line) the class
// is offered for resuming (`interrupted()`): the monitor goes on with the same class, folder and
// live file. Otherwise, or when resuming fails, it is finished from its folder plus the live
// file, ended at its last sign of life. Either way a kill -9 loses no acknowledged line.
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import {
  formatTranscript,
  type TranscriptDocument,
  type TranscriptEntry,
  type TranscriptStore,
  writeFileAtomic,
} from '@class-assistant/transcript-core';
import { CLASS_FILES, DATA_FOLDER, dataPaths } from '../data-folder.ts';
import { isServerError, ServerError } from '../errors.ts';
import type { ClassMark, KeywordAlertPayload, LineExtras } from '../events/live-events.ts';
import { createSerialQueue } from '../files.ts';
import { localized } from '../language.ts';
import type { ClassHooks } from '../monitor/monitor.ts';
import { readContainedText } from '../security/contained-file.ts';
import { classAudioBytes, createAudioSizes } from './audio-sizes.ts';
import { type OpenedClassAudio, openClassAudio } from './class-audio.ts';
import { documentsOf } from './class-documents.ts';
import {
  appendClassEntries,
  type ClassAlert,
  type ClassFolderContent,
  type ClassMeta,
  folderSignature,
  isClassId,
  mergeEntries,
  newClassId,
  parseHeaderTime,
  readClassFolder,
  readClassTranscript,
  syncFolder,
  writeClassMarks,
  writeClassMeta,
  writeClassTranscript,
} from './class-folder.ts';
import { type ExportedFile, type ExportFormat, exportClass } from './export-class.ts';
import { importEarlierVersion } from './legacy-import.ts';
import {
  type ClassRow,
  isDamagedDatabaseError,
  LibraryIndex,
  type SearchHit,
} from './library-index.ts';
import { type LineExtrasLog, NO_EXTRAS, openLineExtrasLog, readLineExtras } from './line-extras.ts';
import { parseQuery } from './search-terms.ts';

/** A class whose backend died is resumed when it was alive this recently (30 minutes). */
export const RESUME_WINDOW_MS = 30 * 60_000;

/** How often a running class writes its sign of life (`alive_at` in class.json). */
const ALIVE_INTERVAL_MS = 10_000;

/** A class the previous run of the backend left running (it died), recent enough to resume. */
interface InterruptedClass {
  id: string;
  courseName: string;
  /** The material file the class was started with ('' for none). */
  materialName: string;
  /** When the class started (class.json's `started_at`). */
  startedAt: Date;
  /** The last sign of life of the backend that ran it. */
  lastAliveAt: Date;
}

/** Where log lines of the library go (pino's signature). */
export interface LibraryLogger {
  info(object: object, message?: string): void;
  warn(object: object, message?: string): void;
  error(object: object, message?: string): void;
}

/** How a class changed, for the `library.changed` live event. */
export type LibraryChange = 'added' | 'updated' | 'deleted';

/** Options of {@link openLibrary}. */
export interface LibraryOptions {
  /** The data folder: classes/ and library.db are made in it. */
  dataDir: string;
  /** The live transcript (data/class_transcript.txt). */
  store: TranscriptStore;
  logger: LibraryLogger;
  /** The clock (default: the system clock). */
  now?: () => Date;
  /** Told about every added, updated or deleted class. */
  onChange?: (classId: string, change: LibraryChange) => void;
  /**
   * Milliseconds between looks at the class folders for hand edits (default 60 000; 0: only at
   * start and when a class is opened).
   */
  rescanMs?: number;
  /** Milliseconds between the running class's signs of life (default {@link ALIVE_INTERVAL_MS}). */
  aliveIntervalMs?: number;
}

/** A class as the library lists it. */
export interface ClassSummary extends ClassRow {
  /** True while this class is being monitored. */
  live: boolean;
  /** Bytes of the class's kept audio; null when it kept none. */
  audio_bytes: number | null;
}

/** One class with its lines. */
export interface ClassDetail {
  summary: ClassSummary;
  lines: TranscriptEntry[];
  alerts: ClassAlert[];
  historySummary: string;
  notes: string | null;
  material: string | null;
  marks: ClassMark[];
  /** Each line's page, translation and audio position, by line id (lines without none absent). */
  extras: ReadonlyMap<number, LineExtras>;
}

/** How far the index is while it indexes class folders (null when it is up to date). */
export interface IndexingProgress {
  indexed: number;
  total: number;
}

/** The class library. Its {@link ClassHooks} are given to the monitor. */
export interface Library extends ClassHooks {
  readonly classesDir: string;
  /** Classes newest first. */
  list(options: { offset: number; limit: number; course?: string }): {
    total: number;
    items: ClassSummary[];
    indexing: IndexingProgress | null;
    /** Bytes of every class's kept audio. */
    audio_bytes_total: number;
  };
  /** One class; 400 `CLASS_ID_INVALID`, 404 `CLASS_NOT_FOUND`. */
  get(id: string): Promise<ClassDetail>;
  /** Full-text search; 400 `SEARCH_QUERY_INVALID` for a query without letters or digits. */
  search(
    query: string,
    options: { course?: string; limit: number },
  ): { hits: SearchHit[]; indexing: IndexingProgress | null };
  /**
   * The material page of each hit of kind `line` (its line's page, as kept in its class's
   * lines.jsonl); null for other hits and lines without a page.
   */
  hitPages(hits: readonly SearchHit[]): Promise<Array<number | null>>;
  /** A class as a file to download. */
  export(id: string, format: ExportFormat): Promise<ExportedFile>;
  /**
   * A class's kept audio, open for reading (the caller closes it); 400 `CLASS_ID_INVALID`, 404
   * `CLASS_NOT_FOUND`, 404 `CLASS_AUDIO_NOT_FOUND`.
   */
  openAudio(id: string): Promise<OpenedClassAudio>;
  /** Stores notes with a class (notes.md) and indexes them. */
  saveNotes(id: string, notes: string): Promise<void>;
  /** Stores notes written from the live transcript with the class it holds. */
  saveLiveNotes(notes: string): Promise<void>;
  /**
   * Marks a moment of the running class: the line `lineId`, or the newest line. 409
   * `CLASS_NOT_RUNNING` without a running class, 409 `MARK_NO_LINE` before its first line, 400
   * `MARK_LINE_INVALID` for a line the class does not have. Marking a line again replaces its
   * mark.
   */
  mark(input: { lineId?: number; note?: string }): Promise<{ classId: string; mark: ClassMark }>;
  /** The marks of the class the live transcript holds (running or just ended), for its notes. */
  liveMarks(): Promise<ClassMark[]>;
  /** Deletes a class's folder and index rows; 409 `CLASS_RUNNING` for the running class. */
  remove(id: string): Promise<void>;
  /** Looks at every class folder again and indexes what changed. */
  rescan(): Promise<void>;
  /**
   * The class the previous run left running when it died, alive within {@link RESUME_WINDOW_MS}:
   * the monitor resumes it (`classContinued`), or {@link keepInterrupted} finishes it.
   */
  interrupted(): InterruptedClass | null;
  /** The class whose lines the live transcript holds (running or the latest), if known. */
  liveClassId(): string | null;
  /** The line extras of the class whose lines the live transcript holds (for /api/transcript). */
  liveLineExtras(): Promise<ReadonlyMap<number, LineExtras>>;
  /**
   * Changes the extras of a line of class `classId` while its lines are still the live
   * transcript's: the running class, or the one that just ended (what was under way at its end
   * finishes into its folder, and the class is indexed again). Nothing for any other class.
   */
  setClassLineExtras(classId: string, lineId: number, patch: Partial<LineExtras>): void;
  /** Resolves when the index has caught up with the class folders found at start. */
  ready(): Promise<void>;
  close(): Promise<void>;
}

interface RunningClass {
  id: string;
  folder: string;
  meta: ClassMeta;
  /** The newest entry in the folder's transcript.txt (null before the first fold). */
  lastEntry: TranscriptEntry | null;
  /** The save of class.json that will take in the alerts raised since the last one. */
  alertSave: NodeJS.Timeout | null;
  /** When class.json was last saved for alerts (performance.now() ms). */
  alertSavedAt: number;
  /** The moments marked so far (what marks.json holds). */
  marks: ClassMark[];
  /** Each line's page, translation and audio position (what lines.jsonl holds). */
  extras: LineExtrasLog;
}

const PROGRESS_LOG_MS = 5000;
/** Changes to an ended class's lines within this time are indexed together. */
const LATE_INDEX_MS = 300;
/**
 * class.json holds every alert of the class, so saving it costs time in proportion to the
 * alerts so far: it is saved for alerts at most this often. An alert after a quiet second is
 * saved at once; the alerts of a burst together, within this time.
 */
const ALERT_SAVE_INTERVAL_MS = 1000;
const DELETING_PREFIX = '.deleting-';

/**
 * Opens the library of a data folder: imports an earlier version's transcript and notes the
 * first time, finishes a class that a crash interrupted, opens (or rebuilds) the index and
 * brings it up to date with the class folders in the background.
 *
 * @example
 * const library = await openLibrary({ dataDir, store, logger });
 * const { hits } = library.search('矩阵 rank', { limit: 20 });
 */
export async function openLibrary(options: LibraryOptions): Promise<Library> {
  const now = options.now ?? (() => new Date());
  const { logger, store } = options;
  const { classes: classesDir, libraryIndex: indexPath } = dataPaths(options.dataDir);
  const folderOf = (id: string) => join(classesDir, id);
  const audioSizes = createAudioSizes(classesDir);
  const changed = (id: string, change: LibraryChange) => options.onChange?.(id, change);
  // Folder writes, one at a time; index writes, one at a time (a long re-index never delays
  // the folder work a running class waits for).
  const folders = createSerialQueue();
  const indexWork = createSerialQueue();

  await importEarlierVersion({ dataDir: options.dataDir, classesDir, logger });

  let index: LibraryIndex;
  const openIndex = (fresh = false) => {
    const opened = LibraryIndex.open(indexPath, { fresh });
    if (opened.reset === 'missing') {
      logger.info({ path: indexPath }, 'library index created; indexing the class folders');
    } else if (opened.reset) {
      logger.warn(
        { path: indexPath, reason: opened.reset },
        `library index ${opened.reset === 'damaged' ? 'damaged' : 'from an older version'}: rebuilding it from the class folders`,
      );
    }
    index = opened.index;
  };
  openIndex();

  let running: RunningClass | null = null;
  /** A class a crash interrupted, waiting to be resumed (never finished by a scan meanwhile). */
  let interrupted: (InterruptedClass & { meta: ClassMeta }) | null = null;
  /** Not ended and not to be finished by a scan: the running class or the one to resume. */
  const isOpen = (id: string) => running?.id === id || interrupted?.id === id;
  const aliveIntervalMs = options.aliveIntervalMs ?? ALIVE_INTERVAL_MS;
  let aliveTimer: ReturnType<typeof setInterval> | undefined;
  /** Writes the running class's sign of life now and every {@link aliveIntervalMs}. */
  const keepAlive = (current: RunningClass) => {
    clearInterval(aliveTimer);
    aliveTimer = setInterval(() => {
      if (running !== current) return;
      current.meta.alive_at = now().toISOString();
      // Not fsynced: a kill -9 keeps it (the page cache survives the process).
      void folders(async () => {
        if (running === current) {
          await writeClassMeta(current.folder, current.meta, { durable: false });
        }
      }).catch((error: unknown) =>
        logger.warn({ err: error, classId: current.id }, 'library: could not note the class alive'),
      );
    }, aliveIntervalMs);
    aliveTimer.unref();
  };
  /** The class whose transcript the live file holds (it stays there after the class ends). */
  let liveFileId: string | null = null;
  /** The line extras of the class `liveFileId` names, once opened (running or just ended). */
  let liveExtras: { id: string; log: LineExtrasLog } | null = null;
  const openExtras = (id: string, folder: string) =>
    openLineExtrasLog(folder, (error) =>
      logger.error(
        { err: error, classId: id },
        'library: could not keep a line’s page/translation/audio position',
      ),
    );
  /** The re-index of an ended class whose lines changed after its end (see setClassLineExtras). */
  let lateIndex: NodeJS.Timeout | undefined;
  let progress: IndexingProgress | null = null;
  let closed = false;
  let rebuilding: Promise<void> | null = null;

  const summaryOf = (row: ClassRow): ClassSummary => {
    const live = running?.id === row.id;
    return {
      ...row,
      live,
      ...(live ? { line_count: store.lastId } : {}),
      audio_bytes: audioSizes.get(row.id),
    };
  };

  const rowOf = (content: ClassFolderContent, lineCount: number): ClassRow => ({
    id: content.meta.id,
    course_name: content.meta.course_name,
    material_name: content.meta.material_name,
    started_at: content.meta.started_at,
    ended_at: content.meta.ended_at,
    line_count: lineCount,
    alert_count: content.meta.alerts.length,
    has_notes: content.notes !== null,
    source: content.meta.source ?? null,
  });

  /** Runs an index read; a damaged file is rebuilt and the caller told to try again. */
  const guard = <T>(read: () => T): T => {
    try {
      return read();
    } catch (error) {
      if (!isDamagedDatabaseError(error)) throw error;
      logger.error({ err: error }, 'library index damaged: rebuilding it from the class folders');
      void rebuild();
      throw new ServerError(
        'LIBRARY_UNAVAILABLE',
        localized(
          '课程库的索引损坏了，正在根据课堂文件夹重建：请稍后再试。',
          'The library index was damaged and is being rebuilt from the class folders: try again in a moment.',
        ),
      );
    }
  };

  const rebuild = () => {
    rebuilding ??= indexWork(async () => {
      index.close();
      openIndex(true);
    })
      // A scan under way compared the folders with the old file: scan again after it.
      .then(() => scanning?.catch(() => undefined))
      .then(() => scan())
      .finally(() => {
        rebuilding = null;
      });
    return rebuilding;
  };

  /**
   * Finishes a class: the entries of the live transcript that the folder lacks (when `live` is
   * this class's live file) and its history summary go to transcript.txt; class.json gets the
   * end time and the line count. Then the class is indexed.
   */
  const finish = async (
    id: string,
    live: TranscriptDocument | null,
    meta: ClassMeta,
    endedAt: Date,
  ): Promise<void> => {
    const folder = folderOf(id);
    const log = await readClassTranscript(folder);
    const merged = live
      ? mergeEntries(log.entries, live.entries)
      : { entries: log.entries, appended: [], replacedLast: false };
    const summary = live && live.summary !== '' ? live.summary : log.summary;
    if (merged.appended.length > 0 || merged.replacedLast || summary !== log.summary) {
      await writeClassTranscript(folder, {
        headerLines: log.headerLines,
        summary,
        entries: merged.entries,
      });
    }
    const ended = { ...meta, ended_at: endedAt.toISOString(), line_count: merged.entries.length };
    await writeClassMeta(folder, ended, { durable: true });
    // The list shows the class as ended at once; its texts are indexed just after.
    try {
      index.updateClassRow({
        id,
        course_name: ended.course_name,
        material_name: ended.material_name,
        started_at: ended.started_at,
        ended_at: ended.ended_at,
        line_count: ended.line_count,
        alert_count: ended.alerts.length,
        has_notes: ended.notes_file !== null,
        source: ended.source ?? null,
      });
    } catch (error) {
      logger.error({ err: error, classId: id }, 'library: could not list the ended class');
    }
    changed(id, 'updated');
    void indexWork(() => reindex(id));
  };

  /**
   * Indexes one class folder (or drops it from the index when the folder is gone). Announces
   * nothing: a scan may catch up with a whole term at once; the callers that change a class
   * announce it.
   */
  const reindex = async (id: string): Promise<void> => {
    if (closed) return;
    const folder = folderOf(id);
    let content = await readClassFolder(folder, id);
    if (!content) {
      index.removeClass(id);
      return;
    }
    if (content.meta.ended_at === null && !isOpen(id)) {
      // A class a crash interrupted whose live file is gone: finished with what its folder has.
      const info = await stat(join(folder, CLASS_FILES.transcript)).catch(() => null);
      const meta = content.meta;
      // Checked again in the queue: a class starting right now looks the same until it runs.
      await folders(async () => {
        if (!isOpen(id)) await finish(id, null, meta, lastSignOfLife(meta, info?.mtime) ?? now());
      });
      content = await readClassFolder(folder, id);
      if (!content) return;
    }
    if (isOpen(id)) {
      index.updateClassRow(rowOf(content, 0));
      return;
    }
    await index.replaceClass(
      rowOf(content, content.transcript.entries.length),
      documentsOf(content, await readLineExtras(folder)),
      content.signature,
    );
  };

  /** Brings the index up to date with the class folders, newest classes first (one at a time). */
  let scanning: Promise<void> | null = null;
  const scan = (): Promise<void> => {
    scanning ??= Promise.all([catchUp(), audioSizes.refresh()])
      .then(() => undefined)
      .finally(() => {
        scanning = null;
      });
    return scanning;
  };
  const catchUp = async (): Promise<void> => {
    const names = await classFolderNames();
    const known = guard(() => index.signatures());
    for (const id of known.keys()) {
      if (!names.includes(id)) await indexWork(async () => index.removeClass(id));
    }
    const stale: string[] = [];
    for (const id of names) {
      if (isOpen(id)) continue;
      if (known.get(id) !== (await folderSignature(folderOf(id)))) stale.push(id);
    }
    if (stale.length === 0 || closed) return;
    const began = performance.now();
    let lastLog = began;
    progress = { indexed: 0, total: stale.length };
    logger.info({ classes: stale.length }, `library: indexing ${stale.length} class folder(s)`);
    try {
      for (const id of stale) {
        if (closed) return;
        await indexWork(() => reindex(id)).catch((error: unknown) =>
          logger.error({ err: error, classId: id }, `library: could not index class ${id}`),
        );
        progress = { indexed: progress.indexed + 1, total: stale.length };
        if (performance.now() - lastLog > PROGRESS_LOG_MS) {
          lastLog = performance.now();
          logger.info(progress, `library: indexed ${progress.indexed} of ${stale.length} classes`);
        }
      }
      logger.info(
        { classes: stale.length, seconds: Math.round((performance.now() - began) / 100) / 10 },
        `library: index up to date (${stale.length} class folder(s) indexed)`,
      );
    } finally {
      progress = null;
    }
  };

  const classFolderNames = async (): Promise<string[]> => {
    let names: string[];
    try {
      names = await readdir(classesDir);
    } catch {
      return [];
    }
    for (const name of names.filter((entry) => entry.startsWith(DELETING_PREFIX))) {
      await rm(join(classesDir, name), { recursive: true, force: true });
    }
    return names.filter(isClassId).sort().reverse();
  };

  /**
   * At start: the class the live file holds. If a crash interrupted it, it waits to be resumed
   * when its backend was alive within {@link RESUME_WINDOW_MS}, else it is finished here.
   */
  const recoverLiveClass = async () => {
    const live = await store.read();
    const started = live.header.startedAt;
    const startedAt = parseHeaderTime(started);
    if (!startedAt) return;
    const prefix = newClassId(startedAt, () => '');
    const names = (await classFolderNames()).filter((name) => name.startsWith(prefix));
    for (const id of names) {
      const content = await readClassFolder(folderOf(id), id).catch((error: unknown) => {
        // A link placed in a class folder is refused when the class is read; it must not keep
        // the backend from starting.
        if (!isServerError(error) || error.code !== 'FILE_LINK_REFUSED') throw error;
        logger.warn({ classId: id, err: error }, `library: ${error.message}`);
        return null;
      });
      const header = content?.transcript.header;
      if (!content || header?.startedAt !== started) continue;
      if ((header.courseName ?? '') !== (live.header.courseName ?? '')) continue;
      liveFileId = id;
      if (content.meta.ended_at === null) {
        const info = await stat(store.path).catch(() => null);
        const lastAliveAt = lastSignOfLife(content.meta, info?.mtime) ?? now();
        const startedAt = new Date(content.meta.started_at);
        if (now().getTime() - lastAliveAt.getTime() <= RESUME_WINDOW_MS) {
          logger.warn(
            { classId: id, lines: live.entries.length, lastAliveAt: lastAliveAt.toISOString() },
            `library: class ${id} was interrupted; it will be resumed`,
          );
          interrupted = {
            id,
            courseName: content.meta.course_name,
            materialName: content.meta.material_name,
            startedAt: Number.isNaN(startedAt.getTime()) ? lastAliveAt : startedAt,
            lastAliveAt,
            meta: content.meta,
          };
          return;
        }
        logger.warn(
          { classId: id, lines: live.entries.length, lastAliveAt: lastAliveAt.toISOString() },
          `library: class ${id} was interrupted too long ago to resume; keeping it with every line of the live transcript`,
        );
        await folders(() => finish(id, live, content.meta, lastAliveAt));
      }
      return;
    }
  };

  await recoverLiveClass();
  const firstScan = scan().catch((error: unknown) =>
    logger.error({ err: error }, 'library: indexing the class folders failed'),
  );
  const rescanMs = options.rescanMs ?? 60_000;
  const timer =
    rescanMs > 0
      ? setInterval(() => {
          if (rebuilding === null) void scan().catch(() => undefined);
        }, rescanMs)
      : undefined;
  timer?.unref();

  const existingFolder = async (id: string): Promise<string> => {
    if (!isClassId(id)) {
      throw new ServerError(
        'CLASS_ID_INVALID',
        localized(
          `"${id}" 不是课堂编号（编号形如 20261123-101500-k3f9，见 GET /api/classes）。`,
          `"${id}" is not a class id (ids look like 20261123-101500-k3f9; see GET /api/classes).`,
        ),
        { field: 'id' },
      );
    }
    const folder = folderOf(id);
    const info = await stat(folder).catch(() => null);
    if (!info?.isDirectory()) {
      throw new ServerError('CLASS_NOT_FOUND', notFound(id), {
        field: 'id',
      });
    }
    return folder;
  };

  /** A class folder read for the API; the running class with the lines of the live file. */
  const readForApi = async (id: string) => {
    const folder = await existingFolder(id);
    const content = await readClassFolder(folder, id);
    if (!content) {
      throw new ServerError('CLASS_NOT_FOUND', notFound(id), {
        field: 'id',
      });
    }
    if (running?.id === id) {
      const live = await store.read();
      content.transcript = {
        ...content.transcript,
        summary: live.summary,
        entries: mergeEntries(content.transcript.entries, live.entries).entries,
      };
      return { content, running: true };
    }
    // Opened after a hand edit: index it again now rather than at the next scan.
    if (guard(() => index.signatures().get(id)) !== content.signature) {
      void indexWork(() => reindex(id)).catch(() => undefined);
    }
    return { content, running: false };
  };

  const saveNotes = (id: string, notes: string) =>
    folders(async () => {
      const folder = await existingFolder(id);
      const content = await readClassFolder(folder, id);
      if (!content) return;
      await writeFileAtomic(
        join(folder, CLASS_FILES.notes),
        notes.endsWith('\n') ? notes : `${notes}\n`,
      );
      const meta = running?.id === id ? running.meta : content.meta;
      meta.notes_file = CLASS_FILES.notes;
      await writeClassMeta(folder, meta, { durable: true });
      if (running?.id !== id) void indexWork(() => reindex(id));
      changed(id, 'updated');
    });

  return {
    classesDir,

    // ------------------------------------------------------------ the monitor's hooks
    classStarted: (info) =>
      folders(async () => {
        const document = await store.read();
        // The id carries the header's start time (how the live file is matched to its class
        // after a crash); started_at the precise moment (classes started within a second sort),
        // the monitor's, so that a resumed class reports the same start.
        const headerTime = parseHeaderTime(document.header.startedAt) ?? now();
        const { startedAt } = info;
        await mkdir(classesDir, { recursive: true });
        let id = newClassId(headerTime);
        while (!(await makeFolder(folderOf(id)))) id = newClassId(headerTime);
        const folder = folderOf(id);
        if (info.materialText !== '') {
          await writeFileAtomic(join(folder, CLASS_FILES.material), info.materialText);
        }
        await writeClassTranscript(folder, {
          headerLines: document.headerLines,
          summary: '',
          entries: [],
        });
        const meta: ClassMeta = {
          id,
          course_name: info.courseName,
          material_name: info.materialName,
          started_at: startedAt.toISOString(),
          ended_at: null,
          line_count: 0,
          alerts: [],
          notes_file: null,
          material_file: info.materialText !== '' ? CLASS_FILES.material : null,
          alive_at: startedAt.toISOString(),
          interruptions: [],
          ...(info.source ? { source: info.source } : {}),
        };
        await writeClassMeta(folder, meta, { durable: true });
        await syncFolder(classesDir);
        running = {
          id,
          folder,
          meta,
          lastEntry: null,
          alertSave: null,
          alertSavedAt: -Infinity,
          marks: [],
          extras: await openExtras(id, folder),
        };
        liveExtras = { id: running.id, log: running.extras };
        liveFileId = id;
        // A class started anew leaves the interrupted one (if any) to be finished by a scan.
        interrupted = null;
        keepAlive(running);
        await indexWork(async () =>
          index.replaceClass(
            {
              id,
              course_name: meta.course_name,
              material_name: meta.material_name,
              started_at: meta.started_at,
              ended_at: null,
              line_count: 0,
              alert_count: 0,
              has_notes: false,
              source: meta.source ?? null,
            },
            [],
            '',
          ),
        ).catch((error: unknown) =>
          logger.error({ err: error, classId: id }, 'library: could not index the new class'),
        );
        changed(id, 'added');
      }),

    classContinued: (gap) =>
      folders(async () => {
        const waiting = interrupted;
        if (!waiting) return;
        const folder = folderOf(waiting.id);
        const log = await readClassTranscript(folder);
        const marks = (await readClassFolder(folder, waiting.id))?.marks ?? [];
        const meta: ClassMeta = {
          ...waiting.meta,
          alive_at: gap.at.toISOString(),
          interruptions: [
            ...(waiting.meta.interruptions ?? []),
            { at: gap.at.toISOString(), seconds: gap.seconds },
          ],
        };
        await writeClassMeta(folder, meta, { durable: true });
        interrupted = null;
        running = {
          id: waiting.id,
          folder,
          meta,
          lastEntry: log.entries.at(-1) ?? null,
          alertSave: null,
          alertSavedAt: -Infinity,
          marks,
          extras: await openExtras(waiting.id, folder),
        };
        liveExtras = { id: running.id, log: running.extras };
        liveFileId = waiting.id;
        keepAlive(running);
        changed(waiting.id, 'updated');
      }),

    classReopened: (id) =>
      folders(async () => {
        if (running) throw new ServerError('CLASS_RUNNING', 'A class is running.');
        if (liveFileId !== id) {
          throw new ServerError(
            'IMPORT_NOT_RESUMABLE',
            localized(
              `课堂 ${id} 的记录已被之后的课堂替换，不能接着识别了。`,
              `Class ${id} can no longer go on: a later class has replaced its live transcript.`,
            ),
          );
        }
        if (interrupted?.id === id) interrupted = null;
        const folder = await existingFolder(id);
        const content = await readClassFolder(folder, id);
        if (!content) throw new ServerError('CLASS_NOT_FOUND', notFound(id));
        const log = await readClassTranscript(folder);
        const meta: ClassMeta = { ...content.meta, ended_at: null, alive_at: now().toISOString() };
        await writeClassMeta(folder, meta, { durable: true });
        running = {
          id,
          folder,
          meta,
          lastEntry: log.entries.at(-1) ?? null,
          alertSave: null,
          alertSavedAt: -Infinity,
          marks: content.marks,
          extras: await openExtras(id, folder),
        };
        liveExtras = { id: running.id, log: running.extras };
        keepAlive(running);
        try {
          index.updateClassRow({
            id,
            course_name: meta.course_name,
            material_name: meta.material_name,
            started_at: meta.started_at,
            ended_at: null,
            line_count: meta.line_count,
            alert_count: meta.alerts.length,
            has_notes: meta.notes_file !== null,
            source: meta.source ?? null,
          });
        } catch (error) {
          logger.error({ err: error, classId: id }, 'library: could not list the class going on');
        }
        changed(id, 'updated');
      }),

    beforeFold: (entries) =>
      folders(async () => {
        const current = running;
        if (!current) return;
        const merged = mergeEntries(current.lastEntry ? [current.lastEntry] : [], entries);
        if (merged.replacedLast) {
          // The recognizer extended a line after it was saved (rare): rewrite the file.
          const log = await readClassTranscript(current.folder);
          const all = mergeEntries(log.entries, entries).entries;
          await writeClassTranscript(current.folder, {
            headerLines: log.headerLines,
            summary: log.summary,
            entries: all,
          });
          current.lastEntry = all.at(-1) ?? null;
          return;
        }
        await appendClassEntries(current.folder, merged.appended);
        current.lastEntry = merged.entries.at(-1) ?? current.lastEntry;
      }),

    alertRaised(alert: KeywordAlertPayload, lineId: number) {
      const current = running;
      if (!current) return;
      current.meta.alerts.push({
        line_id: lineId,
        level: alert.level,
        keywords: alert.keywords,
        text: alert.text,
        timestamp: alert.timestamp,
      });
      // A save already waiting takes this alert in too.
      if (current.alertSave) return;
      const wait = Math.max(0, current.alertSavedAt + ALERT_SAVE_INTERVAL_MS - performance.now());
      current.alertSave = setTimeout(() => {
        current.alertSave = null;
        current.alertSavedAt = performance.now();
        if (running !== current) return;
        // Not fsynced: survives the process being killed; the end of the class syncs it.
        void folders(() => writeClassMeta(current.folder, current.meta, { durable: false })).catch(
          (error: unknown) =>
            logger.error({ err: error, classId: current.id }, 'library: could not save an alert'),
        );
      }, wait);
      current.alertSave.unref();
    },

    classEnded: (info) =>
      folders(async () => {
        const current = running;
        if (!current) return;
        running = null;
        // A recording whose length was unknown at the start knows it now.
        if (current.meta.source && info?.source) current.meta.source = info.source;
        clearInterval(aliveTimer);
        // finish() saves class.json with every alert.
        if (current.alertSave) clearTimeout(current.alertSave);
        current.alertSave = null;
        await current.extras.flush();
        await finish(current.id, await store.read(), current.meta, now());
      }),

    // ------------------------------------------------------------ the API
    list(query) {
      const { total, items } = guard(() => index.listClasses(query));
      return {
        total,
        items: items.map(summaryOf),
        indexing: progress,
        audio_bytes_total: audioSizes.total(),
      };
    },

    async get(id) {
      const { content, running: isRunning } = await readForApi(id);
      const extras =
        running?.id === id ? running.extras.all() : await readLineExtras(await existingFolder(id));
      const lineCount = content.transcript.entries.length;
      const row = rowOf(content, lineCount);
      const audioBytes = await classAudioBytes(await existingFolder(id));
      return {
        summary: { ...row, live: isRunning, audio_bytes: audioBytes },
        lines: content.transcript.entries,
        alerts: content.meta.alerts,
        historySummary: content.transcript.summary,
        notes: content.notes,
        material: content.material,
        marks: content.marks,
        extras,
      };
    },

    mark: (input) =>
      folders(async () => {
        const current = running;
        if (!current) {
          throw new ServerError(
            'CLASS_NOT_RUNNING',
            localized(
              '现在没有在上的课：开始上课后才能标记此刻。',
              'No class is running: start a class to mark a moment of it.',
            ),
          );
        }
        const [log, live] = await Promise.all([readClassTranscript(current.folder), store.read()]);
        const entries = mergeEntries(log.entries, live.entries).entries;
        const line =
          input.lineId === undefined
            ? entries.at(-1)
            : entries.find((entry) => entry.id === input.lineId);
        if (!line && input.lineId === undefined) {
          throw new ServerError(
            'MARK_NO_LINE',
            localized(
              '这节课还没有字幕：等第一句出现后再标记。',
              'The class has no line yet: mark a moment once the first line is shown.',
            ),
          );
        }
        if (!line) {
          throw new ServerError(
            'MARK_LINE_INVALID',
            localized(
              `这节课没有第 ${input.lineId} 行（现在有 ${entries.length} 行）。`,
              `The class has no line ${input.lineId} (it has ${entries.length} lines).`,
            ),
            { field: 'line_id' },
          );
        }
        const mark: ClassMark = {
          line_id: line.id,
          timestamp: line.time ?? '',
          text: line.text,
          note: input.note?.trim() ?? '',
          marked_at: now().toISOString(),
        };
        const marks = [...current.marks.filter((item) => item.line_id !== line.id), mark];
        await writeClassMarks(current.folder, marks);
        current.marks = marks;
        return { classId: current.id, mark };
      }),

    async liveMarks() {
      const id = liveFileId;
      if (!id) return [];
      const content = await readClassFolder(folderOf(id), id).catch(() => null);
      return content?.marks ?? [];
    },

    search(query, searchOptions) {
      const parts = parseQuery(query);
      if (parts.length === 0) {
        throw new ServerError(
          'SEARCH_QUERY_INVALID',
          localized(
            `搜索“${query}”里没有可以查找的文字或数字。`,
            `The search "${query}" has no letters or digits to look for.`,
          ),
          { field: 'q' },
        );
      }
      return {
        hits: guard(() => index.search(parts, searchOptions)),
        indexing: progress,
      };
    },

    async hitPages(hits) {
      // Each class's extras read once (the running class's from memory).
      const byClass = new Map<string, Promise<ReadonlyMap<number, LineExtras>>>();
      const extrasOf = (id: string) => {
        let extras = byClass.get(id);
        if (!extras) {
          extras =
            running?.id === id
              ? Promise.resolve(running.extras.all())
              : readLineExtras(folderOf(id)).catch(() => new Map<number, LineExtras>());
          byClass.set(id, extras);
        }
        return extras;
      };
      return Promise.all(
        hits.map(async (hit) =>
          hit.kind === 'line' && hit.line_id !== undefined
            ? ((await extrasOf(hit.class_id)).get(hit.line_id)?.page ?? null)
            : null,
        ),
      );
    },

    async export(id, format) {
      const { content, running: isRunning } = await readForApi(id);
      if (format === 'zip') {
        const folder = await existingFolder(id);
        const audio = await openClassAudio(options.dataDir, id).then(
          async ({ handle }) => {
            try {
              return new Uint8Array(await handle.readFile());
            } finally {
              await handle.close();
            }
          },
          () => null,
        );
        // jszip is loaded by the first zip export, not at start.
        const { exportZip } = await import('./export-zip.ts');
        return exportZip(
          {
            meta: { ...content.meta, line_count: content.transcript.entries.length },
            transcript: content.transcript,
            transcriptText: '',
            notes: content.notes,
          },
          audio && (await classAudioBytes(folder)) !== null ? audio : null,
        );
      }
      const transcriptText = isRunning
        ? formatTranscript(content.transcript)
        : ((await readContainedText(options.dataDir, [
            DATA_FOLDER.classes.name,
            id,
            CLASS_FILES.transcript,
          ])) ?? formatTranscript(content.transcript));
      const extras =
        running?.id === id ? running.extras.all() : await readLineExtras(await existingFolder(id));
      return exportClass(
        {
          meta: { ...content.meta, line_count: content.transcript.entries.length },
          transcript: content.transcript,
          transcriptText,
          notes: content.notes,
          extras,
        },
        format,
      );
    },

    async openAudio(id) {
      await existingFolder(id);
      return openClassAudio(options.dataDir, id);
    },

    saveNotes,

    async saveLiveNotes(notes) {
      const id = liveFileId;
      if (!id) return;
      try {
        await saveNotes(id, notes);
      } catch (error) {
        logger.error(
          { err: error, classId: id },
          'library: could not keep the notes with the class',
        );
      }
    },

    async remove(id) {
      const folder = await existingFolder(id);
      if (running?.id === id) {
        throw new ServerError(
          'CLASS_RUNNING',
          localized(
            `课堂 ${id} 正在上课：请先下课再删除。`,
            `Class ${id} is being monitored right now: stop it before deleting it.`,
          ),
          { field: 'id' },
        );
      }
      await folders(async () => {
        // Renamed first: a crash in the middle never leaves half a class to be indexed again.
        const doomed = join(classesDir, `${DELETING_PREFIX}${id}`);
        await rename(folder, doomed);
        await syncFolder(classesDir);
        await rm(doomed, { recursive: true, force: true });
      });
      await indexWork(async () => index.removeClass(id));
      audioSizes.forget(id);
      if (liveFileId === id) liveFileId = null;
      changed(id, 'deleted');
    },

    rescan: () => scan(),

    liveClassId: () => running?.id ?? liveFileId,
    async liveLineExtras() {
      if (running) return running.extras.all();
      if (liveFileId === null) return new Map();
      if (liveExtras?.id === liveFileId) return liveExtras.log.all();
      return readLineExtras(await existingFolder(liveFileId)).catch(() => new Map());
    },
    lineExtras: (lineId) => running?.extras.get(lineId) ?? NO_EXTRAS,
    audioTarget() {
      const current = running;
      if (!current) return null;
      return {
        path: join(current.folder, CLASS_FILES.audio),
        sized: (bytes) => audioSizes.set(current.id, bytes),
      };
    },
    setLineExtras(lineId, patch) {
      running?.extras.set(lineId, patch);
    },
    setClassLineExtras(classId, lineId, patch) {
      if (running?.id === classId) {
        running.extras.set(lineId, patch);
        return;
      }
      if (liveExtras?.id !== classId || closed) return;
      const log = liveExtras.log;
      log.set(lineId, patch);
      // Indexed at its end: again once the changes that came after are in its file.
      if (lateIndex) return;
      lateIndex = setTimeout(() => {
        lateIndex = undefined;
        void log
          .flush()
          .then(() => indexWork(() => reindex(classId)))
          .then(() => changed(classId, 'updated'))
          .catch((error: unknown) =>
            logger.error({ err: error, classId }, `library: could not index class ${classId}`),
          );
      }, LATE_INDEX_MS);
      lateIndex.unref();
    },

    interrupted: () => {
      if (!interrupted) return null;
      const { meta: _meta, ...info } = interrupted;
      return info;
    },

    keepInterrupted: () =>
      folders(async () => {
        const waiting = interrupted;
        if (!waiting) return;
        interrupted = null;
        const live = await store.read();
        await finish(
          waiting.id,
          liveFileId === waiting.id ? live : null,
          waiting.meta,
          waiting.lastAliveAt,
        );
      }),

    ready: async () => {
      await firstScan;
      await indexWork(async () => undefined);
    },

    async close() {
      closed = true;
      clearTimeout(lateIndex);
      clearInterval(timer);
      clearInterval(aliveTimer);
      await folders(async () => undefined);
      await indexWork(async () => undefined);
      index.close();
    },
  };
}

function notFound(id: string) {
  return localized(`课程库里没有课堂 ${id}。`, `No class ${id} in the library.`);
}

/**
 * The last moment a class's backend was known alive: its last `alive_at` or the newest write of
 * its live file (`fileTime`), whichever is later; null when neither is known.
 */
function lastSignOfLife(meta: ClassMeta, fileTime: Date | undefined): Date | null {
  const noted = meta.alive_at ? new Date(meta.alive_at) : null;
  const times = [noted, fileTime ?? null].filter(
    (time): time is Date => time !== null && !Number.isNaN(time.getTime()),
  );
  if (times.length === 0) return null;
  return new Date(Math.max(...times.map((time) => time.getTime())));
}

/** Creates a class folder; false when the name is taken. */
async function makeFolder(folder: string): Promise<boolean> {
  try {
    await mkdir(folder);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}
