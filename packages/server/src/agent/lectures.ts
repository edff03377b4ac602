// The student's lectures as the class tools read them: every class kept in data/classes, the
// running class (its folder plus the live transcript, which holds the lines not yet folded
// into the folder), the class material by page and the notes. Read-only, from the files alone,
// so the backend and a separate process (`class-assistant-backend mcp`) read the same way while
// the backend writes. Search across classes goes through the library's index; the running
// class is not in the index until it ends, so its lines are searched here directly.
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ToolError } from '@class-assistant/agent-std';
import {
  parseTranscript,
  type TranscriptDocument,
  type TranscriptEntry,
} from '@class-assistant/transcript-core';
import { DATA_FOLDER, dataPaths } from '../data-folder.ts';
import { isPlainFileName } from '../files.ts';
import { passages } from '../library/class-documents.ts';
import {
  isClassId,
  mergeEntries,
  newClassId,
  parseHeaderTime,
  readClassFolder,
} from '../library/class-folder.ts';
import type { ClassRow, LibraryIndex, SearchHit } from '../library/library-index.ts';
import { normalizeForSearch, parseQuery, type QueryPart } from '../library/search-terms.ts';
import { countMatches, findMatches, MARK_CLOSE, MARK_OPEN, snippet } from '../library/snippet.ts';
import { splitMaterialPages } from '../llm/material-context.ts';
import { localDateTime } from '../material/cite-store.ts';
import { readClassContent } from './read-view.ts';

/** Search and list across classes: the library (in the backend) or its index read from disk. */
export interface LectureIndex {
  search(
    query: string,
    options: { course?: string; limit: number },
  ): { hits: SearchHit[]; indexing: { indexed: number; total: number } | null };
  list(options: { offset: number; limit: number; course?: string }): {
    total: number;
    items: ClassRow[];
  };
}

/** One class as the tools see it. */
export interface LectureClass {
  /** Its library id; null for a live transcript without a class folder (an earlier version's). */
  id: string | null;
  courseName: string;
  /** The material's file name under data/cite when the class began ('' without one). */
  materialName: string;
  /** Local `YYYY-MM-DD HH:MM` of its start ('' when unknown). */
  date: string;
  /** True while the class is being monitored. */
  live: boolean;
  /** True for the class the live transcript holds (the running class, or the last one). */
  current: boolean;
  /** Every line, folded ones included. */
  entries: TranscriptEntry[];
  material: string | null;
  notes: string | null;
}

/** A search hit as a model reads it: plain text, where it is (class, time or page). */
interface LectureHit {
  class_id: string | null;
  course_name: string;
  date: string;
  /** The class the live transcript holds (the running or last class). */
  current: boolean;
  kind: 'line' | 'material' | 'notes';
  line_id?: number;
  time?: string;
  page?: number;
  text: string;
}

/** Limits on what one tool result holds (a model reads all of it). */
const LECTURE_LIMITS = {
  /** Characters of one material page. */
  pageChars: 8000,
  /** Characters of notes. */
  notesChars: 16_000,
  /** Material and notes hits always shown from one class, beside its lines. */
  materialHits: 3,
  notesHits: 2,
} as const;

/** Local `YYYY-MM-DD HH:MM` of an ISO time ('' when it is none). */
function localMinute(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? '' : localDateTime(date).slice(0, 16);
}

/** A snippet of the library (HTML, matches in <mark>) as plain text. */
function plainSnippet(html: string): string {
  return html
    .replaceAll(MARK_OPEN, '')
    .replaceAll(MARK_CLOSE, '')
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&quot;', '"')
    .replaceAll('&amp;', '&');
}

/** True when the text holds every part of the query (as the index matches). */
function matches(text: string, parts: readonly QueryPart[]): boolean {
  return countMatches(normalizeForSearch(text), parts).every((count) => count > 0);
}

