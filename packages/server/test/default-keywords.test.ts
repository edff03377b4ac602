// The default keywords on the bundled mock lecture (the demo class), run through the real
// transcript pipeline: they fire where the teacher calls on someone or announces homework, exams
// and the quiz, and stay quiet on the lines where the former defaults raised a false alarm; the
// student's own name and number (STUDENT_NAME, STUDENT_NUMBER_DIGITS) make a call theirs.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createKeywordMatcher,
  DEFAULT_KEYWORDS,
  type Keyword,
  type KeywordAlert,
  type MatcherKeyword,
  studentKeywords,
  TranscriptPipeline,
  TranscriptStore,
} from '@class-assistant/transcript-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { assetPath } from '../src/assets.ts';
import { parseMockScript } from '../src/recognizers/mock-recognizer.ts';

const lecture = parseMockScript(await readFile(assetPath('mock-lecture.txt'), 'utf8'));

let folder: string;
beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'default-keywords-'));
});
afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

/** The alerts the demo class raises with these keywords: line number (1-based), level, words. */
async function alerts(keywords: readonly MatcherKeyword[]) {
  const store = await TranscriptStore.open(join(folder, `${Math.random()}.txt`));
  const pipeline = new TranscriptPipeline({
    store,
    keywords: createKeywordMatcher(keywords, { homophones: 'pinyin' }),
  });
  const raised: KeywordAlert[] = [];
  pipeline.on('alert-raised', (alert) => raised.push(alert));
  for (const line of lecture) await pipeline.pushLine(line);
  await pipeline.close();
  await store.close();
  return raised.map((alert) => ({
    line: alert.lineId,
    level: alert.level,
    forYou: alert.forYou,
    keywords: alert.keywords,
  }));
}

/** The defaults of the original product. */
const ORIGINAL_DEFAULTS: Keyword[] = [
  ...['点名', '随机', '抽查', '叫人', '回答', '签到', '哪位同学', '谁来', '站起来', '请回答'].map(
    (text): Keyword => ({ text, level: 'alert' }),
  ),
  ...['作业', '考试', '期中', '期末', '小测', '重点', '截止'].map(
    (text): Keyword => ({ text, level: 'attention' }),
  ),
];

const lineOf = (start: string) => lecture.findIndex((line) => line.startsWith(start)) + 1;
const ROLL_CALL = lineOf('好，这个问题我随机点名');
const CALLED_BY_NAME = lineOf('王小明，你来说说');
const EXAM = lineOf('循环队列里，rear 等于 front');
const HOMEWORK = lineOf('下面布置作业');
const QUIZ = lineOf('如果没有问题，我们下课前再做一个小测');

describe('the default keywords on the mock lecture', () => {
  it('raise one roll call (not the student’s), and note homework, the exam and the quiz: nothing else', async () => {
    expect(lecture).toHaveLength(27);
    expect(await alerts(DEFAULT_KEYWORDS)).toEqual([
      { line: ROLL_CALL, level: 'alert', forYou: false, keywords: ['点名', '同学回答'] },
      { line: EXAM, level: 'attention', forYou: false, keywords: ['考试'] },
      { line: HOMEWORK, level: 'attention', forYou: false, keywords: ['作业', 'deadline'] },
      { line: QUIZ, level: 'attention', forYou: false, keywords: ['小测'] },
    ]);
  });

  it('with the student’s name and number, the two calls are theirs (the name by its sound)', async () => {
    const mine = studentKeywords({ name: '王晓明', digits: '7' });
    // The student's words first, as the backend lists them.
    expect(await alerts([...mine, ...DEFAULT_KEYWORDS])).toEqual([
      {
        line: ROLL_CALL,
        level: 'alert',
        forYou: true,
        keywords: ['尾号是 7', '点名', '同学回答'],
      },
      // The recognizer wrote 小 where the student typed 晓: the same sound.
      { line: CALLED_BY_NAME, level: 'alert', forYou: true, keywords: ['王晓明'] },
      { line: EXAM, level: 'attention', forYou: false, keywords: ['考试'] },
      { line: HOMEWORK, level: 'attention', forYou: false, keywords: ['作业', 'deadline'] },
      { line: QUIZ, level: 'attention', forYou: false, keywords: ['小测'] },
    ]);
  });

  it('someone else’s name and number leave the roll call not the student’s', async () => {
    const other = studentKeywords({ name: '李华', digits: '3' });
    const result = await alerts([...other, ...DEFAULT_KEYWORDS]);
    expect(result.filter((alert) => alert.forYou)).toEqual([]);
    expect(result.map((alert) => alert.line)).toEqual([ROLL_CALL, EXAM, HOMEWORK, QUIZ]);
  });

  it('stay quiet where the original defaults raised false alarms', async () => {
    const original = await alerts(ORIGINAL_DEFAULTS);
    const now = (await alerts(DEFAULT_KEYWORDS)).map((alert) => alert.line);
    const quiet = [
      lineOf('所以说数组支持随机存取'),
      lineOf('有同学问为什么要空出一个位置，我来回答一下'),
    ];
    for (const line of quiet) {
      expect(line).toBeGreaterThan(0);
      expect(original.map((alert) => alert.line)).toContain(line);
      expect(now).not.toContain(line);
    }
    // The original defaults: 3 roll-call alerts (2 of them false) and 3 notes on this lecture.
    expect(original.filter((alert) => alert.level === 'alert')).toHaveLength(3);
    expect(original.filter((alert) => alert.level === 'attention')).toHaveLength(3);
  });
});
