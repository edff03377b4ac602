// data/keywords.txt: parse, format, load, save (README, "The keywords file format").
import { readFile } from 'node:fs/promises';
import { writeFileAtomic } from './atomic-file.ts';
import { checkOptions, TranscriptCoreError } from './errors.ts';
import { countContentChars, foldText, normalizeText } from './text.ts';

/**
 * How urgent a keyword is: `alert` (the default — the student is being called on) or the lower
 * `attention` (worth noting: homework, exams).
 */
export type KeywordLevel = 'alert' | 'attention';

/** One keyword with its level. */
export interface Keyword {
  text: string;
  level: KeywordLevel;
}

/** A line of a keywords file that was skipped or adjusted, with the reason. */
export interface KeywordFileProblem {
  /** 1-based line number. */
  line: number;
  /** The line as written. */
  content: string;
  message: string;
}

/** Result of {@link parseKeywords}: the keywords in file order, and what was wrong. */
export interface ParsedKeywords {
  keywords: Keyword[];
  problems: KeywordFileProblem[];
}

const SECTION_NAMES: ReadonlyMap<string, KeywordLevel> = new Map([
  ['alert', 'alert'],
  ['提醒', 'alert'],
  ['警报', 'alert'],
  ['attention', 'attention'],
  ['注意', 'attention'],
]);

/**
 * Keywords of a fresh install, chosen to fire when someone is called on or homework and exams are
 * announced, and to stay quiet on everyday lecture speech (the README's "Default keywords"
 * explains each choice). The student's own name and number (`studentKeywords`) are the
 * signal that the call is for them; these catch the rest.
 */
export const DEFAULT_KEYWORDS: readonly Keyword[] = Object.freeze(
  [
    ...[
      '点名',
      '抽查',
      '签到',
      '哪位同学',
      '请回答',
      '你来回答',
      '同学回答',
      '起来回答',
      '谁来回答',
      '谁来说',
      '站起来',
    ].map((text): Keyword => ({ text, level: 'alert' })),
    ...['roll call', 'attendance', 'who can answer', 'who can tell me'].map(
      (text): Keyword => ({ text, level: 'alert' }),
    ),
    ...['作业', '考试', '期中', '期末', '小测', '测验', '截止'].map(
      (text): Keyword => ({ text, level: 'attention' }),
    ),
    ...['homework', 'exam', 'quiz', 'deadline'].map(
      (text): Keyword => ({ text, level: 'attention' }),
    ),
  ].map((keyword) => Object.freeze(keyword)),
);

/** The comment block at the top of every keywords file this package writes. */
export const KEYWORDS_FILE_HEADER = `# 课堂助手 · 关键词列表 / Class Assistant keywords
#
# 每行一个关键词。以 # 开头的整行是注释，空行会被忽略。
# One keyword per line. A line starting with # is a comment; blank lines are ignored.
#
# 级别 / Levels:
#   [提醒] 下面的词是「提醒」级别（默认）：一听到就立刻弹出提醒 —— 你的名字、点名、提问。
#   [注意] 下面的词是较低的「注意」级别：记下来就好 —— 作业、考试、重点。
#   Keywords under [alert] (the default, also before any section) raise an alert at once;
#   keywords under [attention] are the lower level (homework, exams).
#   [提醒], [警报] and [alert] name one section; [注意] and [attention] the other.
#
# 匹配不区分大小写和全角/半角；英文关键词按整词匹配（Tom 不会匹配 tomorrow）。
# 开启「同音字容错」时，名字被识别成同音字（如 张三 → 章三）也会提醒。
# Matching ignores case and full/half width; English keywords match whole words only.
#
# 修改后点「重新加载关键词」或重新开始监听即可生效。
# After editing, use "reload keywords" or restart monitoring.
`;

/**
 * Parses the content of a keywords file: one keyword per line; a line whose first non-blank
 * character is `#` (or `＃`) is a comment; blank lines are ignored; a line `[注意]` or
 * `[attention]` starts the lower "attention" level, `[提醒]`, `[警报]` or `[alert]` goes back to
 * the default "alert" level (full-width brackets and `【】` work too). Keywords are normalised
 * like transcript text; a keyword listed twice is kept once, at the higher level. Never throws:
 * lines it cannot use are skipped and reported in `problems`.
 *
 * @example
 * parseKeywords('# 我的名字\n张三\n\n[注意]\n作业\n')
 * // { keywords: [{ text: '张三', level: 'alert' }, { text: '作业', level: 'attention' }], problems: [] }
 */
export function parseKeywords(content: string): ParsedKeywords {
  const keywords: Keyword[] = [];
  const problems: KeywordFileProblem[] = [];
  const seen = new Map<string, { keyword: Keyword; line: number }>();
  let level: KeywordLevel = 'alert';
  const lines = content.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/);
  lines.forEach((raw, index) => {
    const line = index + 1;
    const text = normalizeText(raw);
    if (text === '' || text.startsWith('#') || text.startsWith('＃')) return;
    const section = /^(?:\[|［|【)\s*(.*?)\s*(?:\]|］|】)$/u.exec(text);
    if (section) {
      const name = foldText(section[1] ?? '');
      const next = SECTION_NAMES.get(name);
      if (next) level = next;
      else {
        problems.push({
          line,
          content: raw,
          message: `unknown section "${text}": use [提醒] / [alert] or [注意] / [attention]; the keywords below it keep the ${level} level`,
        });
      }
      return;
    }
    if (countContentChars(text) === 0) {
      problems.push({
        line,
        content: raw,
        message: 'a keyword needs at least one letter or digit; line skipped',
      });
      return;
    }
    const key = foldText(text);
    const earlier = seen.get(key);
    if (earlier) {
      if (level === 'alert') earlier.keyword.level = 'alert';
      problems.push({
        line,
        content: raw,
        message: `"${text}" is already listed on line ${earlier.line}; kept once at the ${earlier.keyword.level} level`,
      });
      return;
    }
    const keyword: Keyword = { text, level };
    seen.set(key, { keyword, line });
    keywords.push(keyword);
  });
  return { keywords, problems };
}

