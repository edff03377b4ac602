/**
 * Works out which page of the class material the teacher is on, live and without an LLM: the
 * recent transcript (the lines of the last ~45 s, and at least the last few) is scored against
 * every page with BM25 over Chinese character pairs and lower-cased Latin words, the newest line
 * weighing most. Terms are weighted by how rare they are in the deck (a word on one page says
 * more than one on every page); a transcript word the deck does not have counts nothing.
 *
 * Hysteresis keeps the page from flickering: another page takes over only when it wins clearly
 * (by a margin, smaller for the next page than for a jump or a step back) or wins twice in a
 * row; a line that matches no page well (an aside) leaves the page where it is. Before the first
 * match, and for material without page markers, the page is null.
 */
import { splitMaterialPages } from '../llm/material-context.ts';

/** One page of the material as the tracker knows it. */
export interface TrackedPage {
  /** 1-based, from the material's `--- 第 N 页 ---` marker. */
  page: number;
  /** The page's first non-empty line, shortened. */
  title: string;
  /** The page's text without its marker. */
  text: string;
}

/** The tracker's verdict after a line. */
interface PageVerdict {
  /** The page the teacher is on now (null before any match). */
  page: number | null;
  /** True when this line moved the page. */
  changed: boolean;
}

/** A page tracker over one material (see {@link createPageTracker}). */
export interface PageTracker {
  /** The material's pages, in order (empty for material without page markers). */
  readonly pages: readonly TrackedPage[];
  /** The page the teacher is on (null before any match). */
  readonly current: number | null;
  /** Takes the next line of the transcript (`atMs`: when it was said) and answers its page. */
  push(text: string, atMs: number): PageVerdict;
  /** Starts from `page` (a class going on after a gap starts from its last line's page). */
  resume(page: number | null): void;
}

/** How a tracker weighs the evidence; the defaults are tuned by bench/pages.ts. */
export interface PageTrackerTuning {
  /** Lines older than this (before the newest) leave the window, ms. */
  windowMs: number;
  /** The window keeps at least this many lines, however old. */
  minLines: number;
  /** And at most this many. */
  maxLines: number;
  /** Each older line weighs this much of the next newer one. */
  decay: number;
  /**
   * A line whose own best score is below this is an aside: it moves nothing. In units of the
   * rarity (idf) of a term found on one page only, so that it means the same for any deck.
   */
  minLineScore: number;
  /**
   * A line is decisive when its own best page beats the current page (on that line alone) by
   * this factor: a decisive line moves to the next page, or anywhere the window agrees.
   */
  lineMargin: number;
  /** Without a decisive line, the window's winner needs this factor over the current page. */
  jumpMargin: number;
  /** False: each line's own best page, no window, no hysteresis (the bench's baseline). */
  hysteresis: boolean;
}

const DEFAULT_TUNING: PageTrackerTuning = {
  windowMs: 45_000,
  minLines: 3,
  maxLines: 8,
  decay: 0.5,
  minLineScore: 0.55,
  lineMargin: 1.5,
  jumpMargin: 1.6,
  hysteresis: true,
};

// BM25 parameters (the usual ones).
const K1 = 1.2;
const B = 0.75;
const TITLE_CHARACTERS = 40;
const MARKER = /^--- 第 \d+ 页 ---\n?/;

/** Pairs and words of everyday speech: they say nothing about a page, on a slide or aloud. */
const STOP_TERMS = new Set([
  ...'一个 一下 一些 我们 你们 他们 这个 那个 这些 这里 那里 就是 可以 需要 什么 如果 因为 所以 然后 进行 没有 不是 还是 已经 时候 大家 现在 之后 之前 这样 怎么 的话 一定 其实 比如 例子'.split(
    ' ',
  ),
  ...'the and for are this that with from you can not but its our has have was were will'.split(
    ' ',
  ),
]);

/**
 * The terms of a text: Chinese character pairs and lower-cased Latin words (2+ characters),
 * without those of everyday speech.
 */
function pageTerms(text: string): string[] {
  const terms: string[] = [];
  for (const word of text.toLowerCase().match(/[a-z][a-z0-9]+/g) ?? []) {
    if (!STOP_TERMS.has(word)) terms.push(word);
  }
  for (const run of text.match(/[\u3400-\u9fff\uf900-\ufaff]+/g) ?? []) {
    for (let index = 0; index + 1 < run.length; index++) {
      const pair = run.slice(index, index + 2);
      if (!STOP_TERMS.has(pair)) terms.push(pair);
    }
  }
  return terms;
}

/** The pages of a material text (its `--- 第 N 页 ---` markers), with their titles. */
export function materialPageList(material: string): TrackedPage[] {
  return splitMaterialPages(material)
    .filter((page) => page.page > 0)
    .map((page) => {
      const text = page.text.replace(MARKER, '').trim();
      const first = text.split('\n').find((line) => line.trim() !== '') ?? '';
      const title = Array.from(first.trim());
      return {
        page: page.page,
        title:
          title.length > TITLE_CHARACTERS
            ? `${title.slice(0, TITLE_CHARACTERS - 1).join('')}…`
            : title.join(''),
        text,
      };
    });
}

