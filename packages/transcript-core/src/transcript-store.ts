// The transcript file of a class, crash-safe (see the package README, "TranscriptStore").
//
// Invariants:
// - An append is one positional write of `[HH:MM:SS] text\n` at the end of the file, then
//   fdatasync, before the promise resolves: O(line), never a rewrite, and an acknowledged line
//   survives a crash.
// - replaceLast writes the new last line over the old one in one write (padded with line breaks
//   when shorter, then truncated), so a crash leaves the old or the new line, plus at most some
//   blank lines.
// - fold and reset write a temp file in the same folder, fsync it, rename it over the file and
//   fsync the folder: a reader sees the old or the new file, never a mix.
// - Entry ids are positions in the class: the header's `=== 已折叠 N 条 ===` line says how many
//   entries were folded before the first one in the file, and fold rewrites that line.
// - The store keeps a model of the file (entries, summary, where the last entry starts). Before
//   each operation it compares the file's inode, size and mtime with what it last wrote; when
//   someone else changed the file, it re-reads it first.
// - The small, bounded calls of the hot path — that stat, the write of one line (into the page
//   cache), the fstat after it — are synchronous system calls of a few microseconds; an async
//   call costs a round trip to the I/O threads that is ten times that. Only fdatasync, the one
//   call that waits for the disk, stays asynchronous, so a slow disk never blocks the event loop;
//   the fstat and whatever the caller computes for the line (writeLine: the pipeline's keyword
//   check) run while it waits.
// - A pipeline line is one operation (writeLine): the file is checked once per line, not once
//   per read and once per write.
import { fdatasync, fstatSync, ftruncateSync, statSync, writeSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { mkdir, open, readdir, readFile, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { syncDirectory, tempFilePrefix, writeFileAtomic } from './atomic-file.ts';
import { type EntryTime, entryTimeText } from './entry-time.ts';
import { checkOptions, describeValue, TranscriptCoreError } from './errors.ts';
import { normalizeText } from './text.ts';
import type {
  RecentQuery,
  TranscriptDocument,
  TranscriptEntry,
  TranscriptHeader,
  TranscriptLineContent,
} from './transcript-format.ts';
import {
  checkRecentQuery,
  classifyLines,
  documentFromLines,
  formatClockTime,
  formatEntryLine,
  formatFoldedLine,
  formatHeaderLines,
  formatSummaryBlock,
  isFoldedLine,
  parseTranscript,
  sanitizeSummary,
  selectRecent,
} from './transcript-format.ts';

/** Options of {@link TranscriptStore.open}. */
export interface TranscriptStoreOptions {
  /** The clock entries are stamped with and `readRecent({ minutes })` counts from. */
  now?: () => Date;
  /**
   * fsync every change before it resolves (default true). Only turn off for throw-away files:
   * without it a crash may lose acknowledged lines.
   */
  durable?: boolean;
}

/** What a new class's header says (see {@link TranscriptStore.reset}). */
export interface NewClassHeader {
  courseName?: string;
  materialName?: string;
}

/** Input of {@link TranscriptStore.fold}. */
export interface FoldRequest {
  /** The new history summary (replaces the old one, so it should cover it). Not empty. */
  summary: string;
  /** The oldest entries to fold, exactly as read; the fold is refused if they changed since. */
  entries: readonly TranscriptEntry[];
}

/** Result of {@link TranscriptStore.fold}. */
export type FoldOutcome =
  | { folded: true; foldedCount: number; keptCount: number }
  | { folded: false; reason: 'entries-changed' };

interface FileIdentity {
  ino: number;
  size: number;
  mtimeMs: number;
}

interface ScannedFile {
  lines: string[];
  starts: number[];
  size: number;
  endsWithNewline: boolean;
  eol: '\n' | '\r\n';
}

/** A change written into the page cache, durable once `done` resolves. */
export interface PendingChange {
  /** The entry as written (the store's own object: do not change it). */
  readonly entry: TranscriptEntry;
  /** Resolves once the change is on disk (when durable) and in the store's model. */
  readonly done: Promise<void>;
}

/** What a pipeline line may do to the file (see {@link writeLine}). */
export interface LineWriter {
  /** The last `count` entries, the store's own objects (do not change them). */
  recent(count: number): readonly TranscriptEntry[];
  /**
   * Appends `text`, already normalised (`normalizeText`) and not empty, stamped `time` (the
   * `HH:MM:SS` text) or the store's clock.
   */
  append(text: string, time?: string): PendingChange;
  /** Replaces the last entry's text with `text`, already normalised and not empty. */
  replaceLast(text: string): PendingChange;
}

/** What a fold would fold now (see {@link readFoldCandidates}). */
export interface FoldCandidates {
  /** The history summary ('' when none). */
  previousSummary: string;
  /** Copies of the oldest entries. */
  entries: TranscriptEntry[];
}

let runLine: <T>(
  store: TranscriptStore,
  name: string,
  step: (writer: LineWriter) => Promise<T>,
) => Promise<T>;
let foldCandidates: (
  store: TranscriptStore,
  keepRecent: number,
  maxEntries: number,
) => Promise<FoldCandidates>;
let isStore: (value: unknown) => boolean;

/**
 * Runs one pipeline line as one store operation: the file is checked for outside changes once,
 * `step` reads the recent entries from the store's model and makes at most one change, and the
 * operation ends once that change is durable. Package-internal (not exported by index.ts): the
 * pipeline does its CPU work (keyword matching) while the change's fdatasync runs.
 */
export function writeLine<T>(
  store: TranscriptStore,
  name: string,
  step: (writer: LineWriter) => Promise<T>,
): Promise<T> {
  return runLine(store, name, step);
}

/**
 * The summary and the oldest entries a fold would take — all but the `keepRecent` newest, at
 * most `maxEntries` — copying only those: O(maxEntries) however long the file, where `read()`
 * copies every entry. Package-internal (not exported by index.ts): the pipeline's folds.
 */
export function readFoldCandidates(
  store: TranscriptStore,
  keepRecent: number,
  maxEntries: number,
): Promise<FoldCandidates> {
  return foldCandidates(store, keepRecent, maxEntries);
}

/** True for a {@link TranscriptStore} of this copy of the package. */
export function isTranscriptStore(value: unknown): value is TranscriptStore {
  return isStore(value);
}

/**
 * A transcript file opened for writing. Appends are O(line) and durable, replacing the last
 * entry rewrites only that entry, folding rewrites the file atomically. Methods may be called
 * concurrently: they run one at a time, in call order. When the file is changed by someone else
 * (an editor, another program), the store notices and re-reads it before its next operation;
 * when it is deleted, the store starts a new one.
 *
 * @example
 * const store = await TranscriptStore.open('data/class_transcript.txt');
 * await store.append('同学们好，今天讲第三章。');      // [10:00:01] 同学们好，今天讲第三章。
 * const recent = await store.readRecent({ minutes: 2 });
 */
export class TranscriptStore {
  static {
    runLine = (store, name, step) => store.#line(name, step);
    foldCandidates = (store, keepRecent, maxEntries) =>
      store.#run('readFoldCandidates', async () => ({
        previousSummary: store.#summary,
        entries: store.#entries
          .slice(0, Math.max(0, Math.min(store.#entries.length - keepRecent, maxEntries)))
          .map((entry) => ({ ...entry })),
      }));
    isStore = (value) => typeof value === 'object' && value !== null && #handle in value;
  }

  /** The file path. */
  readonly path: string;
  readonly #now: () => Date;
  readonly #durable: boolean;
  #handle: FileHandle | null = null;
  #tail: Promise<unknown> = Promise.resolve();
  #closed = false;
  #identity: FileIdentity | null = null;
  // The model of the file.
  #header: TranscriptHeader = {
    startedAt: null,
    courseName: null,
    materialName: null,
    foldedCount: 0,
  };
  #headerLines: string[] = [];
  #summary = '';
  #entries: TranscriptEntry[] = [];
  #size = 0;
  #endsWithNewline = true;
  #eol: '\n' | '\r\n' = '\n';
  /** Byte offset of the last entry when it is the last non-blank line; else null. */
  #lastEntryStart: number | null = null;

  private constructor(path: string, options: TranscriptStoreOptions) {
    this.path = path;
    const clock = options.now ?? (() => new Date());
    this.#now = () => checkDate(clock(), 'TranscriptStore: options.now() returned');
    this.#durable = options.durable ?? true;
  }

  /**
   * Opens a transcript file, creating it (and its folder) when missing. Any file works: one
   * written by this package, by the product this one replaces, or by hand. Temp files left by
   * a fold that was killed are removed; a last line torn by a crash mid-append loses only its
   * incomplete final character.
   *
   * @throws TranscriptCoreError `TRANSCRIPT_IO_FAILED` when the file cannot be opened.
   */
  static async open(path: string, options: TranscriptStoreOptions = {}): Promise<TranscriptStore> {
    if (typeof path !== 'string' || path === '') {
      throw new TranscriptCoreError(
        'TRANSCRIPT_INVALID_ARGUMENT',
        `TranscriptStore.open: path must be a non-empty string, got ${JSON.stringify(path)}`,
      );
    }
    const checked = checkOptions(options, 'TranscriptStore.open: options');
    if (checked.now !== undefined && typeof checked.now !== 'function') {
      throw invalid(
        `TranscriptStore.open: options.now must be a function returning a Date, got ${describeValue(checked.now)}`,
      );
    }
    if (checked.durable !== undefined && typeof checked.durable !== 'boolean') {
      throw invalid(
        `TranscriptStore.open: options.durable must be a boolean, got ${describeValue(checked.durable)}`,
      );
    }
    const store = new TranscriptStore(path, checked);
    await store.#io('open', async () => {
      await mkdir(dirname(path), { recursive: true });
      await removeStaleTempFiles(path);
      await store.#reload({ repairTornLine: true });
    });
    return store;
  }

  /** Number of real entries (summary excluded) as of the last operation. */
  get entryCount(): number {
    return this.#entries.length;
  }

  /** Id of the newest entry of the class as of the last operation (0 before the first). */
  get lastId(): number {
    return this.#nextId() - 1;
  }

  /**
   * Appends `[HH:MM:SS] text` and fsyncs it. The time is the store's clock, or `options.time`:
   * a `Date` (its local clock time), `{ positionMs }` (a position in a recording: `00:42:13`,
   * hours past 24 allowed) or an `HH:MM:SS` string. The text is normalised to one line
   * ({@link normalizeText}).
   *
   * @throws TranscriptCoreError `TRANSCRIPT_INVALID_ARGUMENT` for a malformed `options.time`,
   *   `TRANSCRIPT_EMPTY_TEXT`, `TRANSCRIPT_CLOSED`, `TRANSCRIPT_IO_FAILED`.
   */
  append(text: string, options: { time?: EntryTime } = {}): Promise<TranscriptEntry> {
    return this.#run('append', async () => {
      const { time } = checkOptions(options, 'append: options');
      const stamp = time === undefined ? undefined : entryTimeText(time, 'append: options.time');
      const change = this.#beginAppend(entryText(text), stamp);
      await change.done;
      return { ...change.entry };
    });
  }

  /**
   * Replaces the text of the last entry, keeping its time. Only that line is rewritten (the
   * file is rewritten atomically instead in the rare case that other lines follow the entry).
   *
   * @throws TranscriptCoreError `TRANSCRIPT_NO_ENTRY` when there is no entry,
   *   `TRANSCRIPT_EMPTY_TEXT`, `TRANSCRIPT_CLOSED`, `TRANSCRIPT_IO_FAILED`.
   */
  replaceLast(text: string): Promise<TranscriptEntry> {
    return this.#run('replaceLast', async () => {
      this.#lastEntry();
      const change = this.#beginReplaceLast(entryText(text));
      await change.done;
      return { ...change.entry };
    });
  }

  /**
   * The last `count` entries, or those of the last `minutes` minutes by the store's clock.
   * The history summary is never included. See `selectRecent` for dates and midnight.
   *
   * @throws TranscriptCoreError `TRANSCRIPT_INVALID_ARGUMENT` for a malformed query.
   */
  readRecent(query: RecentQuery): Promise<TranscriptEntry[]> {
    return this.#run('readRecent', async () => {
      checkRecentQuery(query);
      // The clock is only read when it matters (a count query needs no time).
      const now = 'minutes' in query ? this.#now() : new Date(0);
      return selectRecent({ entries: this.#entries, header: this.#header }, query, now);
    });
  }

  /** The history summary ('' when the file has none). */
  readSummary(): Promise<string> {
    return this.#run('readSummary', async () => this.#summary);
  }

  /** The header: start time, course and material, when the file has them. */
  readHeader(): Promise<TranscriptHeader> {
    return this.#run('readHeader', async () => ({ ...this.#header }));
  }

  /** The whole document as parsed (entries copied). */
  read(): Promise<TranscriptDocument> {
    return this.#run('read', async () => ({
      header: { ...this.#header },
      headerLines: [...this.#headerLines],
      summary: this.#summary,
      entries: this.#entries.map((entry) => ({ ...entry })),
    }));
  }

  /**
   * Folds the oldest entries into the history-summary block: the file becomes its header
   * lines (with the count of folded entries, so the remaining entries keep their ids), the
   * block holding `summary`, then the remaining entries — written atomically (temp file, fsync,
   * rename, fsync of the folder). Refused, with nothing changed, when the file's
   * oldest entries are no longer exactly `entries` (an entry was replaced, the file edited).
   * Decoration lines among the entries (`=== … ===`) are not kept.
   *
   * @throws TranscriptCoreError `TRANSCRIPT_SUMMARY_EMPTY` for a blank summary,
   *   `TRANSCRIPT_CLOSED`, `TRANSCRIPT_IO_FAILED`.
   */
  fold(request: FoldRequest): Promise<FoldOutcome> {
    return this.#run('fold', async () => {
      const summary = sanitizeSummary(String(request.summary ?? ''));
      if (summary === '') {
        throw new TranscriptCoreError(
          'TRANSCRIPT_SUMMARY_EMPTY',
          `fold: the summary for ${this.path} is empty; nothing was folded`,
        );
      }
      const folded = request.entries;
      const unchanged =
        folded.length <= this.#entries.length &&
        folded.every((entry, index) => {
          const current = this.#entries[index]!;
          return (
            entry.id === current.id && entry.time === current.time && entry.text === current.text
          );
        });
      if (!unchanged) return { folded: false, reason: 'entries-changed' };
      const kept = this.#entries.slice(folded.length);
      const foldedCount = this.#header.foldedCount + folded.length;
      const headerLines = [
        ...this.#headerLines.filter((line) => !isFoldedLine(line)),
        ...(foldedCount > 0 ? [formatFoldedLine(foldedCount)] : []),
      ];
      let content = headerLines.length > 0 ? `${headerLines.join('\n')}\n\n` : '';
      content += formatSummaryBlock(summary);
      for (const entry of kept) content += `${formatEntryLine(entry)}\n`;
      await this.#replaceFile(content);
      return { folded: true, foldedCount: folded.length, keptCount: kept.length };
    });
  }

  /**
   * Starts a new class: replaces the file (atomically) with a header — `=== 课堂记录 开始于
   * YYYY-MM-DD HH:MM:SS ===`, then `课程：…` and `参考资料：…` when given — and no entries.
   * Copy the old file first if it should be kept.
   */
  reset(header: NewClassHeader = {}): Promise<void> {
    return this.#run('reset', async () => {
      const checked = checkOptions(header, 'reset: header');
      for (const name of ['courseName', 'materialName'] as const) {
        if (checked[name] !== undefined && typeof checked[name] !== 'string') {
          throw invalid(
            `reset: header.${name} must be a string, got ${describeValue(checked[name])}`,
          );
        }
      }
      const lines = formatHeaderLines(this.#now(), checked);
      await this.#replaceFile(`${lines.join('\n')}\n\n`);
    });
  }

  /** Waits for pending operations and releases the file. Later calls throw `TRANSCRIPT_CLOSED`. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#tail.catch(() => {});
    await this.#handle?.close().catch(() => {});
    this.#handle = null;
  }

  // Runs `operation` after the previous ones, on a fresh model, mapping fs errors.
  #run<T>(name: string, operation: () => Promise<T>): Promise<T> {
    if (this.#closed) {
      return Promise.reject(
        new TranscriptCoreError(
          'TRANSCRIPT_CLOSED',
          `${name}: the store for ${this.path} is closed`,
        ),
      );
    }
    const result = this.#tail.then(() =>
      this.#io(name, () =>
        this.#isFresh() ? operation() : this.#reload({ repairTornLine: false }).then(operation),
      ),
    );
    this.#tail = result.catch(() => {});
    return result;
  }

  async #io<T>(name: string, operation: () => Promise<T>): Promise<T> {
    try {
      return await operation();
    } catch (error) {
      if (error instanceof TranscriptCoreError) throw error;
      this.#identity = null; // re-read the file before the next operation
      const message = error instanceof Error ? error.message : String(error);
      throw new TranscriptCoreError(
        'TRANSCRIPT_IO_FAILED',
        `${name}: cannot use transcript file ${this.path}: ${message}`,
        { cause: error },
      );
    }
  }

  // Whether the file is still what the store last wrote or read (one synchronous stat).
  #isFresh(): boolean {
    const known = this.#identity;
    if (!known) return false;
    const current = statSync(this.path, { throwIfNoEntry: false });
    return (
      current !== undefined &&
      current.ino === known.ino &&
      current.size === known.size &&
      current.mtimeMs === known.mtimeMs
    );
  }

  // (Re)reads the file into the model and (re)opens the handle; creates a missing file.
  async #reload(options: { repairTornLine: boolean }): Promise<void> {
    await this.#handle?.close().catch(() => {});
    this.#handle = null;
    let handle: FileHandle;
    try {
      handle = await open(this.path, 'r+');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      handle = await open(this.path, 'a+');
      await handle.close();
      if (this.#durable) await syncDirectory(dirname(this.path));
      handle = await open(this.path, 'r+');
    }
    this.#handle = handle;
    let buffer = await handle.readFile();
    if (options.repairTornLine) {
      const keep = completeUtf8Length(buffer);
      if (keep < buffer.length) {
        await handle.truncate(keep);
        if (this.#durable) await handle.datasync();
        buffer = buffer.subarray(0, keep);
      }
    }
    this.#loadModel(scanFile(buffer));
    this.#remember();
  }

  #loadModel(file: ScannedFile): void {
    const classified = classifyLines(file.lines);
    const document = documentFromLines(classified);
    this.#header = document.header;
    this.#headerLines = document.headerLines;
    this.#summary = document.summary;
    this.#entries = document.entries;
    this.#size = file.size;
    this.#endsWithNewline = file.endsWithNewline;
    this.#eol = file.eol;
    const lastContent = classified.findLast((line) => line.kind !== 'blank');
    this.#lastEntryStart = lastContent?.kind === 'entry' ? file.starts[lastContent.index]! : null;
  }

  // Writes the line now (into the page cache); `done` resolves once it is durable and the model
  // holds it. Until then the model is not trusted (a failure makes the next operation re-read).
  #beginAppend(text: string, time?: string): PendingChange {
    const entry: TranscriptEntry = {
      id: this.#nextId(),
      time: time ?? formatClockTime(this.#now()),
      text,
    };
    const prefix = this.#endsWithNewline ? '' : this.#eol;
    const bytes = Buffer.from(`${prefix}${formatEntryLine(entry)}${this.#eol}`, 'utf8');
    const start = this.#size;
    this.#identity = null;
    writeAll(this.#handle!, bytes, start);
    const { synced, written } = this.#syncWritten();
    const done = synced.then(() => {
      this.#entries.push(entry);
      this.#size = start + bytes.length;
      this.#lastEntryStart = start + Buffer.byteLength(prefix);
      this.#endsWithNewline = true;
      this.#remember(written);
    });
    return { entry, done };
  }

  #lastEntry(): TranscriptEntry {
    const last = this.#entries[this.#entries.length - 1];
    if (!last) {
      throw new TranscriptCoreError(
        'TRANSCRIPT_NO_ENTRY',
        `replaceLast: ${this.path} has no entry to replace`,
      );
    }
    return last;
  }

  #beginReplaceLast(text: string): PendingChange {
    const last = this.#lastEntry();
    const entry: TranscriptEntry = { id: last.id, time: last.time, text };
    const start = this.#lastEntryStart;
    if (start === null) return { entry, done: this.#rewriteLastEntryLine(entry) };
    const line = Buffer.from(`${formatEntryLine(entry)}${this.#eol}`, 'utf8');
    const region = this.#size - start;
    this.#identity = null;
    if (line.length >= region) {
      writeAll(this.#handle!, line, start);
    } else {
      // One write the size of the old region: a crash before the truncate leaves blank lines.
      const padded = Buffer.alloc(region, 0x0a);
      line.copy(padded);
      writeAll(this.#handle!, padded, start);
      ftruncateSync(this.#handle!.fd, start + line.length);
    }
    const { synced, written } = this.#syncWritten();
    const done = synced.then(() => {
      this.#entries[this.#entries.length - 1] = entry;
      this.#size = start + line.length;
      this.#endsWithNewline = true;
      this.#remember(written);
    });
    return { entry, done };
  }

  // Starts fdatasync of what was just written and, while it runs, takes the file's identity
  // (a write sets the size and modification time, fdatasync changes neither).
  #syncWritten(): { synced: Promise<void>; written: FileIdentity } {
    const synced = this.#durable ? datasync(this.#handle!.fd) : Promise.resolve();
    try {
      return { synced, written: this.#currentIdentity() };
    } catch (error) {
      synced.catch(() => {});
      throw error;
    }
  }

  // One line of a TranscriptPipeline (see writeLine): the file checked once, the model read
  // without copies, at most one change, durable before the operation ends.
  #line<T>(name: string, step: (writer: LineWriter) => Promise<T>): Promise<T> {
    return this.#run(name, async () => {
      let change: PendingChange | null = null;
      const once = (begin: () => PendingChange): PendingChange => {
        if (change) throw new Error(`${name}: one change per line`);
        change = begin();
        return change;
      };
      const writer: LineWriter = {
        recent: (count) => (count > 0 ? this.#entries.slice(-count) : []),
        append: (text, time) => once(() => this.#beginAppend(text, time)),
        replaceLast: (text) => once(() => this.#beginReplaceLast(text)),
      };
      try {
        return await step(writer);
      } finally {
        await (change as PendingChange | null)?.done;
      }
    });
  }

  #nextId(): number {
    return (this.#entries.at(-1)?.id ?? this.#header.foldedCount) + 1;
  }

  #remember(identity = this.#currentIdentity()): void {
    this.#identity = identity;
  }

  #currentIdentity(): FileIdentity {
    const current = fstatSync(this.#handle!.fd);
    return { ino: current.ino, size: current.size, mtimeMs: current.mtimeMs };
  }

  async #replaceFile(content: string): Promise<void> {
    this.#identity = null;
    const text = this.#eol === '\n' ? content : content.replaceAll('\n', this.#eol);
    await writeFileAtomic(this.path, text, { durable: this.#durable });
    await this.#reload({ repairTornLine: false });
  }

  // The last entry is followed by other lines: rewrite the file with only that line changed.
  async #rewriteLastEntryLine(entry: TranscriptLineContent): Promise<void> {
    const file = scanFile(await readFile(this.path));
    const last = classifyLines(file.lines).findLast((line) => line.kind === 'entry');
    if (!last) {
      throw new TranscriptCoreError(
        'TRANSCRIPT_NO_ENTRY',
        `replaceLast: ${this.path} has no entry`,
      );
    }
    file.lines[last.index] = formatEntryLine(entry);
    await this.#replaceFile(`${file.lines.join('\n')}\n`);
  }
}

/**
 * Reads and parses a transcript file without opening it for writing. A missing file reads as
 * an empty document.
 *
 * @throws TranscriptCoreError `TRANSCRIPT_IO_FAILED` when the file exists but cannot be read.
 */
