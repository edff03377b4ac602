/**
 * Picks the part of the class material that fits the prompt budget. A short material is sent
 * whole; a long one (a 300-page PDF) is cut into its pages (`--- 第 N 页 ---` markers) and the pages
 * sharing the most words with the recent transcript are kept, in their original order, so answers
 * stay grounded in the slides the teacher is actually on.
 */

const PAGE_MARKER = /^--- 第 (\d+) 页 ---$/m;

/** Splits material text into pages by its markers (text before the first marker is page 0). */
export function splitMaterialPages(material: string): Array<{ page: number; text: string }> {
  const pages: Array<{ page: number; text: string }> = [];
  const parts = material.split(/^(?=--- 第 \d+ 页 ---$)/m);
  for (const part of parts) {
    const match = PAGE_MARKER.exec(part);
    const page = match ? Number(match[1]) : 0;
    if (part.trim() !== '') pages.push({ page, text: part.trimEnd() });
  }
  return pages;
}

/** Lower-cased English words (3+ letters) and Chinese character pairs of a text. */
function terms(text: string): Set<string> {
  const result = new Set<string>();
  for (const word of text.toLowerCase().match(/[a-z][a-z0-9]{2,}/g) ?? []) result.add(word);
  for (const run of text.match(/[\u3400-\u9fff]+/g) ?? []) {
    const characters = Array.from(run);
    for (let index = 0; index + 1 < characters.length; index++) {
      result.add(characters[index]! + characters[index + 1]!);
    }
  }
  return result;
}

/** Material chosen for a prompt, with the pages it holds. */
export interface SelectedMaterial {
  text: string;
  /**
   * The numbers of the pages in `text` (ascending; page markers only, so text before the first
   * marker and material without markers add none).
   */
  pages: number[];
}

/**
 * Returns at most `budget` characters of `material`, chosen by relevance to `query`, with the
 * numbers of the pages kept (what an answer can say it was based on).
 *
 * @example
 * selectMaterialPages(deckText, '循环队列 判满', 8000); // { text: '--- 第 28 页 ---\n…', pages: [27, 28] }
 */
export function selectMaterialPages(
  material: string,
  query: string,
  budget: number,
): SelectedMaterial {
  const pages = splitMaterialPages(material);
  const numbers = (kept: Array<{ page: number }>) =>
    [...new Set(kept.map((page) => page.page).filter((page) => page > 0))].sort((a, b) => a - b);
  if (material.length <= budget) return { text: material, pages: numbers(pages) };
  const queryTerms = terms(query);
  const scored = pages.map((page, index) => {
    let score = 0;
    for (const term of terms(page.text)) if (queryTerms.has(term)) score++;
    return { ...page, index, score };
  });
  const ranked = [...scored].sort((a, b) => b.score - a.score || a.index - b.index);
  const chosen: typeof scored = [];
  let used = 0;
  for (const page of ranked) {
    const cost = page.text.length + 2;
    if (used + cost > budget) {
      if (chosen.length === 0) {
        chosen.push({ ...page, text: `${page.text.slice(0, budget - 20)}\n…` });
        used = budget;
      }
      continue;
    }
    chosen.push(page);
    used += cost;
  }
  chosen.sort((a, b) => a.index - b.index);
  const omitted = pages.length - chosen.length;
  const note =
    omitted > 0
      ? `\n\n（资料共 ${pages.length} 页，以上为与课堂内容最相关的 ${chosen.length} 页）`
      : '';
  return { text: chosen.map((page) => page.text).join('\n\n') + note, pages: numbers(chosen) };
}

/**
 * Returns at most `budget` characters of `material`, chosen by relevance to `query`.
 *
 * @example
 * selectMaterial(deckText, '循环队列 判满', 8000);
 */
export function selectMaterial(material: string, query: string, budget: number): string {
  return selectMaterialPages(material, query, budget).text;
}
