// The library's search index: one SQLite file (node:sqlite, built into Node — nothing to
// install, and it works in the single-file build) holding a row per class and, for full-text
// search, every transcript line and the notes and material cut into passages.
//
// It is an index only: the class folders are the truth. A missing file, a damaged one or one of
// an older schema is replaced by an empty one and filled again from the folders.
//
// Layout:
//   classes   one row per class (what the list shows) with the folder's signature
//   docs      the searchable texts; a class's rows are numbered from its `row_base`, so the
//             class of a row is `rowid - rowid % ROWS_PER_CLASS` and rows are in start order
//   docs_fts  FTS5 over the texts' terms (search-terms.ts), contentless: the texts live in docs
//   terms     every index term with about how many texts hold it: picks the rarest terms of a
//             query, and turns a prefix (a word being typed, one CJK character) into the
//             terms it stands for
import { closeSync, existsSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { type ClassSource, ClassSourceSchema } from '../events/live-events.ts';
import { indexTerms, normalizeForSearch, phraseOf, type QueryPart } from './search-terms.ts';
import { countMatches, findMatches, relevance, snippet } from './snippet.ts';

/** Bump when the tables or the terms change: older files are rebuilt. */
export const INDEX_SCHEMA_VERSION = 3;

/** Row numbers reserved for each class (lines, then notes and material passages). */
const ROWS_PER_CLASS = 2 ** 21;

/** What a searchable text is. */
type DocKind = 'line' | 'notes' | 'material';
const KIND_CODES: Record<DocKind, number> = { line: 0, notes: 1, material: 2 };
const KIND_NAMES: DocKind[] = ['line', 'notes', 'material'];

/** A class as the index lists it. */
export interface ClassRow {
  id: string;
  course_name: string;
  material_name: string;
  started_at: string;
  ended_at: string | null;
  line_count: number;
  alert_count: number;
  has_notes: boolean;
  /** The recording the class was transcribed from (null: live audio). */
  source: ClassSource | null;
}

/** A text to index. */
export interface IndexDoc {
  kind: DocKind;
  lineId: number | null;
  timestamp: string | null;
  text: string;
}

/** A search result. */
export interface SearchHit {
  class_id: string;
  course_name: string;
  started_at: string;
  kind: DocKind;
  line_id?: number;
  timestamp?: string;
  /** The text around the match, HTML-escaped, matches in `<mark>`. */
  snippet: string;
}

/** What to search in, and how many hits to return. */
export interface SearchOptions {
  course?: string;
  limit: number;
}

/** Newest matches a search ranks (see {@link LibraryIndex.search}). */
export const SEARCH_CANDIDATES = 200;
/** Rows of the rarest terms' texts read and checked at most (see {@link LibraryIndex.search}). */
const PROBE_ROWS = 300;
/** Below this many texts, the second rarest term makes the AND of the two a short list. */
const PAIR_FIRST_DOCS = 20 * PROBE_ROWS;
/** A prefix standing for more terms than this is searched as a prefix. */
const MAX_EXPANSIONS = 32;
/** Rows written per transaction while indexing; the event loop runs between them. */
const ROWS_PER_SLICE = 1000;
/** Typical length of a line and of a passage, for length normalisation. */
const TYPICAL_LENGTH: Record<DocKind, number> = { line: 40, notes: 120, material: 120 };

const SCHEMA = `
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE classes(
  id TEXT PRIMARY KEY,
  course_name TEXT NOT NULL,
  material_name TEXT NOT NULL,
  started_at TEXT NOT NULL,
  ended_at TEXT,
  line_count INTEGER NOT NULL,
  alert_count INTEGER NOT NULL,
  has_notes INTEGER NOT NULL,
  source TEXT,
  row_base INTEGER NOT NULL UNIQUE,
  signature TEXT NOT NULL
);
CREATE INDEX classes_started ON classes(started_at, id);
CREATE INDEX classes_course ON classes(course_name, started_at);
CREATE TABLE docs(
  rowid INTEGER PRIMARY KEY,
  kind INTEGER NOT NULL,
  line_id INTEGER,
  timestamp TEXT,
  text TEXT NOT NULL
);
CREATE VIRTUAL TABLE docs_fts USING fts5(terms, content='', contentless_delete=1, tokenize='ascii');
CREATE TABLE terms(term TEXT PRIMARY KEY, docs INTEGER NOT NULL) WITHOUT ROWID;
`;

/** Why an index file was replaced by a new one (for the log). */
export type IndexResetReason = 'missing' | 'damaged' | 'old-schema';

interface ClassRecordRow extends ClassRow {
  row_base: number;
  signature: string;
}

function toClassRow(row: Record<string, unknown>): ClassRecordRow {
  return {
    id: String(row.id),
    course_name: String(row.course_name),
    material_name: String(row.material_name),
    started_at: String(row.started_at),
    ended_at: row.ended_at === null ? null : String(row.ended_at),
    line_count: Number(row.line_count),
    alert_count: Number(row.alert_count),
    has_notes: Number(row.has_notes) === 1,
    source: parseSource(row.source),
    row_base: Number(row.row_base),
    signature: String(row.signature),
  };
}

/** True for SQLite's "the file is damaged / not a database" errors. */
export function isDamagedDatabaseError(error: unknown): boolean {
  const code = (error as { errcode?: unknown })?.errcode;
  return typeof code === 'number' && [11, 26].includes(code & 0xff);
}

/**
 * Checks the header of a SQLite file without opening it: a file shorter than the pages its
 * header counts was cut (SQLite itself would only notice when it reads a missing page).
 */
function looksTruncated(path: string): boolean {
  const header = Buffer.alloc(100);
  const descriptor = openSync(path, 'r');
  let read: number;
  try {
    read = readSync(descriptor, header, 0, 100, 0);
  } finally {
    closeSync(descriptor);
  }
  if (read === 0) return false; // empty: SQLite makes a new database of it
  if (read < 100 || header.toString('latin1', 0, 15) !== 'SQLite format 3') return true;
  const rawPageSize = header.readUInt16BE(16);
  const pageSize = rawPageSize === 1 ? 65536 : rawPageSize;
  const pageCount = header.readUInt32BE(28);
  const headerValid = header.readUInt32BE(24) === header.readUInt32BE(92);
  return headerValid && pageCount > 0 && statSync(path).size < pageSize * pageCount;
}

function removeDatabaseFiles(path: string): void {
  for (const suffix of ['', '-wal', '-shm', '-journal'])
    rmSync(`${path}${suffix}`, { force: true });
}

/**
 * The search index. Writes are async and sliced (a class of 3,000 lines is written in a few
 * transactions with the event loop running between them), reads are synchronous and fast.
 * Callers serialise writes (the library runs them one at a time).
 */
export class LibraryIndex {
  readonly path: string;
  #db: DatabaseSync;
  #statements = new Map<string, StatementSync>();
  #classCache: Map<number, ClassRecordRow> | null = null;
  /** Opened for reading an index another process writes (see {@link LibraryIndex.openForReading}). */
  #shared: boolean;
  #dataVersion = -1;

  private constructor(path: string, db: DatabaseSync, shared = false) {
    this.path = path;
    this.#db = db;
    this.#shared = shared;
  }

  /**
   * Opens the index another process keeps up to date (the running backend's) for searching
   * only: read-only, never replaced or rebuilt. `null` when there is no usable index (missing,
   * damaged, of another schema): the caller reads the class folders instead. What that process
   * writes meanwhile is seen at the next search.
   */
  static openForReading(path: string): LibraryIndex | null {
    if (!existsSync(path)) return null;
    let db: DatabaseSync | undefined;
    try {
      db = new DatabaseSync(path, { readOnly: true });
      db.exec('PRAGMA busy_timeout = 5000; PRAGMA cache_size = -16000;');
      const row = db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get() as
        | { value: string }
        | undefined;
      if (Number(row?.value) === INDEX_SCHEMA_VERSION) return new LibraryIndex(path, db, true);
    } catch {
      // Unusable here: the folders are read instead.
    }
    db?.close();
    return null;
  }

  /**
   * Opens the index at `path`, or makes a new empty one when the file is missing, damaged or of
   * an older schema (`reset` says why; the caller then indexes every class folder). `fresh`:
   * replace the file in any case (it was found damaged while in use).
   */
  static open(
    path: string,
    options: { fresh?: boolean } = {},
  ): { index: LibraryIndex; reset: IndexResetReason | null } {
    let reset: IndexResetReason | null = options.fresh
      ? 'damaged'
      : existsSync(path)
        ? null
        : 'missing';
    if (reset === null) {
      try {
        if (looksTruncated(path)) reset = 'damaged';
      } catch {
        reset = 'damaged';
      }
    }
    if (reset === null) {
      let db: DatabaseSync | undefined;
      try {
        db = new DatabaseSync(path);
        configure(db);
        const row = db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get() as
          | { value: string }
          | undefined;
        if (Number(row?.value) === INDEX_SCHEMA_VERSION)
          return { index: new LibraryIndex(path, db), reset };
        reset = 'old-schema';
      } catch (error) {
        reset = isDamagedDatabaseError(error) ? 'damaged' : 'old-schema';
      }
      db?.close();
    }
    removeDatabaseFiles(path);
    const db = new DatabaseSync(path);
    configure(db);
    db.exec('BEGIN');
    db.exec(SCHEMA);
    db.prepare("INSERT INTO meta(key, value) VALUES ('schema_version', ?)").run(
      String(INDEX_SCHEMA_VERSION),
    );
    db.exec('COMMIT');
    return { index: new LibraryIndex(path, db), reset };
  }

  // Prepared once. `arrays`: rows as arrays, cheaper than objects for the hot search queries.
  #statement(sql: string, arrays = false): StatementSync {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = this.#db.prepare(sql);
      if (arrays) statement.setReturnArrays(true);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  /** The signature stored with each indexed class (see class-folder.ts `folderSignature`). */
  signatures(): Map<string, string> {
    const rows = this.#statement('SELECT id, signature FROM classes').all() as Array<{
      id: string;
      signature: string;
    }>;
    return new Map(rows.map((row) => [row.id, row.signature]));
  }

  /** One class, or undefined. */
  getClass(id: string): ClassRow | undefined {
    const row = this.#statement('SELECT * FROM classes WHERE id = ?').get(id);
    if (!row) return undefined;
    const { row_base: _base, signature: _signature, ...rest } = toClassRow(row);
    return rest;
  }

  /** Classes newest first, `limit` from `offset`, optionally of one course; and how many in all. */
  listClasses(options: { offset: number; limit: number; course?: string }): {
    total: number;
    items: ClassRow[];
  } {
    const where = options.course === undefined ? '' : 'WHERE course_name = ?';
    const filter = options.course === undefined ? [] : [options.course];
    const total = Number(
      (
        this.#statement(`SELECT count(*) AS n FROM classes ${where}`).get(...filter) as {
          n: number;
        }
      ).n,
    );
    const rows = this.#statement(
      `SELECT * FROM classes ${where} ORDER BY started_at DESC, id DESC LIMIT ? OFFSET ?`,
    ).all(...filter, options.limit, options.offset);
    return {
      total,
      items: rows.map((row) => {
        const { row_base: _base, signature: _signature, ...rest } = toClassRow(row);
        return rest;
      }),
    };
  }

  /**
   * Replaces a class's row and texts. The signature is stored last: a class whose writing was
   * interrupted (the process killed) looks changed at the next start and is written again.
   */
  async replaceClass(row: ClassRow, docs: readonly IndexDoc[], signature: string): Promise<void> {
    const existing = this.#statement('SELECT row_base FROM classes WHERE id = ?').get(row.id) as
      | { row_base: number }
      | undefined;
    const base = existing ? Number(existing.row_base) : this.#freeRowBase(row.started_at);
    if (docs.length >= ROWS_PER_CLASS) docs = docs.slice(0, ROWS_PER_CLASS - 1);
    this.#transaction(() => {
      this.#deleteRows(base);
      this.#statement(
        `INSERT OR REPLACE INTO classes(course_name, material_name, started_at, ended_at,
           line_count, alert_count, has_notes, source, id, row_base, signature)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '')`,
      ).run(...listedFacts(row), row.id, base);
    });
    const insertDoc = this.#statement(
      'INSERT INTO docs(rowid, kind, line_id, timestamp, text) VALUES (?, ?, ?, ?, ?)',
    );
    const insertTerms = this.#statement('INSERT INTO docs_fts(rowid, terms) VALUES (?, ?)');
    const counts = new Map<string, number>();
    for (let start = 0; start < docs.length; start += ROWS_PER_SLICE) {
      if (start > 0) await yieldToEventLoop();
      this.#transaction(() => {
        const end = Math.min(docs.length, start + ROWS_PER_SLICE);
        for (let position = start; position < end; position += 1) {
          const doc = docs[position]!;
          const rowid = base + position + 1;
          const terms = indexTerms(doc.text);
          insertDoc.run(rowid, KIND_CODES[doc.kind], doc.lineId, doc.timestamp, doc.text);
          insertTerms.run(rowid, terms);
          countTerms(terms, counts);
        }
      });
    }
    await yieldToEventLoop();
    this.#transaction(() => {
      this.#addTermCounts(counts, 1);
      this.#statement('UPDATE classes SET signature = ? WHERE id = ?').run(signature, row.id);
    });
  }

  /** Updates the listed facts of a class without touching its texts. */
  updateClassRow(row: ClassRow): void {
    this.#classCache = null;
    this.#statement(
      `UPDATE classes SET course_name = ?, material_name = ?, started_at = ?, ended_at = ?,
         line_count = ?, alert_count = ?, has_notes = ?, source = ? WHERE id = ?`,
    ).run(...listedFacts(row), row.id);
  }

  /** Removes a class and its texts. */
  removeClass(id: string): void {
    const existing = this.#statement('SELECT row_base FROM classes WHERE id = ?').get(id) as
      | { row_base: number }
      | undefined;
    if (!existing) return;
    this.#transaction(() => {
      this.#deleteRows(Number(existing.row_base));
      this.#statement('DELETE FROM classes WHERE id = ?').run(id);
    });
  }

  /**
   * Full-text search over lines, notes and material. Every part of the query must match. The
   * newest {@link SEARCH_CANDIDATES} matching texts are ranked (BM25-like: occurrences and text
   * length) and the best `limit` returned, each with a snippet.
   *
   * How the matches are found. Each part stands on terms every match must hold (the pairs of
   * its CJK characters, the words a word prefix stands for). The rarest of them (by the terms
   * table) is read — or the two rarest together when both are fairly rare, an AND of two short
   * lists whatever the query's length — and the texts found are checked against the whole query
   * in JavaScript. When that is not conclusive (very common terms, or parts mixing CJK and
   * words), FTS5 runs the whole query newest first and stops after enough matches.
   */
  search(parts: readonly QueryPart[], options: SearchOptions): SearchHit[] {
    if (parts.length === 0) return [];
    const expressions: string[] = [];
    // Sub-expressions every match holds, with about how many texts hold each.
    const groups = new Map<string, number>();
    for (const part of parts) {
      const expansion =
        part.terms.length === 1 && part.prefix ? this.#expand(part.terms[0]!) : undefined;
      if (expansion === null || expansion === undefined) {
        expressions.push(phraseOf(part));
        if (part.kind === 'cjk') {
          for (const term of part.prefix ? [] : part.terms)
            groups.set(`"${term}"`, this.#termDocs(term));
        }
        continue;
      }
      if (expansion.length === 0) return [];
      const expression = `(${expansion.map((term) => `"${term.term}"`).join(' OR ')})`;
      expressions.push(expression);
      groups.set(
        expression,
        expansion.reduce((sum, term) => sum + term.docs, 0),
      );
    }
    const courseBases = options.course === undefined ? null : this.#courseBases(options.course);
    if (courseBases !== null && courseBases.size === 0) return [];

    const match = expressions.join(' AND ');
    let rows: DocRow[] | null = null;
    if (!parts.some((part) => part.kind === 'mixed')) {
      const rarest = [...groups].sort((a, b) => a[1] - b[1]);
      const single = rarest.slice(0, 1).map(([group]) => group);
      const pair = rarest.length >= 2 ? [rarest[0]![0], rarest[1]![0]].join(' AND ') : null;
      // The rarest term alone, or the two rarest together (their AND is short when both are
      // fairly rare, e.g. the pairs across word boundaries of a long Chinese query; when the
      // second is common, the rarest alone is read faster and usually holds the phrase).
      const pairFirst = rarest.length >= 2 && rarest[1]![1] < PAIR_FIRST_DOCS;
      const probes = (pairFirst ? [pair, single[0]] : [single[0], pair]).filter(
        (probe): probe is string => probe !== null && probe !== undefined && probe !== match,
      );
      for (const probe of probes) {
        const found = this.#matchingDocs(probe, PROBE_ROWS, null);
        const matching = found.filter((row) => {
          if (courseBases && !courseBases.has(baseOf(row.rowid))) return false;
          row.normalized = normalizeForSearch(row.text);
          return countMatches(row.normalized, parts).every((count) => count > 0);
        });
        // Conclusive when the probe read every text holding its terms, or found enough matches
        // among the newest of them (every newer match is among those read).
        if (found.length < PROBE_ROWS || matching.length >= options.limit) {
          rows = matching;
          break;
        }
      }
    }
    rows ??= this.#matchingDocs(match, SEARCH_CANDIDATES, courseBases);
    rows = rows.slice(0, SEARCH_CANDIDATES);

    const ranked = rows
      .map((row) => {
        const normalized = row.normalized ?? normalizeForSearch(row.text);
        const kind = KIND_NAMES[row.kind] ?? 'line';
        return {
          row,
          kind,
          score: relevance(countMatches(normalized, parts), row.text.length, TYPICAL_LENGTH[kind]),
        };
      })
      .sort((a, b) => b.score - a.score || b.row.rowid - a.row.rowid)
      .slice(0, options.limit);
    const classes = this.#classesByBase();
    const hits: SearchHit[] = [];
    for (const { row, kind } of ranked) {
      const owner = classes.get(baseOf(row.rowid));
      if (!owner) continue;
      hits.push({
        class_id: owner.id,
        course_name: owner.course_name,
        started_at: owner.started_at,
        kind,
        ...(row.line_id === null ? {} : { line_id: row.line_id }),
        ...(row.timestamp === null || row.timestamp === '' ? {} : { timestamp: row.timestamp }),
        snippet: snippet(row.text, findMatches(row.text, parts).ranges),
      });
    }
    return hits;
  }

  /** Closes the file. */
  close(): void {
    this.#statements.clear();
    if (this.#db.isOpen) this.#db.close();
  }

  // The terms starting with `prefix` that some text holds; null when there are too many.
  #expand(prefix: string): Array<{ term: string; docs: number }> | null {
    const rows = this.#statement(
      'SELECT term, docs FROM terms WHERE term >= ? AND term < ? AND docs > 0 ORDER BY term LIMIT ?',
      true,
    ).all(prefix, `${prefix}\u{10FFFF}`, MAX_EXPANSIONS + 1) as unknown as Array<[string, number]>;
    if (rows.length > MAX_EXPANSIONS) return null;
    return rows.map(([term, docs]) => ({ term, docs: Number(docs) }));
  }

  // About how many texts hold a term (0 when none).
  #termDocs(term: string): number {
    const row = this.#statement('SELECT docs FROM terms WHERE term = ?', true).get(term) as
      | [number]
      | undefined;
    return row ? Number(row[0]) : 0;
  }

  // The newest `limit` texts matching an FTS5 expression (of the given classes), in one query.
  #matchingDocs(match: string, limit: number, bases: ReadonlySet<number> | null): DocRow[] {
    const statement = bases
      ? this.#statement(
          `SELECT d.rowid, d.kind, d.line_id, d.timestamp, d.text
             FROM docs_fts f JOIN docs d ON d.rowid = f.rowid
            WHERE docs_fts MATCH ?
              AND (f.rowid - f.rowid % ${ROWS_PER_CLASS}) IN (SELECT value FROM json_each(?))
            ORDER BY f.rowid DESC LIMIT ?`,
          true,
        )
      : this.#statement(
          `SELECT d.rowid, d.kind, d.line_id, d.timestamp, d.text
             FROM docs_fts f JOIN docs d ON d.rowid = f.rowid
            WHERE docs_fts MATCH ? ORDER BY f.rowid DESC LIMIT ?`,
          true,
        );
    const found = (bases
      ? statement.all(match, JSON.stringify([...bases]), limit)
      : statement.all(match, limit)) as unknown as Array<
      [number, number, number | null, string | null, string]
    >;
    return found.map(([rowid, kind, lineId, timestamp, text]) => ({
      rowid: Number(rowid),
      kind: Number(kind),
      line_id: lineId === null ? null : Number(lineId),
      timestamp,
      text,
    }));
  }

  #courseBases(course: string): Set<number> {
    const bases = new Set<number>();
    for (const [base, row] of this.#classesByBase())
      if (row.course_name === course) bases.add(base);
    return bases;
  }

  // Every class by its row base, read once after each change (a term has about a thousand).
  #classesByBase(): Map<number, ClassRecordRow> {
    if (this.#shared) {
      // Another process writes the index: its commits change the data version.
      const [version] = this.#statement('PRAGMA data_version', true).get() as unknown as [number];
      if (version !== this.#dataVersion) this.#classCache = null;
      this.#dataVersion = version;
    }
    if (!this.#classCache) {
      const rows = this.#statement('SELECT * FROM classes').all();
      this.#classCache = new Map(
        rows.map((row) => {
          const record = toClassRow(row);
          return [record.row_base, record];
        }),
      );
    }
    return this.#classCache;
  }

  // A free block of row numbers, from the class's start time so rows are in start order.
  #freeRowBase(startedAt: string): number {
    const seconds = Math.max(0, Math.floor((Date.parse(startedAt) || 0) / 1000));
    let base = seconds * ROWS_PER_CLASS;
    const taken = this.#statement('SELECT 1 FROM classes WHERE row_base = ?');
    while (taken.get(base)) base += ROWS_PER_CLASS;
    return base;
  }

  #deleteRows(base: number): void {
    const deleteTerms = this.#statement('DELETE FROM docs_fts WHERE rowid = ?');
    const rows = this.#statement(
      'SELECT rowid, text FROM docs WHERE rowid > ? AND rowid < ?',
      true,
    ).all(base, base + ROWS_PER_CLASS) as unknown as Array<[number, string]>;
    const counts = new Map<string, number>();
    for (const [rowid, text] of rows) {
      deleteTerms.run(rowid);
      countTerms(indexTerms(text), counts);
    }
    this.#addTermCounts(counts, -1);
    this.#statement('DELETE FROM docs WHERE rowid > ? AND rowid < ?').run(
      base,
      base + ROWS_PER_CLASS,
    );
  }

  // How many texts hold each term, kept up to date by class (within a transaction).
  #addTermCounts(counts: ReadonlyMap<string, number>, sign: 1 | -1): void {
    const add = this.#statement(
      `INSERT INTO terms(term, docs) VALUES (?, ?)
         ON CONFLICT(term) DO UPDATE SET docs = max(0, docs + excluded.docs)`,
    );
    for (const [term, count] of counts) add.run(term, sign * count);
  }

  #transaction(work: () => void): void {
    this.#classCache = null;
    this.#db.exec('BEGIN IMMEDIATE');
    try {
      work();
      this.#db.exec('COMMIT');
    } catch (error) {
      if (this.#db.isTransaction) this.#db.exec('ROLLBACK');
      throw error;
    }
  }
}

