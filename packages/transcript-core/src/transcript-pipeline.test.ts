import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isTranscriptCoreError } from './errors.ts';
import { createKeywordMatcher } from './keyword-matcher.ts';
import {
  SUMMARY_END_MARKER,
  SUMMARY_START_MARKER,
  type TranscriptEntry,
} from './transcript-format.ts';
import {
  type HistoryFoldedEvent,
  type Summarize,
  TranscriptPipeline,
  type TranscriptPipelineEvents,
  type TranscriptPipelineOptions,
} from './transcript-pipeline.ts';
import { TranscriptStore } from './transcript-store.ts';

let folder: string;
let path: string;
let store: TranscriptStore;
let seconds: number;
// Each clock reading is one second later: every entry gets its own time.
const now = () => new Date(2026, 8, 21, 10, 0, seconds++);

beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'transcript-pipeline-'));
  path = join(folder, 'class_transcript.txt');
  seconds = 0;
  store = await TranscriptStore.open(path, { now });
});
afterEach(async () => {
  await store.close();
  await rm(folder, { recursive: true, force: true });
});

type EventLog = Array<[keyof TranscriptPipelineEvents, unknown]>;

function pipelineWith(options: Omit<TranscriptPipelineOptions, 'store'> = {}) {
  const pipeline = new TranscriptPipeline({ store, ...options });
  const events: EventLog = [];
  for (const name of [
    'line-appended',
    'line-updated',
    'line-dropped',
    'alert-raised',
    'history-folded',
    'fold-failed',
    'end',
  ] as const) {
    pipeline.on(name, (...args: unknown[]) => events.push([name, args[0]]));
  }
  return { pipeline, events };
}

const texts = async () => (await store.read()).entries.map((entry) => entry.text);
const names = (events: EventLog) => events.map(([name]) => name);

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('pushLine (mock and cloud modes)', () => {
  it('appends meaningful lines and drops fragments and near-duplicates, with events', async () => {
    const { pipeline, events } = pipelineWith();
    expect(await pipeline.pushLine('同学们好，今天讲第三章。')).toMatchObject({
      action: 'appended',
    });
    expect(await pipeline.pushLine('嗯嗯')).toEqual({
      action: 'dropped',
      text: '嗯嗯',
      reason: 'not-meaningful',
    });
    expect(await pipeline.pushLine('。')).toMatchObject({ reason: 'not-meaningful' });
    expect(await pipeline.pushLine('同学们好，今天讲第三章')).toEqual({
      action: 'dropped',
      text: '同学们好，今天讲第三章',
      reason: 'near-duplicate',
      duplicateOf: '同学们好，今天讲第三章。',
    });
    expect(await pipeline.pushLine('Please open your books to page 42.')).toMatchObject({
      action: 'appended',
    });
    expect(await pipeline.pushLine('please open your books to page 42')).toMatchObject({
      reason: 'near-duplicate',
    });
    expect(await texts()).toEqual([
      '同学们好，今天讲第三章。',
      'Please open your books to page 42.',
    ]);
    expect(events[0]).toEqual([
      'line-appended',
      { entry: { id: 1, time: '10:00:00', text: '同学们好，今天讲第三章。' }, source: 'line' },
    ]);
    expect(names(events)).toEqual([
      'line-appended',
      'line-dropped',
      'line-dropped',
      'line-dropped',
      'line-appended',
      'line-dropped',
    ]);
  });

  it('applies intakes in call order when they are not awaited', async () => {
    const { pipeline } = pipelineWith();
    const topics = [
      '矩阵',
      '行列式',
      '特征值',
      '向量空间',
      'eigenvalues',
      'the rank',
      '线性映射',
      'PCA 降维',
    ];
    const lines = topics.map((topic, i) => `${'一二三四五六七八'[i]}、${topic}`);
    await Promise.all(lines.map((line) => pipeline.pushLine(line)));
    expect(await texts()).toEqual(lines);
  });
});

