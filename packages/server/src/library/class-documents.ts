// What of a class is searchable: each transcript line, and the notes and material cut into
// passages of about a paragraph (a hit then points at a passage, not at a whole file).
import type { LineExtras } from '../events/live-events.ts';
import type { ClassFolderContent } from './class-folder.ts';
import type { IndexDoc } from './library-index.ts';

/** Longest passage, in characters. */
const PASSAGE_CHARS = 240;
/** Material beyond this many characters is not indexed (a whole textbook would crowd out lines). */
const MATERIAL_INDEX_CHARS = 1_000_000;

/**
 * Cuts a text into passages: lines are gathered up to {@link PASSAGE_CHARS} characters, a blank
 * line or a page marker starts a new passage, longer lines are cut after a sentence's end (or
 * hard at the limit).
 *
 * @example
 * passages('第一段。\n\n第二段。') // ['第一段。', '第二段。']
 */
export function passages(text: string, limit = PASSAGE_CHARS): string[] {
  const result: string[] = [];
  let current = '';
  const flush = () => {
    if (current.trim() !== '') result.push(current.trim());
    current = '';
  };
  for (const rawLine of text.split(/\r?\n|\r/)) {
    const line = rawLine.trim();
    if (line === '' || /^---.*---$/.test(line)) {
      flush();
      if (line !== '') current = line;
      continue;
    }
    let rest = line;
    while ([...current].length + [...rest].length > limit) {
      const room = Math.max(1, limit - [...current].length);
      const head = [...rest].slice(0, room).join('');
      const sentenceEnd = Math.max(
        ...['。', '！', '？', '. ', '! ', '? ', '；', '; '].map((mark) => head.lastIndexOf(mark)),
      );
      const cut =
        sentenceEnd > head.length / 3 ? sentenceEnd + 1 : current === '' ? head.length : 0;
      current += rest.slice(0, cut);
      rest = rest.slice(cut).trimStart();
      flush();
      if (rest === '') break;
    }
    if (rest !== '') current += current === '' ? rest : ` ${rest}`;
  }
  flush();
  return result;
}

/**
 * The texts of a class to index: its lines (with their ids) and their translations (`extras`: a
 * search in the student's language finds the line), notes and material passages.
 */
export function documentsOf(
  content: ClassFolderContent,
  extras: ReadonlyMap<number, LineExtras> = new Map(),
): IndexDoc[] {
  const docs: IndexDoc[] = content.transcript.entries.flatMap((entry) => {
    const line: IndexDoc = {
      kind: 'line',
      lineId: entry.id,
      timestamp: entry.time,
      text: entry.text,
    };
    const translation = extras.get(entry.id)?.translation;
    return translation ? [line, { ...line, text: translation }] : [line];
  });
  for (const text of passages(content.notes ?? '')) {
    docs.push({ kind: 'notes', lineId: null, timestamp: null, text });
  }
  for (const text of passages((content.material ?? '').slice(0, MATERIAL_INDEX_CHARS))) {
    docs.push({ kind: 'material', lineId: null, timestamp: null, text });
  }
  return docs;
}
