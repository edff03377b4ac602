import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type ClassRow,
  INDEX_SCHEMA_VERSION,
  type IndexDoc,
  LibraryIndex,
  SEARCH_CANDIDATES,
} from './library-index.ts';
import { indexTerms, parseQuery, type QueryPart } from './search-terms.ts';

let folder: string;
let index: LibraryIndex;
beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'library-index-'));
  index = LibraryIndex.open(join(folder, 'library.db')).index;
});
afterEach(async () => {
  index.close();
  await rm(folder, { recursive: true, force: true });
});

const row = (id: string, course: string, day: number): ClassRow => ({
  id,
  course_name: course,
  material_name: '',
  started_at: new Date(2026, 2, day, 10).toISOString(),
  ended_at: new Date(2026, 2, day, 11).toISOString(),
  line_count: 0,
  alert_count: 0,
  has_notes: false,
  source: null,
});
const lines = (texts: string[]): IndexDoc[] =>
  texts.map((text, position) => ({
    kind: 'line',
    lineId: position + 1,
    timestamp: '10:00:00',
    text,
  }));

// A small deterministic corpus: common words in most lines (the index's FTS path), rarer ones
// in a few (the rare-term path), English words among the Chinese.
function corpus(seed: number, count: number): string[] {
  let state = seed;
  const random = () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
  const common = ['我们', '这个', '就是', '矩阵', '然后', 'the', 'matrix'];
  const rare = ['特征值', '线性无关', 'eigenvalue', '行列式', 'rank', '秩'];
  const out: string[] = [];
  for (let index = 0; index < count; index += 1) {
    let text = '';
    for (let word = 0; word < 6; word += 1) {
      const list = random() < 0.85 ? common : rare;
      const pick = list[Math.floor(random() * list.length)]!;
      text += /^[a-z]/.test(pick) ? ` ${pick} ` : pick;
    }
    out.push(`${text.trim()}。`);
  }
  return out;
}

describe('search', () => {
  const classes = [
    { row: row('20260301-100000-aaaa', '线性代数', 1), texts: corpus(1, 400) },
    { row: row('20260302-100000-bbbb', '线性代数', 2), texts: corpus(2, 400) },
    { row: row('20260303-100000-cccc', '数据结构', 3), texts: corpus(3, 400) },
  ];
  beforeEach(async () => {
    for (const entry of classes) await index.replaceClass(entry.row, lines(entry.texts), 'sig');
  });

  /** True when a text's terms hold the part's phrase (its last term as a prefix when so marked). */
  const holds = (text: string, part: QueryPart) => {
    const terms = indexTerms(text).split(' ');
    return terms.some((_, start) =>
      part.terms.every((term, offset) => {
        const actual = terms[start + offset];
        if (actual === undefined) return false;
        return offset === part.terms.length - 1 && part.prefix
          ? actual.startsWith(term)
          : actual === term;
      }),
    );
  };

  /** Every (class, line) a query should find, newest first, by a plain scan. */
  const reference = (query: string, course?: string) => {
    const parts = parseQuery(query);
    return classes
      .filter((entry) => course === undefined || entry.row.course_name === course)
      .flatMap((entry) =>
        entry.texts
          .map((text, position) => ({ text, key: `${entry.row.id}#${position + 1}` }))
          .filter(({ text }) => parts.every((part) => holds(text, part)))
          .map(({ key }) => key),
      )
      .reverse();
  };
  const found = (query: string, options: { course?: string; limit?: number } = {}) =>
    index
      .search(parseQuery(query), { limit: options.limit ?? 100, ...options })
      .map((hit) => `${hit.class_id}#${hit.line_id}`);

  it.each([
    ['秩'],
    ['矩阵'],
    ['特征值'],
    ['线性无关'],
    ['阵秩'],
    ['值行列式'],
    ['eigen'],
    ['rank 秩'],
    ['matrix 特征值'],
    ['值eigenvalue'],
    ['不存在的词'],
  ])('finds what a scan finds for %s', (query) => {
    const expected = reference(query);
    const hits = found(query);
    if (expected.length <= 100) expect(hits.sort()).toEqual(expected.sort());
    else {
      // More matches than asked for: `limit` of them, among the newest candidates.
      expect(hits).toHaveLength(100);
      expect(hits.every((hit) => expected.includes(hit))).toBe(true);
    }
  });

  it('ranks among the newest matches when a query matches very many lines', () => {
    const expected = reference('我们');
    expect(expected.length).toBeGreaterThan(SEARCH_CANDIDATES);
    const newest = expected.slice(0, SEARCH_CANDIDATES);
    expect(found('我们').every((hit) => newest.includes(hit))).toBe(true);
  });

  it('keeps to one course', () => {
    const hits = found('特征值', { course: '数据结构' });
    expect(hits.sort()).toEqual(reference('特征值', '数据结构').sort());
    expect(found('矩阵', { course: '数据结构' }).every((hit) => hit.startsWith('20260303'))).toBe(
      true,
    );
    expect(found('矩阵', { course: '没有这门课' })).toEqual([]);
  });

  it('lists classes newest first, by course, and forgets removed ones', () => {
    expect(index.listClasses({ offset: 0, limit: 10 }).items.map((item) => item.id)).toEqual([
      '20260303-100000-cccc',
      '20260302-100000-bbbb',
      '20260301-100000-aaaa',
    ]);
    expect(index.listClasses({ offset: 1, limit: 1, course: '线性代数' })).toMatchObject({
      total: 2,
      items: [{ id: '20260301-100000-aaaa' }],
    });
    index.removeClass('20260303-100000-cccc');
    expect(found('特征值').some((hit) => hit.startsWith('20260303'))).toBe(false);
    expect(index.listClasses({ offset: 0, limit: 10 }).total).toBe(2);
  });

  it('replaces a class’s texts when it is indexed again', async () => {
    await index.replaceClass(classes[0]!.row, lines(['只剩这一行：哈希表']), 'sig2');
    expect(found('哈希表')).toEqual(['20260301-100000-aaaa#1']);
    expect(found('特征值').some((hit) => hit.startsWith('20260301'))).toBe(false);
    expect(index.signatures().get('20260301-100000-aaaa')).toBe('sig2');
  });
});

describe('open', () => {
  it('keeps a good file and replaces a damaged, foreign or older one', async () => {
    const path = join(folder, 'library.db');
    await index.replaceClass(row('20260301-100000-aaaa', '线性代数', 1), lines(['矩阵']), 'sig');
    index.close();
    let opened = LibraryIndex.open(path);
    expect(opened.reset).toBeNull();
    expect(opened.index.signatures().size).toBe(1);
    opened.index.close();

    const old = new DatabaseSync(path);
    old
      .prepare("UPDATE meta SET value = ? WHERE key = 'schema_version'")
      .run(String(INDEX_SCHEMA_VERSION - 1));
    old.close();
    opened = LibraryIndex.open(path);
    expect(opened.reset).toBe('old-schema');
    expect(opened.index.signatures().size).toBe(0);
    opened.index.close();

    await writeFile(path, 'plain text, not SQLite');
    opened = LibraryIndex.open(path);
    expect(opened.reset).toBe('damaged');
    opened.index.close();

    await rm(path);
    opened = LibraryIndex.open(path);
    expect(opened.reset).toBe('missing');
    index = opened.index;
  });
});
