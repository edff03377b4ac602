/**
 * Hot words for the online recognizers, from the class itself: the keywords the student added
 * (their name, classmates' names: the words an alert depends on) and the terms of the active
 * class material (slide titles, technical terms, acronyms). The streaming service takes them as
 * `corpus.context` within 100 tokens on the bidirectional endpoints (5000 words on nostream);
 * the cloud mode passes them as the transcription prompt.
 */
import { type AsrEndpoint, estimateTokens } from '@class-assistant/asr-protocol';
import { DEFAULT_KEYWORDS } from '@class-assistant/transcript-core';
import { DATA_FOLDER } from '../data-folder.ts';
import { readContainedText } from '../security/contained-file.ts';
import type { RecognizerContext } from './recognizer.ts';

const CJK_RUN = /[\p{Script=Han}]+/gu;
const LATIN_TERM = /[A-Za-z][A-Za-z0-9+#]*(?:[-.][A-Za-z0-9+#]+)*(?:\s+[A-Z][A-Za-z0-9+#]*)*/g;
const PAGE_MARKER = /^\s*---\s*(?:第\s*\d+\s*页|(?:page|slide)\s*\d+)\s*---\s*$/im;

// Particles, pronouns and function words: a term neither starts nor ends with one, and none
// holds 的 (what a title like 二叉搜索树的查找 joins is two terms, not one).
const CJK_EDGE_STOP = new Set([
  ...'的了是在和与及或而也就都这那个们我你他她它有没不为以之其于对把被从到等会要该将并很更又还再已让给向吗呢吧啊着过',
]);
const CHAPTER = /第[一二三四五六七八九十百千\d]+[章节课讲部篇]/g;

const ENGLISH_STOP = new Set(
  `a an the and or but if then else when while of to in on at by for with from into onto over under about as is are was were be been being this that these those it its we you they he she i me my our your their his her them us not no yes do does did done have has had can could should would will shall may might must there here what which who whom whose why how all any each every some such more most other another than too very also only just so thus hence because since until again once both either neither one two three first second third next last new use used using example examples figure table chapter section page slide lecture class today note notes summary question questions answer answers see e.g etc`.split(
    /\s+/,
  ),
);

interface Candidate {
  term: string;
  count: number;
  title: boolean;
}

function addCount(map: Map<string, Candidate>, term: string, title: boolean): void {
  const existing = map.get(term);
  if (existing) {
    existing.count += 1;
    existing.title ||= title;
  } else {
    map.set(term, { term, count: 1, title });
  }
}

function isLatinTerm(term: string): boolean {
  const words = term.split(/\s+/);
  if (words.length > 1) return words.every((word) => /^[A-Z]/.test(word)) && words.length <= 4;
  const word = words[0] ?? '';
  if (/^[A-Z0-9+#]{2,8}$/.test(word) && /[A-Z]/.test(word)) return true; // TCP, HTTP2, C++
  if (/^[a-z]+[A-Z]/.test(word) || /^[A-Z][a-z]+[A-Z]/.test(word)) return true; // camelCase, PageRank
  return word.length >= 5 && !ENGLISH_STOP.has(word.toLowerCase());
}

/**
 * The terms of a class material text (data/cite format, `--- 第 N 页 ---` between pages), most
 * useful first: repeated Chinese terms (maximal repeated substrings, not their fragments), Latin
 * technical words, acronyms and capitalised names, with slide titles ranked up.
 *
 * @example
 * extractMaterialTerms('--- 第 1 页 ---\n二叉搜索树\n二叉搜索树的查找…'); // ['二叉搜索树', …]
 */
export function extractMaterialTerms(text: string, limit = 80): string[] {
  const pages = text.split(PAGE_MARKER);
  const cjk = new Map<string, Candidate>();
  const latin = new Map<string, Candidate>();
  for (const page of pages) {
    const lines = page
      .split(/\r?\n/)
      .map((line) => line.trim())
      .filter((line) => line !== '');
    lines.forEach((line, index) => {
      const title = index === 0 && line.length <= 40;
      for (const match of line.replace(CHAPTER, ' ').matchAll(CJK_RUN)) {
        const run = [...match[0]];
        for (let start = 0; start < run.length; start++) {
          if (CJK_EDGE_STOP.has(run[start]!)) continue;
          for (let length = 2; length <= 8 && start + length <= run.length; length++) {
            if (CJK_EDGE_STOP.has(run[start + length - 1]!)) continue;
            const term = run.slice(start, start + length).join('');
            if (term.includes('的')) continue;
            addCount(cjk, term, title);
          }
        }
      }
      for (const match of line.matchAll(LATIN_TERM)) {
        const term = match[0].trim().replace(/[.-]+$/, '');
        if (isLatinTerm(term)) addCount(latin, term, title);
      }
    });
  }
  // Chinese: longest first, each candidate's count less the occurrences inside longer terms
  // already kept (叉搜索 and 二叉 only ever occur inside 二叉搜索树 and 二叉树); keep what is
  // still seen twice, or once in a slide title.
  const candidates = [...cjk.values()].sort((a, b) => b.term.length - a.term.length);
  const kept: Candidate[] = [];
  for (const candidate of candidates) {
    let own = candidate.count;
    for (const longer of kept) {
      if (longer.term.includes(candidate.term)) own -= longer.count;
    }
    if (own >= 2 || (candidate.title && own >= 1)) kept.push({ ...candidate, count: own });
  }
  const score = (candidate: Candidate, weight: number) =>
    candidate.count * weight * (candidate.title ? 3 : 1);
  const ranked = [
    ...kept.map((candidate) => ({
      term: candidate.term,
      score: score(candidate, Math.sqrt([...candidate.term].length)),
    })),
    ...[...latin.values()]
      .filter(
        (candidate) => candidate.count >= 2 || candidate.title || /[A-Z]/.test(candidate.term),
      )
      .map((candidate) => ({ term: candidate.term, score: score(candidate, 1.5) })),
  ];
  ranked.sort((a, b) => b.score - a.score || a.term.localeCompare(b.term));
  const seen = new Set<string>();
  const out: string[] = [];
  for (const { term } of ranked) {
    const key = term.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(term);
    if (out.length >= limit) break;
  }
  return out;
}

/** The protocol's hot-word limit of an endpoint. */
export function hotwordBudget(endpoint: AsrEndpoint): { tokens?: number; words?: number } {
  return endpoint === 'bigmodel_nostream' ? { words: 5000 } : { tokens: 100 };
}

/**
 * Keeps words in order, once each, while they fit the budget (estimated tokens, as
 * asr-protocol counts them, or a number of words).
 */
export function fitHotwords(
  words: readonly string[],
  budget: { tokens?: number; words?: number },
): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  let tokens = 0;
  for (const raw of words) {
    const word = raw.trim();
    if (word === '' || seen.has(word.toLowerCase())) continue;
    if (budget.words !== undefined && out.length >= budget.words) break;
    const cost = estimateTokens(word);
    if (budget.tokens !== undefined && tokens + cost > budget.tokens) continue;
    tokens += cost;
    seen.add(word.toLowerCase());
    out.push(word);
  }
  return out;
}

const BUILT_IN = new Set(DEFAULT_KEYWORDS.map((keyword) => keyword.text.toLowerCase()));

/**
 * The hot words of a class: the student's own keywords (not the built-in alert words, which any
 * recognizer knows), then the terms of the class's material text.
 *
 * @example
 * materialHotwords(['李小明'], '--- 第 1 页 ---\n二叉搜索树 AVL Tree'); // ['李小明', '二叉搜索树', …]
 */
export function materialHotwords(
  keywords: readonly string[],
  material: string,
  limit = 200,
): string[] {
  const own = keywords.filter((keyword) => !BUILT_IN.has(keyword.trim().toLowerCase()));
  return [...own, ...extractMaterialTerms(material, limit)];
}

/**
 * The hot words of the class whose material is active in `dataDir`
 * (data/current_class_material.txt): {@link materialHotwords} of that file.
 */
export async function classHotwords(
  dataDir: string,
  keywords: readonly string[],
  limit = 200,
): Promise<string[]> {
  let material = '';
  try {
    // Not through a link (the hot words go to the recognition service).
    material = (await readContainedText(dataDir, [DATA_FOLDER.currentMaterial.name])) ?? '';
  } catch {
    // No material for this class, or a link in its place.
  }
  return materialHotwords(keywords, material, limit);
}

/**
 * The hot words of the class a recognizer is created for: its material is given in the context
 * (start_monitor activates it only once the recognizer runs), else the active one is read.
 */
export async function contextHotwords(context: RecognizerContext): Promise<string[]> {
  return context.material !== undefined
    ? materialHotwords(context.keywords ?? [], context.material)
    : classHotwords(context.dataDir, context.keywords ?? []);
}
