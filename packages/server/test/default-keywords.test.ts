// The default roll-call words on the bundled mock lecture: they fire where the teacher calls on
// someone or announces homework and exams, and stay quiet on the lines where the former defaults
// (随机, 回答, 叫人, 谁来) raised a false alarm; the student's own name fires, homophones included.
import { readFile } from 'node:fs/promises';
import {
  createKeywordMatcher,
  DEFAULT_KEYWORDS,
  type Keyword,
  normalizeText,
} from '@class-assistant/transcript-core';
import { describe, expect, it } from 'vitest';
import { assetPath } from '../src/assets.ts';

const lecture = (await readFile(assetPath('mock-lecture.txt'), 'utf8'))
  .split('\n')
  .map((line) => normalizeText(line))
  .filter((line) => line !== '' && !line.startsWith('#'));

/** The lines that raise an alert with these keywords: line, level, words. */
function alerts(keywords: readonly Keyword[], extra: readonly string[] = []) {
  const matcher = createKeywordMatcher(
    [...keywords, ...extra.map((text): Keyword => ({ text, level: 'alert' }))],
    { homophones: 'pinyin' },
  );
  return lecture.flatMap((line) => {
    const matches = matcher.match(line);
    if (matches.length === 0) return [];
    const level = matches.some((match) => match.level === 'alert') ? 'alert' : 'attention';
    return [{ line, level, keywords: matches.map((match) => match.keyword) }];
  });
}

/** The defaults of the original product, which this list replaces. */
const FORMER_DEFAULTS: Keyword[] = [
  ...['点名', '随机', '抽查', '叫人', '回答', '签到', '哪位同学', '谁来', '站起来', '请回答'].map(
    (text): Keyword => ({ text, level: 'alert' }),
  ),
  ...['作业', '考试', '期中', '期末', '小测', '重点', '截止'].map(
    (text): Keyword => ({ text, level: 'attention' }),
  ),
];

describe('the default keywords on the mock lecture', () => {
  it('alert on the roll call, note homework, exams and the quiz, and nothing else', () => {
    expect(alerts(DEFAULT_KEYWORDS)).toEqual([
      {
        line: '好，这个问题我随机点名，请学号尾号是 7 的同学回答一下，删除双向链表的节点要改几个指针？',
        level: 'alert',
        keywords: ['点名', '同学回答'],
      },
      {
        line: '循环队列里，rear 等于 front 的时候，到底是队空还是队满？这是一个重点，考试经常考。',
        level: 'attention',
        keywords: ['考试', '重点'],
      },
      {
        line: '下面布置作业：实现一个循环队列，支持入队、出队和判满，这周五晚上十二点之前提交，deadline 不会延期。',
        level: 'attention',
        keywords: ['作业', 'deadline'],
      },
      {
        line: '如果没有问题，我们下课前再做一个小测，两道选择题，五分钟。',
        level: 'attention',
        keywords: ['小测'],
      },
    ]);
  });

  it('stay quiet where the former defaults raised false alarms', () => {
    const quiet = [
      '所以说数组支持随机存取，链表不支持，这是两者最大的区别。',
      '有同学问为什么要空出一个位置，我来回答一下：为了区分队空和队满。',
    ];
    const former = alerts(FORMER_DEFAULTS).map((alert) => alert.line);
    const now = alerts(DEFAULT_KEYWORDS).map((alert) => alert.line);
    for (const line of quiet) {
      expect(lecture).toContain(line);
      expect(former).toContain(line);
      expect(now).not.toContain(line);
    }
  });

  it('leave the student’s name as the one signal for a call by name, homophones included', () => {
    const called = '王小明，你来说说栈和队列有什么区别？';
    expect(alerts(DEFAULT_KEYWORDS).map((alert) => alert.line)).not.toContain(called);
    // The recognizer wrote 小 where the student typed 晓: the same sound.
    expect(alerts(DEFAULT_KEYWORDS, ['王晓明']).find((alert) => alert.line === called)).toEqual({
      line: called,
      level: 'alert',
      keywords: ['王晓明'],
    });
  });
});