describe('keyword alerts', () => {
  const keywords = createKeywordMatcher([
    { text: '张三', level: 'alert' },
    { text: '点名', level: 'alert' },
    { text: '作业', level: 'attention' },
    { text: 'exam', level: 'attention' },
  ]);

  it("raises the old product's alert for the newly appended line", async () => {
    const { pipeline, events } = pipelineWith({ keywords });
    const result = await pipeline.pushLine('张三你来回答这个问题');
    const alert = {
      level: 'alert',
      keywords: ['张三'],
      lineId: 1,
      text: '张三你来回答这个问题',
      timestamp: '10:00:00',
      matches: [
        {
          keyword: '张三',
          level: 'alert',
          count: 1,
          homophone: false,
          matchedText: '张三',
          personal: false,
        },
      ],
      forYou: false,
    };
    expect(result).toMatchObject({ action: 'appended', alert });
    expect(events.at(-1)).toEqual(['alert-raised', alert]);
  });

  it('says an alert is for the listener exactly when one of its matches is personal', async () => {
    const mine = createKeywordMatcher(
      [
        { text: '张三', level: 'alert', personal: true },
        { text: '点名', level: 'alert' },
        { text: '作业', level: 'attention' },
      ],
      { homophones: 'pinyin' },
    );
    const { pipeline, events } = pipelineWith({ keywords: mine });
    await pipeline.pushLine('下面开始点名');
    await pipeline.pushLine('章三你来回答');
    await pipeline.pushLine('作业明天交');
    await pipeline.pushLine('点名，张三');
    const alerts = events.filter(([name]) => name === 'alert-raised').map(([, alert]) => alert);
    expect(alerts).toEqual([
      expect.objectContaining({ keywords: ['点名'], forYou: false }),
      expect.objectContaining({ keywords: ['张三'], forYou: true }),
      expect.objectContaining({ keywords: ['作业'], forYou: false }),
      expect.objectContaining({ keywords: ['张三', '点名'], forYou: true }),
    ]);
  });

  it('checks only the new line: earlier lines never alert again', async () => {
    const { pipeline, events } = pipelineWith({ keywords });
    await pipeline.pushLine('下面开始点名');
    await pipeline.pushLine('第一个问题比较简单');
    await pipeline.pushLine('The exam is next week');
    const alerts = events.filter(([name]) => name === 'alert-raised').map(([, alert]) => alert);
    expect(alerts).toEqual([
      expect.objectContaining({ level: 'alert', keywords: ['点名'] }),
      expect.objectContaining({ level: 'attention', keywords: ['exam'] }),
    ]);
  });

  it('one alert per line with the highest level, and keywords reload on demand', async () => {
    const { pipeline, events } = pipelineWith({ keywords });
    await pipeline.pushLine('作业明天交，张三记一下');
    expect(events.at(-1)).toEqual([
      'alert-raised',
      expect.objectContaining({ level: 'alert', keywords: ['张三', '作业'] }),
    ]);
    pipeline.setKeywords(createKeywordMatcher(['李四']));
    expect((await pipeline.pushLine('张三和李四一组')).action).toBe('appended');
    expect(events.at(-1)).toEqual([
      'alert-raised',
      expect.objectContaining({ keywords: ['李四'] }),
    ]);
    pipeline.setKeywords(null);
    expect(await pipeline.pushLine('李四上来写一下')).toMatchObject({ alert: null });
    expect(() => pipeline.setKeywords({} as never)).toThrow(/KeywordMatcher/);
  });

  it('names the line each alert was heard in, after folds and after the file is reopened', async () => {
    const summarize: Summarize = async (previous, entries) => `${previous}+${entries.length}`;
    const fold = { threshold: 5, keepRecent: 2 };
    const alertIds = (events: EventLog) =>
      events.flatMap(([name, event]) => (name === 'alert-raised' ? [event] : []));
    const first = pipelineWith({ keywords, summarize, fold });
    const lines = [
      '同学们好，今天讲矩阵的秩',
      '下面开始点名',
      '先复习一下初等变换',
      '初等变换不改变矩阵的秩',
      '这道题请张三来回答',
      '我们看第二个例子',
      '这个矩阵有三个非零行',
    ];
    for (const text of lines) {
      await first.pipeline.pushLine(text);
      await first.pipeline.flush();
    }
    // A segment joined to the line before it keeps that line's id.
    await first.pipeline.pushSegment({ text: '所以它的秩是', startMs: 0, endMs: 900 });
    await first.pipeline.pushSegment({ text: '三，作业是习题五', startMs: 1000, endMs: 2400 });
    await first.pipeline.close();
    expect(alertIds(first.events)).toEqual([
      expect.objectContaining({ keywords: ['点名'], lineId: 2 }),
      expect.objectContaining({ keywords: ['张三'], lineId: 5 }),
      expect.objectContaining({
        keywords: ['作业'],
        lineId: 8,
        text: '所以它的秩是三，作业是习题五',
      }),
    ]);
    expect(first.events.filter(([name]) => name === 'history-folded')).not.toEqual([]);

    await store.close();
    store = await TranscriptStore.open(path, { now });
    const second = pipelineWith({ keywords, summarize, fold });
    await second.pipeline.pushLine('期末考试之前还会点名');
    await second.pipeline.close();
    const [alert] = alertIds(second.events);
    expect(alert).toMatchObject({ keywords: ['点名'], lineId: 9 });
    const entries = (await store.read()).entries;
    expect(entries.find((entry) => entry.text === '期末考试之前还会点名')?.id).toBe(9);
  });
});