/**
 * Formats keywords as a keywords file: {@link KEYWORDS_FILE_HEADER}, the alert keywords, then
 * an `[注意]` section with the attention keywords. Plain strings are alert keywords.
 * `parseKeywords(formatKeywordsFile(list)).keywords` gives the list back (normalised, deduplicated).
 *
 * @throws TranscriptCoreError `TRANSCRIPT_INVALID_ARGUMENT` for a keyword the format cannot hold
 *   (empty, starting with `#`, or written like a section line).
 */
export function formatKeywordsFile(keywords: readonly (Keyword | string)[]): string {
  const alert: string[] = [];
  const attention: string[] = [];
  for (const item of keywords) {
    const keyword: Keyword = typeof item === 'string' ? { text: item, level: 'alert' } : item;
    if (keyword.level !== 'alert' && keyword.level !== 'attention') {
      throw new TranscriptCoreError(
        'TRANSCRIPT_INVALID_ARGUMENT',
        `keyword "${keyword.text}": level must be "alert" or "attention", got ${JSON.stringify(keyword.level)}`,
      );
    }
    const text = normalizeText(String(keyword.text));
    if (
      text === '' ||
      countContentChars(text) === 0 ||
      /^[#＃]/u.test(text) ||
      /^[[［【].*[\]］】]$/u.test(text)
    ) {
      throw new TranscriptCoreError(
        'TRANSCRIPT_INVALID_ARGUMENT',
        `keyword ${JSON.stringify(keyword.text)} cannot be stored: it must contain a letter or digit, not start with "#" and not be written like a [section] line`,
      );
    }
    (keyword.level === 'alert' ? alert : attention).push(text);
  }
  let content = `${KEYWORDS_FILE_HEADER}\n${alert.map((text) => `${text}\n`).join('')}`;
  if (attention.length > 0) content += `\n[注意]\n${attention.map((text) => `${text}\n`).join('')}`;
  return content;
}

/** The content of a fresh keywords file: the header comment and {@link DEFAULT_KEYWORDS}. */
export const DEFAULT_KEYWORDS_FILE: string = formatKeywordsFile(DEFAULT_KEYWORDS);

/** Result of {@link loadKeywordsFile}. */
export interface LoadedKeywords extends ParsedKeywords {
  path: string;
  /** True when the file did not exist and was created with {@link DEFAULT_KEYWORDS_FILE}. */
  created: boolean;
}

/**
 * Reads and parses a keywords file. With `createIfMissing`, a missing file is first created
 * (atomically, durably) with {@link DEFAULT_KEYWORDS_FILE}.
 *
 * @throws TranscriptCoreError `TRANSCRIPT_IO_FAILED` when the file cannot be read or created.
 * @example
 * const { keywords, problems } = await loadKeywordsFile('data/keywords.txt', { createIfMissing: true });
 */
export async function loadKeywordsFile(
  path: string,
  options: { createIfMissing?: boolean } = {},
): Promise<LoadedKeywords> {
  const { createIfMissing } = checkOptions(options, 'loadKeywordsFile: options');
  let content: string;
  let created = false;
  try {
    content = await readFile(path, 'utf8');
  } catch (error) {
    if (!createIfMissing || (error as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new TranscriptCoreError(
        'TRANSCRIPT_IO_FAILED',
        `cannot read keywords file ${path}: ${(error as Error).message}`,
        { cause: error },
      );
    }
    try {
      await writeFileAtomic(path, DEFAULT_KEYWORDS_FILE);
    } catch (writeError) {
      throw new TranscriptCoreError(
        'TRANSCRIPT_IO_FAILED',
        `cannot create keywords file ${path}: ${(writeError as Error).message}`,
        { cause: writeError },
      );
    }
    content = DEFAULT_KEYWORDS_FILE;
    created = true;
  }
  return { ...parseKeywords(content), path, created };
}

/**
 * Writes `keywords` to `path` with {@link formatKeywordsFile}, atomically and durably.
 *
 * @throws TranscriptCoreError `TRANSCRIPT_INVALID_ARGUMENT` for a keyword the format cannot
 *   hold, `TRANSCRIPT_IO_FAILED` when the file cannot be written.
 */
export async function saveKeywordsFile(
  path: string,
  keywords: readonly (Keyword | string)[],
): Promise<void> {
  const content = formatKeywordsFile(keywords);
  try {
    await writeFileAtomic(path, content);
  } catch (error) {
    throw new TranscriptCoreError(
      'TRANSCRIPT_IO_FAILED',
      `cannot write keywords file ${path}: ${(error as Error).message}`,
      { cause: error },
    );
  }
}
