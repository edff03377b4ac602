// The transcript file (issue 3 "Transcript file", design.md §3 durability).
import type {
  RecentQuery,
  TranscriptDocument,
  TranscriptEntry,
  TranscriptHeader,
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
  /** The new history summary (replaces the old one; it should cover it). Not empty. */
  summary: string;
  /** The oldest entries to fold, exactly as read; the fold is refused if they changed. */
  entries: readonly TranscriptEntry[];
}

/** Result of {@link TranscriptStore.fold}. */
export type FoldOutcome =
  | { folded: true; foldedCount: number; keptCount: number }
  | { folded: false; reason: 'entries-changed' };

/**
 * A transcript file opened for writing: appends are O(line) and durable, replacing the last
 * entry rewrites only that entry, folding rewrites the file atomically. All methods are safe to
 * call concurrently: they run one at a time in call order. If the file is changed by someone
 * else (an editor, another program), the store notices and re-reads it before the next
 * operation.
 */
export class TranscriptStore {
  /** The file path. */
  readonly path: string;

  private constructor(path: string) {
    this.path = path;
  }

  /**
   * Opens (creating if missing, with its folder) a transcript file. Any file works: written
   * by this package, by the product this one replaces, or by hand.
   */
  static async open(path: string, options: TranscriptStoreOptions = {}): Promise<TranscriptStore> {
    void options;
    return new TranscriptStore(path);
  }

  /** Number of real entries as of the last operation. */
  get entryCount(): number {
    throw new Error('not implemented yet');
  }

  /** Appends `[HH:MM:SS] text` (the time from the clock, or `options.time`), durably. */
  async append(text: string, options: { time?: Date } = {}): Promise<TranscriptEntry> {
    void text;
    void options;
    throw new Error('not implemented yet');
  }

  /** Replaces the text of the last entry (keeping its time), rewriting only that line. */
  async replaceLast(text: string): Promise<TranscriptEntry> {
    void text;
    throw new Error('not implemented yet');
  }

  /** The last `count` entries, or those of the last `minutes` minutes; the summary never. */
  async readRecent(query: RecentQuery): Promise<TranscriptEntry[]> {
    void query;
    throw new Error('not implemented yet');
  }

  /** The history summary ('' when none). */
  async readSummary(): Promise<string> {
    throw new Error('not implemented yet');
  }

  /** The whole document. */
  async read(): Promise<TranscriptDocument> {
    throw new Error('not implemented yet');
  }

  /** The header (start time, course, material). */
  async readHeader(): Promise<TranscriptHeader> {
    throw new Error('not implemented yet');
  }

  /** Folds the given oldest entries into the summary block (atomic rewrite). */
  async fold(request: FoldRequest): Promise<FoldOutcome> {
    void request;
    throw new Error('not implemented yet');
  }

  /** Starts a new class: replaces the file with a fresh header (atomic rewrite). */
  async reset(header: NewClassHeader = {}): Promise<void> {
    void header;
    throw new Error('not implemented yet');
  }

  /** Waits for pending operations and releases the file. */
  async close(): Promise<void> {
    throw new Error('not implemented yet');
  }
}

/**
 * Reads and parses a transcript file without opening it for writing; a missing file reads as
 * an empty document.
 */
export async function readTranscriptFile(path: string): Promise<TranscriptDocument> {
  void path;
  throw new Error('not implemented yet');
}