/** For each term of the deck: the pages having it and what one mention of it scores there. */
type Postings = Map<string, Array<{ index: number; weight: number }>>;

function buildPostings(pages: readonly TrackedPage[]): Postings {
  const counts = pages.map((page) => {
    const tf = new Map<string, number>();
    const terms = pageTerms(page.text);
    for (const term of terms) tf.set(term, (tf.get(term) ?? 0) + 1);
    return { tf, length: terms.length };
  });
  const average = counts.reduce((sum, page) => sum + page.length, 0) / Math.max(1, counts.length);
  const documentFrequency = new Map<string, number>();
  for (const { tf } of counts) {
    for (const term of tf.keys())
      documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
  }
  const postings: Postings = new Map();
  const total = pages.length;
  counts.forEach(({ tf, length }, index) => {
    const norm = K1 * (1 - B + (B * length) / Math.max(1, average));
    for (const [term, frequency] of tf) {
      const df = documentFrequency.get(term)!;
      const idf = Math.log(1 + (total - df + 0.5) / (df + 0.5));
      const weight = (idf * frequency * (K1 + 1)) / (frequency + norm);
      const list = postings.get(term) ?? [];
      if (list.length === 0) postings.set(term, list);
      list.push({ index, weight });
    }
  });
  return postings;
}

/**
 * Creates the tracker of a material text: its pages are read and indexed once.
 *
 * @example
 * const tracker = createPageTracker(materialText);
 * tracker.push('我们来看单链表的插入操作', Date.now()); // { page: 3, changed: true }
 */
export function createPageTracker(
  material: string,
  tuning: Partial<PageTrackerTuning> = {},
): PageTracker {
  const settings = { ...DEFAULT_TUNING, ...tuning };
  const pages = materialPageList(material);
  const postings = buildPostings(pages);
  const minLineScore = settings.minLineScore * Math.log(1 + (pages.length - 0.5) / 1.5);
  /** The recent lines: the deck's terms each has (unique), and when it was said. */
  const window: Array<{ terms: string[]; atMs: number }> = [];
  let current: number | null = null;
  /** The page that won the last line without taking over (it takes over if it wins again). */
  let challenger: number | null = null;

  const scoresOf = (weighted: ReadonlyArray<{ terms: string[]; weight: number }>) => {
    const scores = new Float64Array(pages.length);
    for (const { terms, weight } of weighted) {
      for (const term of terms) {
        for (const posting of postings.get(term)!)
          scores[posting.index]! += weight * posting.weight;
      }
    }
    return scores;
  };
  const best = (scores: Float64Array) => {
    let index = -1;
    let score = 0;
    scores.forEach((value, at) => {
      if (value > score) {
        score = value;
        index = at;
      }
    });
    return { index, score };
  };
  const indexOf = (page: number) => pages.findIndex((candidate) => candidate.page === page);

  return {
    pages,
    get current() {
      return current;
    },
    resume(page) {
      current = page !== null && indexOf(page) >= 0 ? page : null;
      challenger = null;
      window.length = 0;
    },
    push(text, atMs) {
      if (pages.length === 0) return { page: null, changed: false };
      const terms = [...new Set(pageTerms(text))].filter((term) => postings.has(term));
      // The line alone: an aside (nothing of the deck in it) moves nothing and stays out of
      // the window, so it cannot dilute the lines about the page.
      const ownScores = scoresOf([{ terms, weight: 1 }]);
      const own = best(ownScores);
      if (own.score < minLineScore) return { page: current, changed: false };
      if (!settings.hysteresis) {
        const page = pages[own.index]!.page;
        const changed = page !== current;
        current = page;
        return { page, changed };
      }
      window.push({ terms, atMs });
      while (
        window.length > settings.maxLines ||
        (window.length > settings.minLines && atMs - window[0]!.atMs > settings.windowMs)
      ) {
        window.shift();
      }
      const weighted = window.map((line, position) => ({
        terms: line.terms,
        weight: settings.decay ** (window.length - 1 - position),
      }));
      const scores = scoresOf(weighted);
      const top = best(scores);
      const candidate = own.index;
      const winner = pages[candidate]!.page;
      if (current === null) {
        current = pages[top.index]!.page;
        return { page: current, changed: true };
      }
      if (winner === current) {
        challenger = null;
        return { page: current, changed: false };
      }
      const currentIndex = indexOf(current);
      const ownHeld = currentIndex >= 0 ? ownScores[currentIndex]! : 0;
      const held = currentIndex >= 0 ? scores[currentIndex]! : 0;
      // The line alone points clearly away from the current page…
      const decisive = own.score >= ownHeld * settings.lineMargin;
      // …to the next page, or the window agrees: the teacher moved on.
      const forward = candidate === currentIndex + 1;
      const windowAgrees = top.index === candidate;
      const windowClear = windowAgrees && top.score >= held * settings.jumpMargin;
      // Forward to the next page on one clear line; a jump or a step back needs the same page
      // to win two lines in a row and the window to agree clearly.
      if ((decisive && forward) || (challenger === winner && (forward || windowClear))) {
        current = winner;
        challenger = null;
        return { page: current, changed: true };
      }
      challenger = winner;
      return { page: current, changed: false };
    },
  };
}