/** The pages of a material; a text without page markers is one page. */
function materialPages(text: string): Array<{ page: number; text: string }> {
  const pages = splitMaterialPages(text).filter((page) => page.page > 0);
  return pages.length > 0 ? pages : [{ page: 1, text: text.trim() }];
}

/** `HH:MM[:SS]` as `HH:MM:SS`, comparable as text with transcript times. */
function clockTime(value: string): string {
  const [hours = '0', minutes = '0', seconds = '00'] = value.split(':');
  return `${hours.padStart(2, '0')}:${minutes.padStart(2, '0')}:${seconds.padStart(2, '0')}`;
}

/** `[start, end)` as a list. */
function range(start: number, end: number): number[] {
  return Array.from({ length: Math.max(0, end - start) }, (_, index) => start + index);
}

function notFound(message: string, field?: string): ToolError {
  return new ToolError('TOOL_NOT_FOUND', message, field ? { field } : {});
}

function cut(text: string, limit: number): { text: string; truncated: boolean } {
  if (text.length <= limit) return { text, truncated: false };
  return { text: `${text.slice(0, limit)}\n…`, truncated: true };
}

/** The student's lectures, for the class tools. */
export interface Lectures {
  readonly dataDir: string;
  /** A class (default: the one the live transcript holds). */
  read(classId?: string): Promise<LectureClass>;
  list(options: { course?: string; limit: number }): Promise<{
    total: number;
    classes: Array<{
      class_id: string;
      course_name: string;
      material_name: string;
      date: string;
      ended: boolean;
      live: boolean;
      line_count: number;
      has_notes: boolean;
    }>;
  }>;
  search(
    query: string,
    options: { classId?: string; course?: string; limit: number },
  ): Promise<{ hits: LectureHit[]; current_matches: number; note?: string }>;
  lines(options: {
    classId?: string;
    from?: string;
    to?: string;
    aroundLineId?: number;
    limit: number;
  }): Promise<{
    class_id: string | null;
    course_name: string;
    date: string;
    live: boolean;
    total_lines: number;
    more_before: number;
    more_after: number;
    lines: Array<{ id: number; time: string; text: string }>;
  }>;
  /**
   * One page of a material. Without `page` (and without `material`): the page the teacher is on
   * in the running class (the page tracker's); an error when that is not known.
   */
  materialPage(options: { page?: number; material?: string }): Promise<{
    material: string;
    class_id?: string;
    page: number;
    pages: number;
    text: string;
    truncated: boolean;
  }>;
  notes(options: { classId?: string; filename?: string }): Promise<{
    class_id?: string;
    filename?: string;
    course_name: string;
    date: string;
    notes: string;
    truncated: boolean;
  }>;
}

/**
 * The lectures of a data folder. `index` searches and lists across classes (the library, or
 * its index opened for reading); without one the class folders are read and scanned.
 *
 * @example
 * const lectures = createLectures({ dataDir, index: library });
 * const { hits } = await lectures.search('堆', { limit: 10 });
 */
