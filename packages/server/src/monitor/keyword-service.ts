import { join } from 'node:path';
import {
  createKeywordMatcher,
  type HomophoneMode,
  type Keyword,
  type KeywordFileProblem,
  type KeywordMatcher,
  loadKeywordsFile,
} from '@class-assistant/transcript-core';

/** GET /api/keywords: the original's `{builtin, custom, all}` plus levels and the file. */
export interface KeywordsView {
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

/** The keywords file plus the custom keywords, compiled into the matcher alerts use. */
export interface KeywordService {
  readonly path: string;
  /** Re-reads data/keywords.txt (creating it with defaults when missing); returns the matcher. */
  reload(homophones: HomophoneMode): Promise<KeywordMatcher>;
  /** Replaces the custom keyword list (as the original did); returns the new matcher. */
  setCustom(keywords: string[]): KeywordMatcher;
  /** The current matcher (after the first reload). */
  matcher(): KeywordMatcher;
  view(): KeywordsView;
}

/** Creates the keyword service of a data folder. */
export function createKeywordService(dataDir: string): KeywordService {
  const path = join(dataDir, 'keywords.txt');
  let fileKeywords: Keyword[] = [];
  let problems: KeywordFileProblem[] = [];
  let custom: string[] = [];
  let homophones: HomophoneMode = 'pinyin';
  let compiled: KeywordMatcher = createKeywordMatcher([], { homophones });

  const compile = () => {
    const seen = new Set(fileKeywords.map((keyword) => keyword.text));
    const extra = custom
      .filter((text) => !seen.has(text))
      .map((text): Keyword => ({ text, level: 'alert' }));
    compiled = createKeywordMatcher([...fileKeywords, ...extra], { homophones });
    return compiled;
  };

  return {
    path,
    async reload(mode) {
      homophones = mode;
      const loaded = await loadKeywordsFile(path, { createIfMissing: true });
      fileKeywords = [...loaded.keywords];
      problems = [...loaded.problems];
      return compile();
    },
    setCustom(keywords) {
      custom = [
        ...new Set(keywords.map((keyword) => keyword.trim()).filter((keyword) => keyword !== '')),
      ];
      return compile();
    },
    matcher: () => compiled,
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
