import {
  createKeywordMatcher,
  type HomophoneMode,
  type Keyword,
  type KeywordFileProblem,
  type KeywordMatcher,
  loadHomophoneSupport,
  loadKeywordsFile,
  type StudentIdentity,
  studentKeywords,
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
  /** The student's own words (STUDENT_NAME, STUDENT_NUMBER_DIGITS): their alerts are for them. */
  student: string[];
  /** Every keyword: builtin, warning, custom and student. */
  all: string[];
  file: string;
  /** Lines of the file that were skipped, with the reason. */
  problems: KeywordFileProblem[];
  homophones: HomophoneMode;
}

/**
 * The keywords file plus the custom keywords and the student's own words (STUDENT_NAME,
 * STUDENT_NUMBER_DIGITS: personal, so their alerts are for the student), compiled into the
 * matcher alerts use. The matcher is compiled when a class needs it, not at start: with
 * homophones on, compiling loads the pinyin dictionaries, which only a running class uses.
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
  /**
   * The matcher of the current lists and student settings (after a reload: its homophone mode
   * is loaded).
   */
  matcher(): KeywordMatcher;
  /**
   * The words a recognizer should listen for: the file's and the custom keywords and the
   * student's name (not the many spellings of their number).
   */
  hotwords(): string[];
  view(): KeywordsView;
}

/**
 * Creates the keyword service of a data folder; `student` reads who the student is (the
 * settings) whenever the matcher is needed.
 */
export function createKeywordService(
  dataDir: string,
  student: () => StudentIdentity = () => ({ name: '', digits: '' }),
): KeywordService {
  const path = dataPaths(dataDir).keywords;
  let fileKeywords: Keyword[] = [];
  let problems: KeywordFileProblem[] = [];
  let custom: string[] = [];
  let homophones: HomophoneMode = 'pinyin';
  let compiled: { matcher: KeywordMatcher; student: string } | null = null;

  const identity = () => {
    const { name, digits } = student();
    return { name, digits, key: JSON.stringify([name, digits]) };
  };
  const compile = () => {
    const seen = new Set(fileKeywords.map((keyword) => keyword.text));
    const extra = custom
      .filter((text) => !seen.has(text))
      .map((text): Keyword => ({ text, level: 'alert' }));
    const { name, digits, key } = identity();
    // The student's own words first: an alert names what calls on them before the rest.
    const matcher = createKeywordMatcher(
      [...studentKeywords({ name, digits }), ...fileKeywords, ...extra],
      { homophones },
    );
    compiled = { matcher, student: key };
    return matcher;
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
    matcher: () => (compiled && compiled.student === identity().key ? compiled.matcher : compile()),
    hotwords() {
      const name = student().name.trim();
      return [
        ...new Set([
          ...fileKeywords.map((keyword) => keyword.text),
          ...custom,
          ...(name === '' ? [] : [name]),
        ]),
      ];
    },
    view() {
      const builtin = fileKeywords
        .filter((keyword) => keyword.level === 'alert')
        .map((keyword) => keyword.text);
      const warning = fileKeywords
        .filter((keyword) => keyword.level === 'attention')
        .map((keyword) => keyword.text);
      const { name, digits } = identity();
      const own = studentKeywords({ name, digits }).map((keyword) => keyword.text);
      const all = [...new Set([...builtin, ...warning, ...custom, ...own])];
      return {
        builtin,
        warning,
        custom: [...custom],
        student: own,
        all,
        file: path,
        problems,
        homophones,
      };
    },
  };
}
