import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isTranscriptCoreError } from './errors.ts';
import {
  DEFAULT_KEYWORDS,
  DEFAULT_KEYWORDS_FILE,
  formatKeywordsFile,
  KEYWORDS_FILE_HEADER,
  loadKeywordsFile,
  parseKeywords,
  saveKeywordsFile,
} from './keyword-file.ts';
import { createKeywordMatcher } from './keyword-matcher.ts';

describe('parseKeywords', () => {
  it('reads one keyword per line, skipping comments and blank lines', () => {
    const { keywords, problems } = parseKeywords(
      '# 我的名字\n张三\n\n  Tom Smith  \n＃ 全角注释\n',
    );
    expect(keywords).toEqual([
      { text: '张三', level: 'alert' },
      { text: 'Tom Smith', level: 'alert' },
    ]);
    expect(problems).toEqual([]);
  });

  it('marks keywords under [注意] / [attention] as the attention level', () => {
    const { keywords } = parseKeywords(
      '点名\n[注意]\n作业\n【提醒】\n回答\n[Attention]\nexam\n［alert］\nroll call\n',
    );
    expect(keywords).toEqual([
      { text: '点名', level: 'alert' },
      { text: '作业', level: 'attention' },
      { text: '回答', level: 'alert' },
      { text: 'exam', level: 'attention' },
      { text: 'roll call', level: 'alert' },
    ]);
  });

  it('keeps "#" inside a keyword (only a leading "#" is a comment)', () => {
    expect(parseKeywords('C#\n').keywords).toEqual([{ text: 'C#', level: 'alert' }]);
  });

  it('reports what it skipped, with line numbers, instead of failing', () => {
    const { keywords, problems } = parseKeywords(
      '\uFEFF张三\r\n[重要]\r\n考试\r\n？？\r\n张三\r\n',
    );
    expect(keywords).toEqual([
      { text: '张三', level: 'alert' },
      { text: '考试', level: 'alert' },
    ]);
    expect(problems.map((problem) => problem.line)).toEqual([2, 4, 5]);
    expect(problems[0]?.message).toMatch(/unknown section "\[重要\]"/);
    expect(problems[1]?.message).toMatch(/letter or digit/);
    expect(problems[2]?.message).toMatch(/already listed on line 1/);
  });

  it('a duplicate at the alert level raises the earlier attention keyword', () => {
    const { keywords } = parseKeywords('[注意]\n考试\n[提醒]\n考试\n');
    expect(keywords).toEqual([{ text: '考试', level: 'alert' }]);
  });
});

