// Whether an alert calls on the student (`for_you`), as a client sees it over real sockets: the
// live event stream (`alert.raised`) and the original client's alert WebSocket. The student's
// name (homophones too) and student-number digits come from the settings STUDENT_NAME and
// STUDENT_NUMBER_DIGITS; without them no alert is for the student.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createHarness, type Harness, waitFor } from './support/harness.ts';
import { type EventStreamClient, openEventStream } from './support/sse-client.ts';

/**
 * A short lecture: each line but the last three raises one alert (looping, it outlasts the
 * near-duplicate window, so its lines are heard again).
 */
const LECTURE = [
  '王小明，你来说说栈和队列有什么区别？',
  '李华，你来回答一下。',
  '请学号尾号是 23 的同学回答一下。',
  '下面布置作业，周五之前交。',
  '二十三号同学，站起来说一下。',
  '王晓明同学请坐。',
  '我们先复习一下链表的插入。',
  '栈是后进先出的结构。',
  '循环队列要空出一个位置。',
];

interface AlertMessage {
  type: string;
  level: string;
  keywords: string[];
  text: string;
  timestamp: string;
  for_you: boolean;
}

let harness: Harness | undefined;
const cleanups: Array<() => void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) cleanup();
  await harness?.close();
  harness = undefined;
});

/** A backend listening on loopback with the lecture as its mock script, plus both channels. */
async function backend(settings: string[], loop = false) {
  harness = await createHarness({
    env: ['ASR_MODE=mock', 'MOCK_INTERVAL_MS=40', `MOCK_LOOP=${loop}`, ...settings],
  });
  const script = join(harness.root, 'lecture.txt');
  await writeFile(script, `${LECTURE.join('\n')}\n`);
  await writeFile(
    harness.envFile,
    `${['ASR_MODE=mock', 'MOCK_INTERVAL_MS=40', `MOCK_LOOP=${loop}`, `MOCK_SCRIPT=${script}`, ...settings].join('\n')}\n`,
  );
  await harness.app.classAssistant.settings.load();
  const base = await harness.listen();
  const events: EventStreamClient = await openEventStream(`${base}/api/events`);
  cleanups.push(() => events.close());
  const socketMessages: AlertMessage[] = [];
  const socket = new WebSocket(`${base.replace('http', 'ws')}/api/ws/alerts`, {
    origin: 'tauri://localhost',
  });
  socket.on('message', (data) => socketMessages.push(JSON.parse(data.toString())));
  await new Promise((resolve, reject) => {
    socket.on('open', resolve);
    socket.on('error', reject);
  });
  cleanups.push(() => socket.close());
  const streamed = () =>
    events.events
      .filter((event) => event.event === 'alert.raised')
      .map((event) => event.data as AlertMessage);
  return { base, streamed, socketMessages };
}

const start = async (base: string) => {
  const response = await fetch(`${base}/api/start_monitor`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ course_name: '数据结构' }),
  });
  expect(response.status).toBe(200);
};

/** Each alert as [line, for_you]. */
const forYou = (alerts: AlertMessage[]) => alerts.map((alert) => [alert.text, alert.for_you]);

describe('for_you', () => {
  it('is true for the student’s name, a homophone of it and their digits; false for someone else and for attention words', async () => {
    const { base, streamed, socketMessages } = await backend([
      'STUDENT_NAME=王晓明',
      'STUDENT_NUMBER_DIGITS=23',
    ]);
    await start(base);
    await waitFor(() => streamed().length >= 6, 30_000, 'six alerts on the event stream');
    await waitFor(() => socketMessages.length >= 6, 30_000, 'six alerts on the socket');
    const expected = [
      [LECTURE[0], true],
      [LECTURE[1], false],
      [LECTURE[2], true],
      [LECTURE[3], false],
      [LECTURE[4], true],
      [LECTURE[5], true],
    ];
    expect(forYou(streamed())).toEqual(expected);
    expect(forYou(socketMessages)).toEqual(expected);
    // The original client's message, with the one extra field.
    expect(socketMessages[0]).toEqual({
      type: 'keyword_alert',
      level: 'danger',
      keywords: ['王晓明'],
      text: LECTURE[0],
      timestamp: expect.stringMatching(/^\d\d:\d\d:\d\d$/),
      for_you: true,
    });
    expect(streamed()).toEqual(socketMessages);
    // The keyword list shows them apart from the custom keywords, and in `all` (highlighting).
    const view = (await (await fetch(`${base}/api/keywords`)).json()) as Record<string, string[]>;
    expect(view.custom).toEqual([]);
    expect(view.student).toEqual(expect.arrayContaining(['王晓明', '尾号是 23', '23', '二十三']));
    expect(view.all).toEqual(expect.arrayContaining(['点名', '王晓明', '尾号是 23']));
  });

  it('is always false without the student’s settings', async () => {
    const { base, streamed, socketMessages } = await backend([]);
    await start(base);
    // The lines that only say a name or a number raise nothing then.
    await waitFor(
      () => streamed().some((alert) => alert.text === LECTURE[4]),
      30_000,
      'the last alert of the lecture',
    );
    await waitFor(() => socketMessages.length === streamed().length, 30_000, 'the socket');
    expect(forYou(streamed())).toEqual([
      [LECTURE[1], false],
      [LECTURE[2], false],
      [LECTURE[3], false],
      [LECTURE[4], false],
    ]);
    expect(forYou(socketMessages)).toEqual(forYou(streamed()));
  });

  it('follows a name saved through POST /api/settings during the class', async () => {
    const { base, streamed } = await backend([], true);
    await start(base);
    // The class runs, and the name line raised nothing: no name is set.
    await waitFor(
      () => streamed().some((alert) => alert.text === LECTURE[1]),
      30_000,
      'a roll call',
    );
    expect(streamed().filter((alert) => alert.text === LECTURE[0])).toEqual([]);
    const saved = await fetch(`${base}/api/settings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ fields: { STUDENT_NAME: ' 王晓明 ' } }),
    });
    expect(saved.status).toBe(200);
    expect(((await saved.json()) as { applied_now: string[] }).applied_now).toEqual([
      'STUDENT_NAME',
    ]);
    // The looping lecture says the name again: now it is the student's.
    await waitFor(
      () => streamed().find((alert) => alert.text === LECTURE[0])?.for_you,
      30_000,
      'the name line, now the student’s',
    );
  });
});
