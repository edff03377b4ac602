import {
  createKeywordMatcher,
  type HomophoneMode,
  type Keyword,
  type KeywordFileProblem,
  type KeywordMatcher,
  loadHomophoneSupport,
  loadKeywordsFile,
} from '@class-assistant/transcript-core';
import { dataPaths } from '../data-folder.ts';

/** GET /api/keywords: the original's `{builtin, custom, all}` plus levels and the file. */
interface KeywordsView {
  /** Alert-level keywords of data/keywords.txt. */
  builtin: string[];
  /** Attention-level keywords of data/keywords.txt (homework, exams). */
  warning: string[];
  /** Keywords added through /api/update_keywords (alert level, kept until restart). */
  custom: string[];
  /** Every keyword: builtin, warning and custom. */
  all: string[];
  file: string;
  /** Lines of the file that were skipped, with the reason. */
  problems: KeywordFileProblem[];
  homophones: HomophoneMode;
}

/**
 * The keywords file plus the custom keywords, compiled into the matcher alerts use. The matcher
 * is compiled when a class needs it, not at start: with homophones on, compiling loads the pinyin
 * dictionaries, which only a running class uses.
 */
export interface KeywordService {
  readonly path: string;
  /** Reads data/keywords.txt (creating it with defaults when missing), without compiling. */
  load(homophones: HomophoneMode): Promise<void>;
  /**
   * Re-reads the file and compiles the matcher (loading the pinyin dictionaries first when
   * `homophones` is not `off`); returns it.
   */
  reload(homophones: HomophoneMode): Promise<KeywordMatcher>;
  /** Replaces the custom keyword list (as the original did). */
  setCustom(keywords: string[]): void;
  /** The matcher of the current lists (after a reload: its homophone mode is loaded). */
  matcher(): KeywordMatcher;
  view(): KeywordsView;
}

/** Creates the keyword service of a data folder. */
export function createKeywordService(dataDir: string): KeywordService {
  const path = dataPaths(dataDir).keywords;
  let fileKeywords: Keyword[] = [];
  let problems: KeywordFileProblem[] = [];
  let custom: string[] = [];
  let homophones: HomophoneMode = 'pinyin';
  let compiled: KeywordMatcher | null = null;

  const compile = () => {
    const seen = new Set(fileKeywords.map((keyword) => keyword.text));
    const extra = custom
      .filter((text) => !seen.has(text))
      .map((text): Keyword => ({ text, level: 'alert' }));
    compiled = createKeywordMatcher([...fileKeywords, ...extra], { homophones });
    return compiled;
  };
  const load = async (mode: HomophoneMode) => {
    homophones = mode;
    const loaded = await loadKeywordsFile(path, { createIfMissing: true });
    fileKeywords = [...loaded.keywords];
    problems = [...loaded.problems];
    compiled = null;
  };

  return {
    path,
    load,
    async reload(mode) {
      await load(mode);
      if (mode !== 'off') await loadHomophoneSupport();
      return compile();
    },
    setCustom(keywords) {
      custom = [
        ...new Set(keywords.map((keyword) => keyword.trim()).filter((keyword) => keyword !== '')),
      ];
      compiled = null;
    },
    matcher: () => compiled ?? compile(),
    view() {
      const builtin = fileKeywords
        .filter((keyword) => keyword.level === 'alert')
        .map((keyword) => keyword.text);
      const warning = fileKeywords
        .filter((keyword) => keyword.level === 'attention')
        .map((keyword) => keyword.text);
      const all = [...new Set([...builtin, ...warning, ...custom])];
      return { builtin, warning, custom: [...custom], all, file: path, problems, homophones };
    },
  };
}