describe('pushSegment (local mode)', () => {
  it('overwrites the previous entry with a segment that extends it', async () => {
    const { pipeline, events } = pipelineWith();
    await pipeline.pushSegment({ text: '今天我们讲', startMs: 0, endMs: 1200 });
    const result = await pipeline.pushSegment({
      text: '今天我们讲线性代数。',
      startMs: 0,
      endMs: 2500,
    });
    expect(result).toEqual({
      action: 'updated',
      entry: { id: 1, time: '10:00:00', text: '今天我们讲线性代数。' },
      previousText: '今天我们讲',
      merge: 'extended',
      alert: null,
    });
    expect(await readFile(path, 'utf8')).toBe('[10:00:00] 今天我们讲线性代数。\n');
    expect(events[1]).toEqual([
      'line-updated',
      {
        entry: { id: 1, time: '10:00:00', text: '今天我们讲线性代数。' },
        previousText: '今天我们讲',
        merge: 'extended',
        source: 'segment',
      },
    ]);
  });

  it('joins an unfinished or very short entry with a segment within 3 s', async () => {
    const { pipeline } = pipelineWith();
    await pipeline.pushSegment({ text: '我们来看第三', startMs: 0, endMs: 1500 });
    expect(await pipeline.pushSegment({ text: '题', startMs: 2000, endMs: 2300 })).toMatchObject({
      action: 'updated',
      merge: 'joined',
      entry: { text: '我们来看第三题' },
    });
    await pipeline.pushSegment({ text: 'OK.', startMs: 10_000, endMs: 10_400 });
    expect(
      await pipeline.pushSegment({ text: 'Let us start.', startMs: 11_000, endMs: 12_000 }),
    ).toMatchObject({
      merge: 'joined',
      entry: { text: 'OK. Let us start.' },
    });
    expect(await texts()).toEqual(['我们来看第三题', 'OK. Let us start.']);
  });

  it('starts a new entry after a finished sentence, a gap over 3 s, or a clock restart', async () => {
    const { pipeline } = pipelineWith();
    await pipeline.pushSegment({ text: '这一节我们讲矩阵的秩。', startMs: 0, endMs: 3000 });
    expect(
      await pipeline.pushSegment({ text: '先看定义', startMs: 3500, endMs: 5000 }),
    ).toMatchObject({ action: 'appended' });
    expect(
      await pipeline.pushSegment({ text: '然后看例子', startMs: 8100, endMs: 9000 }),
    ).toMatchObject({ action: 'appended' });
    // Recogniser restarted after a pause: its clock is back at 0.
    expect(
      await pipeline.pushSegment({ text: '我们继续往下看', startMs: 100, endMs: 900 }),
    ).toMatchObject({ action: 'appended' });
    expect(await texts()).toEqual([
      '这一节我们讲矩阵的秩。',
      '先看定义',
      '然后看例子',
      '我们继续往下看',
    ]);
  });

  it('never grows a joined entry past maxJoinedChars', async () => {
    const { pipeline } = pipelineWith({ merge: { maxJoinedChars: 12 } });
    await pipeline.pushSegment({ text: '这是第一个片段没有标点', startMs: 0, endMs: 1000 });
    expect(
      await pipeline.pushSegment({ text: '这是第二个片段', startMs: 1500, endMs: 2000 }),
    ).toMatchObject({ action: 'appended' });
  });

  it('drops a repeat of the previous segment instead of joining it', async () => {
    const { pipeline } = pipelineWith();
    await pipeline.pushSegment({ text: '请大家翻到第四十二页', startMs: 0, endMs: 2000 });
    expect(
      await pipeline.pushSegment({ text: '请大家翻到第四十二页', startMs: 2500, endMs: 4000 }),
    ).toMatchObject({
      action: 'dropped',
      reason: 'near-duplicate',
    });
    // A shorter re-emission is contained in the entry: dropped too, not joined.
    expect(
      await pipeline.pushSegment({ text: '大家翻到第四十二页', startMs: 4500, endMs: 5000 }),
    ).toMatchObject({
      reason: 'near-duplicate',
    });
    expect(await texts()).toEqual(['请大家翻到第四十二页']);
  });

  it('checks the merged entry with the filters against the earlier entries', async () => {
    const { pipeline } = pipelineWith();
    await pipeline.pushLine('我们来看第三题');
    await pipeline.pushSegment({ text: '我们来看', startMs: 0, endMs: 800 });
    // Joined, it would repeat the first line: dropped, the entry stays as it was.
    expect(
      await pipeline.pushSegment({ text: '第三题', startMs: 1000, endMs: 1800 }),
    ).toMatchObject({
      action: 'dropped',
      reason: 'near-duplicate',
      duplicateOf: '我们来看第三题',
    });
    expect(await texts()).toEqual(['我们来看第三题', '我们来看']);
  });

  it('does not alert twice for a keyword of the earlier part, but does for a new occurrence', async () => {
    const { pipeline, events } = pipelineWith({
      keywords: createKeywordMatcher(['张三', { text: '作业', level: 'attention' }]),
    });
    await pipeline.pushSegment({ text: '张三你来', startMs: 0, endMs: 800 });
    await pipeline.pushSegment({ text: '张三你来回答', startMs: 0, endMs: 1600 });
    await pipeline.pushSegment({ text: '这道作业题', startMs: 2000, endMs: 3000 });
    await pipeline.pushSegment({ text: '对吧张三', startMs: 3500, endMs: 4000 });
    const alerts = events.filter(([name]) => name === 'alert-raised').map(([, alert]) => alert);
    expect(alerts).toEqual([
      expect.objectContaining({ keywords: ['张三'], text: '张三你来' }),
      expect.objectContaining({
        level: 'attention',
        keywords: ['作业'],
        text: '张三你来回答这道作业题',
      }),
      expect.objectContaining({
        level: 'alert',
        keywords: ['张三'],
        text: '张三你来回答这道作业题对吧张三',
      }),
    ]);
  });

  it('a sentence starting like the previous one a minute later is new, and alerts again', async () => {
    const { pipeline, events } = pipelineWith({ keywords: createKeywordMatcher(['张三']) });
    await pipeline.pushSegment({ text: '张三你来回答。', startMs: 0, endMs: 1500 });
    expect(
      await pipeline.pushSegment({ text: '张三你来回答。张三？', startMs: 60_000, endMs: 62_000 }),
    ).toMatchObject({ action: 'appended' });
    expect(events.filter(([name]) => name === 'alert-raised')).toHaveLength(2);
  });

  it('only merges into entries it wrote from segments', async () => {
    const { pipeline } = pipelineWith();
    await pipeline.pushSegment({ text: '我们来看', startMs: 0, endMs: 800 });
    await pipeline.pushLine('插入的一行 inserted line');
    expect(await pipeline.pushSegment({ text: '第三题', startMs: 900, endMs: 1500 })).toMatchObject(
      { action: 'appended' },
    );
  });

  it('rejects a segment without usable times, naming the expected shape', async () => {
    const { pipeline } = pipelineWith();
    await expect(pipeline.pushSegment({ text: '你好' } as never)).rejects.toMatchObject({
      code: 'TRANSCRIPT_INVALID_ARGUMENT',
      message: expect.stringContaining('startMs'),
    });
    await expect(
      pipeline.pushSegment({ text: '你好', startMs: 5, endMs: 1 }),
    ).rejects.toMatchObject({
      code: 'TRANSCRIPT_INVALID_ARGUMENT',
    });
  });
});