export async function readTranscriptFile(path: string): Promise<TranscriptDocument> {
  try {
    return parseTranscript(await readFile(path, 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return parseTranscript('');
    throw new TranscriptCoreError(
      'TRANSCRIPT_IO_FAILED',
      `cannot read transcript file ${path}: ${(error as Error).message}`,
      { cause: error },
    );
  }
}

function entryText(text: string): string {
  const clean = normalizeText(String(text ?? ''));
  if (clean === '') {
    throw new TranscriptCoreError(
      'TRANSCRIPT_EMPTY_TEXT',
      `an entry needs text; got ${JSON.stringify(text)}`,
    );
  }
  return clean;
}

// Lines with the byte offset each starts at. Splitting bytes on LF is safe in UTF-8 (no
// multi-byte character contains 0x0A); a CR before the LF belongs to the line break.
function scanFile(buffer: Buffer): ScannedFile {
  const lines: string[] = [];
  const starts: number[] = [];
  let crlf = 0;
  let position =
    buffer.length >= 3 && buffer[0] === 0xef && buffer[1] === 0xbb && buffer[2] === 0xbf ? 3 : 0;
  let endsWithNewline = true;
  while (position < buffer.length) {
    const newline = buffer.indexOf(0x0a, position);
    const end = newline === -1 ? buffer.length : newline;
    const contentEnd = end > position && buffer[end - 1] === 0x0d ? end - 1 : end;
    if (contentEnd !== end) crlf += 1;
    lines.push(buffer.toString('utf8', position, contentEnd));
    starts.push(position);
    if (newline === -1) {
      endsWithNewline = false;
      break;
    }
    position = newline + 1;
  }
  return {
    lines,
    starts,
    size: buffer.length,
    endsWithNewline,
    eol: crlf > 0 && crlf * 2 >= lines.length ? '\r\n' : '\n',
  };
}

// Length of `buffer` without an incomplete UTF-8 sequence at its very end (what a write
// interrupted by a crash can leave). Complete files are returned whole.
function completeUtf8Length(buffer: Buffer): number {
  const length = buffer.length;
  for (let back = 1; back <= Math.min(3, length); back += 1) {
    const byte = buffer[length - back]!;
    if ((byte & 0xc0) === 0x80) continue; // continuation byte: look further back
    const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return needed > back ? length - back : length;
  }
  return length;
}

// One line or one padded last line: a few hundred bytes into the page cache (see the invariants
// at the top of the file for why this write is synchronous).
function writeAll(handle: FileHandle, bytes: Buffer, position: number): void {
  let written = 0;
  while (written < bytes.length) {
    written += writeSync(handle.fd, bytes, written, bytes.length - written, position + written);
  }
}

// fdatasync on the I/O threads through the callback API: a FileHandle's datasync() costs a few
// more microseconds per call (its promise plumbing), and it runs once per line.
function datasync(fd: number): Promise<void> {
  return new Promise((resolve, reject) => {
    fdatasync(fd, (error) => (error ? reject(error) : resolve()));
  });
}

// Temp files of folds killed mid-write: `.<name>.tmp-<pid>-<random>`, removed unless the
// process that made them is still running (it may be folding right now — this process too,
// through another store on the same file).
async function removeStaleTempFiles(path: string): Promise<void> {
  const prefix = tempFilePrefix(path);
  const names = await readdir(dirname(path)).catch(() => [] as string[]);
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number(name.slice(prefix.length).split('-')[0]);
    if (Number.isInteger(pid) && pid > 0 && isRunning(pid)) continue;
    await rm(join(dirname(path), name), { force: true });
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function invalid(message: string): TranscriptCoreError {
  return new TranscriptCoreError('TRANSCRIPT_INVALID_ARGUMENT', message);
}

// A timestamp must be a real date: an Invalid Date would be written as `[NaN:NaN:NaN]`.
function checkDate(value: unknown, what: string): Date {
  if (!(value instanceof Date) || Number.isNaN(value.getTime())) {
    throw invalid(`${what} ${value instanceof Date ? 'an invalid Date' : describeValue(value)}`);
  }
  return value;
}