interface DocRow {
  rowid: number;
  kind: number;
  line_id: number | null;
  timestamp: string | null;
  text: string;
  normalized?: string;
}

/** The listed facts of a class, in the column order the statements above use. */
function listedFacts(row: ClassRow): Array<string | number | null> {
  return [
    row.course_name,
    row.material_name,
    row.started_at,
    row.ended_at,
    row.line_count,
    row.alert_count,
    row.has_notes ? 1 : 0,
    row.source ? JSON.stringify(row.source) : null,
  ];
}

/** The `source` column: the JSON of a {@link ClassSource}, or null. */
function parseSource(value: unknown): ClassSource | null {
  if (typeof value !== 'string') return null;
  try {
    const parsed = ClassSourceSchema.safeParse(JSON.parse(value));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** Adds each term of a text (as {@link indexTerms} gives them) to `counts`. */
function countTerms(terms: string, counts: Map<string, number>): void {
  if (terms === '') return;
  for (const term of terms.split(' ')) counts.set(term, (counts.get(term) ?? 0) + 1);
}

function baseOf(rowid: number): number {
  return rowid - (rowid % ROWS_PER_CLASS);
}

function configure(db: DatabaseSync): void {
  // WAL: searches never wait for a class being written; NORMAL: a power cut may lose the last
  // transactions (they are re-indexed from the folders) but never damages the file.
  // 16 MiB of page cache keeps the index's inner pages of the terms searched most.
  db.exec(
    'PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000; PRAGMA cache_size = -16000;',
  );
}