export function createLectures(options: {
  dataDir: string;
  index: LectureIndex | null;
  /** The page the teacher is on in the running class (null when none is known). */
  currentPage?: () => number | null;
}): Lectures {
  const { dataDir, index } = options;
  const { classes: classesDir, cite: citeDir, summaries: summariesDir } = dataPaths(dataDir);
  const part = {
    liveTranscript: DATA_FOLDER.liveTranscript.name,
    currentMaterial: DATA_FOLDER.currentMaterial.name,
    cite: DATA_FOLDER.cite.name,
    summaries: DATA_FOLDER.summaries.name,
  };

  const classNames = async (): Promise<string[]> =>
    (await readdir(classesDir).catch(() => [] as string[])).filter(isClassId).sort().reverse();

  /** The live transcript and the class folder it belongs to (matched as the library does). */
  const liveTranscript = async (): Promise<{ id: string | null; document: TranscriptDocument }> => {
    const document = parseTranscript(
      (await readClassContent(dataDir, [part.liveTranscript])) ?? '',
    );
    const startedAt = parseHeaderTime(document.header.startedAt);
    if (!startedAt) return { id: null, document };
    // The header names the second the class began; of the classes begun in that second (a
    // quick restart), the live transcript is the newest one's.
    const prefix = newClassId(startedAt, () => '');
    let match: { id: string; startedAt: string } | null = null;
    for (const id of (await classNames()).filter((name) => name.startsWith(prefix))) {
      const content = await readClassFolder(join(classesDir, id), id);
      if (!content || content.meta.course_name !== (document.header.courseName ?? '')) continue;
      if (!match || content.meta.started_at > match.startedAt) {
        match = { id, startedAt: content.meta.started_at };
      }
    }
    return { id: match?.id ?? null, document };
  };

  const read = async (classId?: string): Promise<LectureClass> => {
    if (classId !== undefined && !isClassId(classId)) {
      throw new ToolError(
        'TOOL_BAD_INPUT',
        `"${classId}" is not a class id (ids look like 20261123-101500-k3f9; class_list gives them)`,
        { field: 'class_id' },
      );
    }
    const live = await liveTranscript();
    const id = classId ?? live.id;
    if (id === null) {
      // An earlier version's live transcript without a class folder, or no class at all.
      const header = live.document.header;
      return {
        id: null,
        courseName: header.courseName ?? '',
        materialName: header.materialName ?? '',
        date: header.startedAt?.slice(0, 16) ?? '',
        live: false,
        current: true,
        entries: live.document.entries,
        material: (await readClassContent(dataDir, [part.currentMaterial])) || null,
        notes: null,
      };
    }
    const content = await readClassFolder(join(classesDir, id), id);
    if (!content) {
      throw notFound(`no class ${id} in the library (class_list lists the classes)`, 'class_id');
    }
    const current = id === live.id;
    return {
      id,
      courseName: content.meta.course_name,
      materialName: content.meta.material_name,
      date: localMinute(content.meta.started_at),
      live: current && content.meta.ended_at === null,
      current,
      entries: current
        ? mergeEntries(content.transcript.entries, live.document.entries).entries
        : content.transcript.entries,
      material: content.material,
      notes: content.notes,
    };
  };

  const hitOf = (lecture: LectureClass) => ({
    class_id: lecture.id,
    course_name: lecture.courseName,
    date: lecture.date,
    current: lecture.current,
  });

  /** Every match in one class: lines in time order, then material pages, then notes. */
  const scan = (lecture: LectureClass, parts: readonly QueryPart[]) => {
    const lines: LectureHit[] = [];
    for (const entry of lecture.entries) {
      if (!matches(entry.text, parts)) continue;
      lines.push({
        ...hitOf(lecture),
        kind: 'line',
        line_id: entry.id,
        ...(entry.time ? { time: entry.time } : {}),
        text: entry.text,
      });
    }
    const excerpt = (text: string) =>
      plainSnippet(snippet(text, findMatches(text, parts).ranges, 200));
    const material = (lecture.material ? materialPages(lecture.material) : [])
      .filter((page) => matches(page.text, parts))
      .map(
        (page): LectureHit => ({
          ...hitOf(lecture),
          kind: 'material',
          page: page.page,
          text: excerpt(page.text),
        }),
      );
    const notes = passages(lecture.notes ?? '')
      .filter((text) => matches(text, parts))
      .map((text): LectureHit => ({ ...hitOf(lecture), kind: 'notes', text: excerpt(text) }));
    return { lines, material, notes, total: lines.length + material.length + notes.length };
  };

  /** At most `limit` hits of one class: its first material and notes hits, then its lines. */
  const pick = (found: ReturnType<typeof scan>, limit: number): LectureHit[] => {
    const material = found.material.slice(0, LECTURE_LIMITS.materialHits);
    const notes = found.notes.slice(0, LECTURE_LIMITS.notesHits);
    const room = Math.max(0, limit - material.length - notes.length);
    return [...found.lines.slice(0, room), ...material, ...notes].slice(0, limit);
  };

  /** The page of a material passage the index found (its text without the `…` of a snippet). */
  const pageOf = (material: string | null, passage: string): number | undefined => {
    const core = passage.replace(/^…|…$/g, '').trim().slice(0, 60);
    if (!material || core === '') return undefined;
    const squeeze = (text: string) => text.replace(/\s+/g, ' ');
    return materialPages(material).find((page) => squeeze(page.text).includes(squeeze(core)))?.page;
  };

  const fromIndex = async (hit: SearchHit, materials: Map<string, string | null>) => {
    const text = plainSnippet(hit.snippet);
    let page: number | undefined;
    if (hit.kind === 'material') {
      if (!materials.has(hit.class_id)) {
        const content = await readClassFolder(join(classesDir, hit.class_id), hit.class_id);
        materials.set(hit.class_id, content?.material ?? null);
      }
      page = pageOf(materials.get(hit.class_id) ?? null, text);
    }
    return {
      class_id: hit.class_id,
      course_name: hit.course_name,
      date: localMinute(hit.started_at),
      current: false,
      kind: hit.kind,
      ...(hit.line_id === undefined ? {} : { line_id: hit.line_id }),
      ...(hit.timestamp === undefined ? {} : { time: hit.timestamp }),
      ...(page === undefined ? {} : { page }),
      text,
    } satisfies LectureHit;
  };

  const parse = (query: string): QueryPart[] => {
    const parts = parseQuery(query);
    if (parts.length === 0) {
      throw new ToolError(
        'TOOL_BAD_INPUT',
        `the query "${query}" has no letters or digits to look for`,
        { field: 'query' },
      );
    }
    return parts;
  };

  const resolveMaterial = async (
    name: string | undefined,
  ): Promise<{ name: string; classId?: string; text: string }> => {
    const available = async () => {
      const files = (await readdir(citeDir).catch(() => [] as string[]))
        .filter((file) => file.endsWith('.txt'))
        .sort()
        .reverse();
      return files.length > 0
        ? `materials: ${files.slice(0, 10).join(', ')}${files.length > 10 ? ', …' : ''}`
        : 'no material has been uploaded';
    };
    if (name === undefined || isClassId(name)) {
      const lecture = await read(name);
      if (!lecture.material?.trim()) {
        throw notFound(
          `${lecture.id ? `class ${lecture.id}` : 'the current class'} has no material (${await available()})`,
          'material',
        );
      }
      return {
        name: lecture.materialName || 'material',
        ...(lecture.id ? { classId: lecture.id } : {}),
        text: lecture.material,
      };
    }
    const files = (await readdir(citeDir).catch(() => [] as string[]))
      .filter((file) => isPlainFileName(file, '.txt'))
      .sort()
      .reverse();
    const wanted = normalizeForSearch(name.trim()).replace(/\.(txt|pptx|pdf|docx)$/, '');
    const simple = (file: string) => normalizeForSearch(file).replace(/\.txt$/, '');
    const file =
      files.find((candidate) => simple(candidate) === wanted) ??
      files.find((candidate) => simple(candidate).replace(/_\d{8}_\d{6}(_\d+)?$/, '') === wanted) ??
      files.find((candidate) =>
        simple(candidate).replace(/_/g, ' ').includes(wanted.replace(/_/g, ' ')),
      );
    if (!file) throw notFound(`no material matches "${name}" (${await available()})`, 'material');
    return { name: file, text: (await readClassContent(dataDir, [part.cite, file])) ?? '' };
  };

  return {
    dataDir,
    read,

    async list({ course, limit }) {
      const live = await liveTranscript();
      if (index) {
        const { total, items } = index.list({
          offset: 0,
          limit,
          ...(course === undefined ? {} : { course }),
        });
        const classes = [];
        for (const row of items) {
          const isLive = row.id === live.id && row.ended_at === null;
          classes.push({
            class_id: row.id,
            course_name: row.course_name,
            material_name: row.material_name,
            date: localMinute(row.started_at),
            ended: row.ended_at !== null,
            live: isLive,
            line_count: isLive ? (await read(row.id)).entries.length : row.line_count,
            has_notes: row.has_notes,
          });
        }
        return { total, classes };
      }
      const classes = [];
      let total = 0;
      for (const id of await classNames()) {
        const content = await readClassFolder(join(classesDir, id), id);
        if (!content || (course !== undefined && content.meta.course_name !== course)) continue;
        total += 1;
        if (classes.length >= limit) continue;
        const lecture = await read(id);
        classes.push({
          class_id: id,
          course_name: lecture.courseName,
          material_name: lecture.materialName,
          date: lecture.date,
          ended: content.meta.ended_at !== null,
          live: lecture.live,
          line_count: lecture.entries.length,
          has_notes: lecture.notes !== null,
        });
      }
      return { total, classes };
    },

    async search(query, { classId, course, limit }) {
      const parts = parse(query);
      if (classId !== undefined) {
        const found = scan(await read(classId), parts);
        return { hits: pick(found, limit), current_matches: found.total };
      }
      const current = await read();
      const inCourse = course === undefined || current.courseName === course;
      const found = inCourse
        ? scan(current, parts)
        : { lines: [], material: [], notes: [], total: 0 };
      const others: LectureHit[] = [];
      let note: string | undefined;
      if (index) {
        const result = index.search(query, {
          limit: limit * 2,
          ...(course === undefined ? {} : { course }),
        });
        const materials = new Map<string, string | null>();
        for (const hit of result.hits) {
          if (hit.class_id === current.id || others.length >= limit) continue;
          others.push(await fromIndex(hit, materials));
        }
        if (result.indexing) {
          note = `the library is still indexing (${result.indexing.indexed} of ${result.indexing.total} classes): older classes may be missing`;
        }
      } else {
        for (const id of await classNames()) {
          if (id === current.id || others.length >= limit) continue;
          const lecture = await read(id);
          if (course !== undefined && lecture.courseName !== course) continue;
          others.push(...pick(scan(lecture, parts), limit - others.length));
        }
      }
      return {
        hits: [...pick(found, limit), ...others],
        current_matches: found.total,
        ...(note ? { note } : {}),
      };
    },

    async lines({ classId, from, to, aroundLineId, limit }) {
      const lecture = await read(classId);
      const entries = lecture.entries;
      // Positions of the lines shown (in the window they need not be next to each other: a
      // class past midnight starts again at 00:00).
      let shown: number[];
      if (aroundLineId !== undefined) {
        const at = entries.findIndex((entry) => entry.id === aroundLineId);
        if (at === -1) {
          throw notFound(
            `line ${aroundLineId} is not in ${lecture.id ? `class ${lecture.id}` : 'the current class'} (it has lines 1 to ${entries.length})`,
            'around_line_id',
          );
        }
        const start = Math.max(0, Math.min(at - Math.floor(limit / 2), entries.length - limit));
        shown = range(start, Math.min(entries.length, start + limit));
      } else if (from !== undefined || to !== undefined) {
        // Lines in [from, to]; more than `limit`: the first ones after `from`, else the last
        // ones before `to`.
        const low = from === undefined ? '' : clockTime(from);
        const high = to === undefined ? '99' : clockTime(to);
        const inside = entries.flatMap((entry, position) => {
          const time = entry.time ? clockTime(entry.time) : '';
          return time !== '' && time >= low && time <= high ? [position] : [];
        });
        shown = from !== undefined ? inside.slice(0, limit) : inside.slice(-limit);
      } else {
        shown = range(Math.max(0, entries.length - limit), entries.length);
      }
      // Around what is shown; for an empty window, around where it would be.
      const before =
        shown[0] ??
        entries.filter(
          (entry) => from !== undefined && entry.time && clockTime(entry.time) < clockTime(from),
        ).length;
      const after = entries.length - (shown.length > 0 ? shown.at(-1)! + 1 : before);
      return {
        class_id: lecture.id,
        course_name: lecture.courseName,
        date: lecture.date,
        live: lecture.live,
        total_lines: entries.length,
        more_before: before,
        more_after: after,
        lines: shown.map((position) => {
          const entry = entries[position]!;
          return { id: entry.id, time: entry.time ?? '', text: entry.text };
        }),
      };
    },

    async materialPage({ page: asked, material }) {
      const current = material === undefined ? (options.currentPage?.() ?? null) : null;
      if (asked === undefined && current === null) {
        throw new ToolError(
          'TOOL_BAD_INPUT',
          material === undefined
            ? 'the page the teacher is on is not known (no class with material is running, or nothing said matched a page yet): give a page number'
            : 'give a page number: the current page is known for the running class’s material only',
          { field: 'page' },
        );
      }
      const page = asked ?? current!;
      const source = await resolveMaterial(material);
      const pages = materialPages(source.text);
      const found = pages.find((candidate) => candidate.page === page);
      const last = pages.reduce((most, candidate) => Math.max(most, candidate.page), 0);
      if (!found) {
        throw notFound(`"${source.name}" has no page ${page} (pages 1 to ${last})`, 'page');
      }
      const { text, truncated } = cut(found.text, LECTURE_LIMITS.pageChars);
      return {
        material: source.name,
        ...(source.classId ? { class_id: source.classId } : {}),
        page,
        pages: last,
        text,
        truncated,
      };
    },

    async notes({ classId, filename }) {
      if (filename !== undefined) {
        if (!isPlainFileName(filename, '.md')) {
          throw new ToolError(
            'TOOL_BAD_INPUT',
            `"${filename}" is not a notes file name (a .md name in data/summaries)`,
            { field: 'filename' },
          );
        }
        const text = await readClassContent(dataDir, [part.summaries, filename]);
        if (text === undefined) {
          const names = (await readdir(summariesDir).catch(() => [] as string[]))
            .filter((name) => name.endsWith('.md'))
            .sort()
            .reverse();
          throw notFound(
            `no notes file ${filename} (${names.length > 0 ? `notes: ${names.slice(0, 10).join(', ')}` : 'no notes have been written'})`,
            'filename',
          );
        }
        const written = await stat(join(summariesDir, filename));
        const { text: notes, truncated } = cut(text, LECTURE_LIMITS.notesChars);
        return {
          filename,
          course_name: filename.replace(/_\d{8}_\d{6}\.md$/, '').replace(/^课堂笔记$/, ''),
          date: localDateTime(written.mtime).slice(0, 16),
          notes,
          truncated,
        };
      }
      const lecture = await read(classId);
      if (lecture.notes === null || lecture.notes.trim() === '') {
        throw notFound(
          `${lecture.id ? `class ${lecture.id}` : 'the current class'} has no notes yet (class_list shows which classes have notes)`,
          'class_id',
        );
      }
      const { text: notes, truncated } = cut(lecture.notes, LECTURE_LIMITS.notesChars);
      return {
        ...(lecture.id ? { class_id: lecture.id } : {}),
        course_name: lecture.courseName,
        date: lecture.date,
        notes,
        truncated,
      };
    },
  };
}

/**
 * The library's index file read by another process (see `LibraryIndex.openForReading`), as a
 * {@link LectureIndex}.
 */
export function lectureIndexOf(index: LibraryIndex): LectureIndex {
  return {
    search: (query, options) => ({
      hits: index.search(parseQuery(query), options),
      indexing: null,
    }),
    list: (options) => index.listClasses(options),
  };
}