describe('formatKeywordsFile and the default file', () => {
  it('round-trips through parseKeywords', () => {
    const list = [
      { text: '张三', level: 'alert' as const },
      { text: 'final exam', level: 'attention' as const },
      { text: '作业', level: 'attention' as const },
    ];
    const content = formatKeywordsFile(list);
    expect(content.startsWith(KEYWORDS_FILE_HEADER)).toBe(true);
    expect(parseKeywords(content)).toEqual({ keywords: list, problems: [] });
  });

  it('the default file documents the format and parses to the default keywords', () => {
    expect(DEFAULT_KEYWORDS_FILE).toContain('[注意]');
    expect(DEFAULT_KEYWORDS_FILE).toContain('# One keyword per line');
    expect(parseKeywords(DEFAULT_KEYWORDS_FILE)).toEqual({
      keywords: DEFAULT_KEYWORDS,
      problems: [],
    });
    expect(DEFAULT_KEYWORDS.some((k) => k.text === '点名' && k.level === 'alert')).toBe(true);
    expect(DEFAULT_KEYWORDS.some((k) => k.text === '作业' && k.level === 'attention')).toBe(true);
  });

  it('the default alert words fire when a student is called on, not on everyday lecture speech', () => {
    const matcher = createKeywordMatcher(DEFAULT_KEYWORDS, { homophones: 'pinyin' });
    const level = (text: string) =>
      matcher.match(text).some((match) => match.level === 'alert') ? 'alert' : 'none';
    for (const called of [
      '我们来点名，到的同学答一声。',
      '请学号尾号是 3 的同学回答一下这个问题。',
      '哪位同学来说一下时间复杂度？',
      '后排那位同学，你来回答。',
      '请回答：链表和数组哪个插入更快？',
      '谁来回答一下？没人举手我就点人了。',
      '这道题谁来说一下思路？',
      '你站起来说一下。',
      'Who can answer this one?',
      "Let's take attendance first.",
    ]) {
      expect(level(called), called).toBe('alert');
    }
    for (const everyday of [
      '数组支持随机存取，链表不行。',
      '随机变量的期望是多少？',
      '没人举手的话我来回答：两个指针。',
      '回答正确，这就是后进先出。',
      '这叫人很难理解，我们换个例子。',
      '谁来释放这块内存？是调用者。',
      '接下来谁来调用这个函数？是操作系统。',
      'Random access is what arrays are good at.',
      '对你来说，这一步最难。',
    ]) {
      expect(level(everyday), everyday).toBe('none');
    }
    // Nor does an everyday sentence call for attention.
    for (const everyday of [
      '今天的重点是循环队列。',
      'The assignment x = y copies the reference.',
    ]) {
      expect(matcher.match(everyday), everyday).toEqual([]);
    }
  });

  it('refuses keywords the format cannot hold', () => {
    for (const bad of ['#1号', '[注意]', '  ', '？']) {
      try {
        formatKeywordsFile([bad]);
        expect.unreachable(`accepted ${bad}`);
      } catch (error) {
        expect(isTranscriptCoreError(error) && error.code).toBe('TRANSCRIPT_INVALID_ARGUMENT');
      }
    }
  });
});

describe('loadKeywordsFile / saveKeywordsFile', () => {
  let folder: string;
  beforeEach(async () => {
    folder = await mkdtemp(join(tmpdir(), 'keywords-'));
  });
  afterEach(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it('creates the default file on first run when asked to', async () => {
    const path = join(folder, 'keywords.txt');
    const loaded = await loadKeywordsFile(path, { createIfMissing: true });
    expect(loaded.created).toBe(true);
    expect(loaded.keywords).toEqual(DEFAULT_KEYWORDS);
    expect(await readFile(path, 'utf8')).toBe(DEFAULT_KEYWORDS_FILE);
    const again = await loadKeywordsFile(path, { createIfMissing: true });
    expect(again.created).toBe(false);
  });

  it('creates the data folder too on a fresh install', async () => {
    const path = join(folder, 'data', 'nested', 'keywords.txt');
    const loaded = await loadKeywordsFile(path, { createIfMissing: true });
    expect(loaded.created).toBe(true);
    expect(await readFile(path, 'utf8')).toBe(DEFAULT_KEYWORDS_FILE);
  });

  it('reads a file the user edited, and reloads it on demand', async () => {
    const path = join(folder, 'keywords.txt');
    await writeFile(path, '# mine\n王小明\n');
    expect((await loadKeywordsFile(path)).keywords).toEqual([{ text: '王小明', level: 'alert' }]);
    await saveKeywordsFile(path, ['王小明', { text: 'quiz', level: 'attention' }]);
    expect((await loadKeywordsFile(path)).keywords).toEqual([
      { text: '王小明', level: 'alert' },
      { text: 'quiz', level: 'attention' },
    ]);
  });

  it('rejects options that are not an object with a coded error', async () => {
    await expect(loadKeywordsFile(join(folder, 'k.txt'), null as never)).rejects.toMatchObject({
      code: 'TRANSCRIPT_INVALID_ARGUMENT',
      message: 'loadKeywordsFile: options must be an object, got null',
    });
  });

  it('names the path when the file is missing and creation was not asked for', async () => {
    const path = join(folder, 'missing.txt');
    await expect(loadKeywordsFile(path)).rejects.toMatchObject({
      code: 'TRANSCRIPT_IO_FAILED',
      message: expect.stringContaining(path),
    });
  });
});
