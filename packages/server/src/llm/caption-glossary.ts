// The words translated captions keep as they are: the student's name, the keywords the student
// added for the course, and the terms of the class material — its Latin-script words (names of
// functions, English terms in Chinese slides) and its frequent Chinese terms. Given to the LLM as
// a glossary, so "push" stays "push" and 循环队列 is not rendered three different ways.

/** At most this many terms of the material (the glossary goes with every request). */
const MATERIAL_LATIN_TERMS = 24;
const MATERIAL_HAN_TERMS = 16;
/** A Chinese term must occur this often in the material. */
const HAN_MIN_COUNT = 3;

/** Common words that are no course term. */
const LATIN_STOP = new Set(
  'the and for are but not you all any can had her was one our out day get has him his how man new now old see two way who boy did its let put say she too use that with have this will your from they know want been good much some time very when come here just like long make many over such take than them well were what page'.split(
    ' ',
  ),
);
const HAN_STOP = new Set(
  '我们 你们 他们 一个 这个 那个 可以 就是 什么 没有 因为 所以 如果 然后 但是 这样 那么 还是 已经 需要 进行 通过 以及 或者 这些 那些 时候 问题 大家 同学 老师 今天 下面 上面 其中 之后 之前 一下 一种 的是 是一 了一'.split(
    ' ',
  ),
);

/** The Latin-script words of a text, most frequent first (at least three letters, no stop word). */
function latinTerms(text: string, limit: number): string[] {
  const counts = new Map<string, { word: string; count: number }>();
  for (const word of text.match(/[A-Za-z][A-Za-z0-9_+#]*(?:[-.][A-Za-z0-9_]+)*/g) ?? []) {
    if (word.length < 3) continue;
    const key = word.toLowerCase();
    if (LATIN_STOP.has(key)) continue;
    const seen = counts.get(key);
    if (seen) seen.count++;
    else counts.set(key, { word, count: 1 });
  }
  return [...counts.values()]
    .sort((a, b) => b.count - a.count)
    .slice(0, limit)
    .map((item) => item.word);
}

/**
 * The Chinese terms a text repeats: runs of 2–4 Chinese characters occurring at least
 * {@link HAN_MIN_COUNT} times, a shorter one dropped when a longer one holding it is as frequent
 * (链表 inside 双向链表 is kept only when it also stands alone).
 */
function hanTerms(text: string, limit: number): string[] {
  const counts = new Map<string, number>();
  for (const run of text.match(/\p{Script=Han}{2,}/gu) ?? []) {
    const chars = [...run];
    for (let size = 2; size <= 4; size++) {
      for (let start = 0; start + size <= chars.length; start++) {
        const gram = chars.slice(start, start + size).join('');
        counts.set(gram, (counts.get(gram) ?? 0) + 1);
      }
    }
  }
  const frequent = [...counts].filter(
    ([gram, count]) => count >= HAN_MIN_COUNT && !HAN_STOP.has(gram),
  );
  const kept = frequent.filter(
    ([gram, count]) =>
      !frequent.some(
        ([other, otherCount]) => other !== gram && other.includes(gram) && otherCount >= count,
      ),
  );
  return kept
    .sort((a, b) => b[1] * [...b[0]].length - a[1] * [...a[0]].length)
    .slice(0, limit)
    .map(([gram]) => gram);
}

/**
 * The glossary of a class: the student's name, the keywords given, the material's terms; no
 * duplicates, in that order.
 *
 * @example
 * captionGlossary({ studentName: '王小明', keywords: ['循环队列'], material: 'push pop push pop push' })
 * // ['王小明', '循环队列', 'push', 'pop']
 */
export function captionGlossary(sources: {
  studentName: string;
  keywords: readonly string[];
  material: string;
}): string[] {
  const terms = [
    sources.studentName.trim(),
    ...sources.keywords.map((keyword) => keyword.trim()),
    ...latinTerms(sources.material, MATERIAL_LATIN_TERMS),
    ...hanTerms(sources.material, MATERIAL_HAN_TERMS),
  ].filter((term) => term !== '');
  return [...new Set(terms)];
}

/**
 * The glossary of the live class, for the translator: the material's terms worked out once a
 * class (a textbook can be long), the student's name and keywords read each time.
 */
export function classGlossary(sources: {
  classId: () => string | null;
  student: () => string;
  keywords: () => readonly string[];
  material: () => Promise<string>;
}): () => Promise<string[]> {
  let cached: { classId: string | null; terms: Promise<string[]> } | undefined;
  return async () => {
    const classId = sources.classId();
    let current = cached;
    if (current?.classId !== classId) {
      const terms = sources
        .material()
        .then((material) => captionGlossary({ studentName: '', keywords: [], material }));
      terms.catch(() => {
        cached = undefined;
      });
      current = { classId, terms };
      cached = current;
    }
    return captionGlossary({
      studentName: sources.student(),
      keywords: [...sources.keywords(), ...(await current.terms)],
      material: '',
    });
  };
}