describe('line times', () => {
  it("stamps segments with the time given, and a merge keeps the first part's time", async () => {
    const { pipeline, events } = pipelineWith();
    // A recording: the speech starts 2.1 s, 14.4 s and 31 s into the file.
    await pipeline.pushSegment({
      text: '我们来看第三',
      startMs: 2_100,
      endMs: 3_500,
      time: { positionMs: 2_100 },
    });
    await pipeline.pushSegment({
      text: '题',
      startMs: 4_000,
      endMs: 4_300,
      time: { positionMs: 4_000 },
    });
    await pipeline.pushSegment({
      text: '今天讲线性代数。',
      startMs: 14_400,
      endMs: 16_000,
      time: { positionMs: 14_400 },
    });
    await pipeline.pushSegment({
      text: '今天讲线性代数。秩是什么',
      startMs: 14_400,
      endMs: 18_000,
      time: { positionMs: 14_400 },
    });
    await pipeline.pushLine('Who can tell me the rank?', { time: { positionMs: 31_000 } });
    expect(await readFile(path, 'utf8')).toBe(
      '[00:00:02] 我们来看第三题\n[00:00:14] 今天讲线性代数。秩是什么\n[00:00:31] Who can tell me the rank?\n',
    );
    expect(
      events
        .filter(([name]) => name !== 'alert-raised')
        .map(([, event]) => (event as { entry: TranscriptEntry }).entry.time),
    ).toEqual(['00:00:02', '00:00:02', '00:00:14', '00:00:14', '00:00:31']);
    // Without a time the store's clock stamps the line, as before.
    await pipeline.pushLine('live again');
    expect((await store.read()).entries.at(-1)?.time).toBe('10:00:00');
  });

  it('refuses a malformed time, writing nothing', async () => {
    const { pipeline } = pipelineWith();
    await expect(
      pipeline.pushSegment({ text: 'a', startMs: 0, endMs: 1, time: { positionMs: Number.NaN } }),
    ).rejects.toThrow(/pushSegment: time\.positionMs must be a number of ms/);
    await expect(pipeline.pushLine('b', { time: 'noon' })).rejects.toThrow(
      /pushLine: options\.time must be a time HH:MM:SS/,
    );
    await expect(pipeline.pushLine('b', 'x' as never)).rejects.toThrow(
      /pushLine: options must be an object/,
    );
    expect(await texts()).toEqual([]);
  });
});

describe('history folding', () => {
  const fold = { threshold: 5, keepRecent: 2 };
  const line = (i: number) => `第${i}句：讲到了知识点${i} point ${i}`;

  it('folds the older entries into the block once the threshold is reached', async () => {
    const calls: Array<[string, TranscriptEntry[]]> = [];
    const summarize: Summarize = async (previous, entries) => {
      calls.push([previous, [...entries]]);
      return `${previous}摘要到第${entries.length}句。`;
    };
    const { pipeline, events } = pipelineWith({ summarize, fold });
    for (let i = 0; i < 4; i += 1) await pipeline.pushLine(line(i));
    await pipeline.flush();
    expect(calls).toEqual([]);
    await pipeline.pushLine(line(4));
    await pipeline.flush();
    expect(calls).toEqual([
      ['', [0, 1, 2].map((i) => ({ id: i + 1, time: `10:00:0${i}`, text: line(i) }))],
    ]);
    expect(events.at(-1)).toEqual([
      'history-folded',
      {
        summary: '摘要到第3句。',
        foldedCount: 3,
        keptCount: 2,
        firstFoldedId: 1,
        lastFoldedId: 3,
        firstKeptId: 4,
      },
    ]);
    expect(await readFile(path, 'utf8')).toBe(
      `=== 已折叠 3 条 ===\n\n${SUMMARY_START_MARKER}\n摘要到第3句。\n${SUMMARY_END_MARKER}\n[10:00:03] ${line(3)}\n[10:00:04] ${line(4)}\n`,
    );
    // The next fold passes the previous summary.
    for (let i = 5; i < 8; i += 1) await pipeline.pushLine(line(i));
    await pipeline.flush();
    expect(calls[1]?.[0]).toBe('摘要到第3句。');
    expect(await store.readSummary()).toBe('摘要到第3句。摘要到第3句。');
    expect((await store.readRecent({ count: 10 })).map((entry) => entry.text)).toEqual([
      line(6),
      line(7),
    ]);
  });

  it('names the folded lines by id, fold after fold and after the file is reopened', async () => {
    const summarize: Summarize = async (previous, entries) => `${previous}+${entries.length}`;
    const folds = (events: EventLog) =>
      events.flatMap(([name, event]) => (name === 'history-folded' ? [event] : []));
    const ids = async () => (await store.read()).entries.map((entry) => entry.id);
    const first = pipelineWith({ summarize, fold });
    for (let i = 0; i < 9; i += 1) {
      await first.pipeline.pushLine(line(i));
      await first.pipeline.flush();
    }
    await first.pipeline.close();
    expect(folds(first.events)).toEqual([
      expect.objectContaining({
        foldedCount: 3,
        firstFoldedId: 1,
        lastFoldedId: 3,
        firstKeptId: 4,
      }),
      expect.objectContaining({
        foldedCount: 3,
        firstFoldedId: 4,
        lastFoldedId: 6,
        firstKeptId: 7,
      }),
    ]);
    expect(await ids()).toEqual([7, 8, 9]);

    // A new store and pipeline on the same file (the backend restarted): ids go on.
    await store.close();
    store = await TranscriptStore.open(path, { now });
    const second = pipelineWith({ summarize, fold });
    for (let i = 9; i < 11; i += 1) {
      await second.pipeline.pushLine(line(i));
      await second.pipeline.flush();
    }
    await second.pipeline.close();
    expect(folds(second.events)).toEqual([
      expect.objectContaining({
        foldedCount: 3,
        firstFoldedId: 7,
        lastFoldedId: 9,
        firstKeptId: 10,
      }),
    ]);
    expect(await ids()).toEqual([10, 11]);
    expect(await store.readSummary()).toBe('+3+3+3');

    // A backlog folded in batches: each batch names its own range.
    for (let i = 11; i < 20; i += 1) await store.append(line(i));
    const third = pipelineWith({ summarize, fold: { ...fold, maxEntries: 4 } });
    await third.pipeline.pushLine(line(20));
    await third.pipeline.flush();
    await third.pipeline.close();
    expect(
      folds(third.events).map((event) => {
        const { firstFoldedId, lastFoldedId, firstKeptId } = event as HistoryFoldedEvent;
        return [firstFoldedId, lastFoldedId, firstKeptId];
      }),
    ).toEqual([
      [10, 13, 14],
      [14, 17, 18],
    ]);
    expect(await ids()).toEqual([18, 19, 20, 21]);
  });

  it('folds a long backlog in batches of at most maxEntries', async () => {
    for (let i = 0; i < 12; i += 1) await store.append(line(i));
    const sizes: number[] = [];
    const summarize: Summarize = async (previous, entries) => {
      sizes.push(entries.length);
      return `${previous}+${entries.length}`;
    };
    const { pipeline } = pipelineWith({ summarize, fold: { ...fold, maxEntries: 4 } });
    // One new line sets off the folds of the whole backlog, one batch after another.
    await pipeline.pushLine(line(12));
    await pipeline.flush();
    expect(sizes).toEqual([4, 4, 3]);
    expect((await store.read()).entries.map((entry) => entry.text)).toEqual([11, 12].map(line));
    expect(await store.readSummary()).toBe('+4+4+3');
  });

  it('flush waits for a running fold to be written', async () => {
    const pending = deferred<string>();
    const { pipeline } = pipelineWith({ summarize: () => pending.promise, fold });
    for (let i = 0; i < 5; i += 1) await pipeline.pushLine(line(i));
    let flushed = false;
    const flushing = pipeline.flush().then(() => {
      flushed = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(flushed).toBe(false);
    pending.resolve('摘要');
    await flushing;
    expect(await store.readSummary()).toBe('摘要');
  });

  it('never makes appends wait for the summarizer', async () => {
    const pending = deferred<string>();
    const { pipeline, events } = pipelineWith({ summarize: () => pending.promise, fold });
    for (let i = 0; i < 5; i += 1) await pipeline.pushLine(line(i));
    // The summarizer has not answered; appends still complete.
    for (let i = 5; i < 9; i += 1)
      expect((await pipeline.pushLine(line(i))).action).toBe('appended');
    expect(await store.readSummary()).toBe('');
    pending.resolve('前三句的摘要');
    await pipeline.flush();
    // The fold asked for first, then the entries written meanwhile.
    expect(events.filter(([name]) => name === 'history-folded')).toEqual([
      [
        'history-folded',
        {
          summary: '前三句的摘要',
          foldedCount: 3,
          keptCount: 6,
          firstFoldedId: 1,
          lastFoldedId: 3,
          firstKeptId: 4,
        },
      ],
      [
        'history-folded',
        {
          summary: '前三句的摘要',
          foldedCount: 4,
          keptCount: 2,
          firstFoldedId: 4,
          lastFoldedId: 7,
          firstKeptId: 8,
        },
      ],
    ]);
    expect((await store.read()).entries.map((entry) => entry.text)).toEqual([7, 8].map(line));
  });

  it('loses nothing when the summarizer fails, and retries at the next fold point', async () => {
    let attempts = 0;
    const summarize: Summarize = async (_previous, entries) => {
      attempts += 1;
      if (attempts === 1) throw new Error('LLM unavailable');
      if (attempts === 2) return '   ';
      return `共${entries.length}句`;
    };
    const { pipeline, events } = pipelineWith({ summarize, fold });
    for (let i = 0; i < 5; i += 1) await pipeline.pushLine(line(i));
    await pipeline.flush();
    expect(events.at(-1)).toEqual([
      'fold-failed',
      { reason: 'summarize-failed', error: new Error('LLM unavailable') },
    ]);
    expect(await texts()).toEqual([0, 1, 2, 3, 4].map(line));
    // Not on every line: the next fold point is threshold − keepRecent (3) entries later.
    for (let i = 5; i < 7; i += 1) {
      await pipeline.pushLine(line(i));
      await pipeline.flush();
    }
    expect(attempts).toBe(1);
    await pipeline.pushLine(line(7));
    await pipeline.flush();
    expect(attempts).toBe(2);
    expect(events.at(-1)).toEqual([
      'fold-failed',
      expect.objectContaining({ reason: 'summary-empty' }),
    ]);
    for (let i = 8; i < 11; i += 1) {
      await pipeline.pushLine(line(i));
      await pipeline.flush();
    }
    expect(events.at(-1)).toEqual([
      'history-folded',
      {
        summary: '共9句',
        foldedCount: 9,
        keptCount: 2,
        firstFoldedId: 1,
        lastFoldedId: 9,
        firstKeptId: 10,
      },
    ]);
    expect(attempts).toBe(3);
    expect(await texts()).toEqual([9, 10].map(line));
    expect(names(events).filter((name) => name === 'fold-failed')).toHaveLength(2);
  });

  it('calls a summarizer that keeps failing once per fold point, however long the class', async () => {
    let attempts = 0;
    const summarize: Summarize = async () => {
      attempts += 1;
      throw new Error('no LLM configured');
    };
    const { pipeline } = pipelineWith({ summarize, fold: { threshold: 10, keepRecent: 4 } });
    for (let i = 0; i < 100; i += 1) {
      await pipeline.pushLine(line(i));
      await pipeline.flush();
    }
    // Lines 10, 16, 22, … 100: one try per 6 lines.
    expect(attempts).toBe(16);
    expect(await texts()).toHaveLength(100);
  });

  it('retryFold tries a failed fold again at once, when its summarizer can work again', async () => {
    let configured = false;
    const summarize: Summarize = async (_previous, entries) => {
      if (!configured) throw new Error('no LLM configured');
      return `补上了${entries.length}句`;
    };
    const { pipeline, events } = pipelineWith({ summarize, fold });
    for (let i = 0; i < 6; i += 1) await pipeline.pushLine(line(i));
    await pipeline.flush();
    expect(names(events)).toContain('fold-failed');
    configured = true;
    pipeline.retryFold();
    await pipeline.flush();
    expect(events.at(-1)).toEqual([
      'history-folded',
      {
        summary: '补上了4句',
        foldedCount: 4,
        keptCount: 2,
        firstFoldedId: 1,
        lastFoldedId: 4,
        firstKeptId: 5,
      },
    ]);
    // Nothing due: nothing asked.
    pipeline.retryFold();
    await pipeline.flush();
    expect(names(events).filter((name) => name === 'history-folded')).toHaveLength(1);
  });

  it('refuses a fold whose entries changed meanwhile, and retries later', async () => {
    const pending = deferred<string>();
    let calls = 0;
    const summarize: Summarize = () =>
      ++calls === 1 ? pending.promise : Promise.resolve('新摘要');
    const { pipeline, events } = pipelineWith({ summarize, fold });
    for (let i = 0; i < 5; i += 1) await pipeline.pushLine(line(i));
    // Someone edits the file while the summarizer works: the first line is gone.
    const edited = (await readFile(path, 'utf8')).split('\n').slice(1).join('\n');
    await writeFile(path, edited);
    pending.resolve('旧摘要');
    await pipeline.flush();
    expect(events.at(-1)).toEqual(['fold-failed', { reason: 'entries-changed' }]);
    expect(await texts()).toEqual([1, 2, 3, 4].map(line));
    await pipeline.pushLine(line(5));
    await pipeline.flush();
    expect(events.at(-1)).toEqual([
      'history-folded',
      expect.objectContaining({ summary: '新摘要', foldedCount: 3 }),
    ]);
  });

  it('close abandons a running fold: the summarizer is aborted, the file untouched', async () => {
    let signal: AbortSignal | undefined;
    const summarize: Summarize = (_previous, _entries, context) => {
      signal = context.signal;
      return new Promise(() => {});
    };
    const { pipeline, events } = pipelineWith({ summarize, fold });
    for (let i = 0; i < 5; i += 1) await pipeline.pushLine(line(i));
    const before = await readFile(path, 'utf8');
    await pipeline.close();
    expect(signal?.aborted).toBe(true);
    expect(names(events).at(-1)).toBe('end');
    expect(await readFile(path, 'utf8')).toBe(before);
    await expect(pipeline.pushLine('too late')).rejects.toMatchObject({
      code: 'TRANSCRIPT_CLOSED',
    });
  });
});

describe('options', () => {
  it('rejects malformed options, naming them', () => {
    expect(() => new TranscriptPipeline({} as never)).toThrow(/options.store/);
    expect(() => pipelineWith({ fold: { threshold: 10, keepRecent: 10 } })).toThrow(
      /keepRecent \(10\) must be smaller/,
    );
    expect(() => pipelineWith({ merge: { maxGapMs: -1 } })).toThrow(/merge.maxGapMs/);
    expect(() => pipelineWith({ nearDuplicate: { similarityThreshold: 1.5 } })).toThrow(
      /similarityThreshold/,
    );
    expect(() => pipelineWith({ summarize: 'yes' as never })).toThrow(
      /summarize must be a function/,
    );
  });

  it('checks every option object up front with a coded error naming the field', async () => {
    const bad: Array<[Omit<TranscriptPipelineOptions, 'store'>, RegExp]> = [
      [{ meaningful: { minChars: -1 } }, /meaningful\.minChars must be a number ≥ 0, got -1/],
      [{ meaningful: { fillers: 'um' as never } }, /meaningful\.fillers must be an array/],
      [{ meaningful: { fillers: [null as never] } }, /meaningful\.fillers\[0\] must be a string/],
      [{ meaningful: 'strict' as never }, /meaningful must be an object/],
      [{ nearDuplicate: null as never }, /nearDuplicate must be an object/],
      [{ nearDuplicate: { window: 2.5 } }, /nearDuplicate\.window/],
      [{ merge: 3000 as never }, /merge must be an object/],
      [{ merge: { maxJoinedChars: Number.POSITIVE_INFINITY } }, /merge\.maxJoinedChars/],
      [{ fold: [] as never }, /fold must be an object/],
      [{ fold: { maxEntries: '10' as never } }, /fold\.maxEntries/],
    ];
    for (const [options, message] of bad) {
      let thrown: unknown;
      try {
        new TranscriptPipeline({ store, ...options });
      } catch (error) {
        thrown = error;
      }
      expect(isTranscriptCoreError(thrown), JSON.stringify(options)).toBe(true);
      expect(thrown).toMatchObject({ code: 'TRANSCRIPT_INVALID_ARGUMENT', message });
    }
    // Nothing slipped through to fail the intakes later.
    const { pipeline } = pipelineWith({ meaningful: { fillers: ['um'] } });
    expect(await pipeline.pushLine('um um')).toMatchObject({ reason: 'not-meaningful' });
  });

  it('takes the thresholds of every filter as options', async () => {
    const { pipeline } = pipelineWith({
      meaningful: { minChars: 4 },
      nearDuplicate: { window: 0 },
    });
    expect(await pipeline.pushLine('好的')).toMatchObject({ reason: 'not-meaningful' });
    await pipeline.pushLine('我们继续上课');
    expect(await pipeline.pushLine('我们继续上课')).toMatchObject({ action: 'appended' });
  });
});
