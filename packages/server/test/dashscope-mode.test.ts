// ASR_MODE=dashscope end to end: the real server streams an espeak-ng lecture (a WAV file
// source) to a DashScope test service speaking the documented duplex protocol over a real
// socket, which "recognises" the scripted sentences where they lie in the audio. Faults: a
// dropped connection mid-class, task-failed events (passing and fatal), a refused key.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { samplesToBytes } from '../src/audio/pcm.ts';
import type { ClassClient } from './support/class-client.ts';
import {
  createDashscopeTestServer,
  type DashscopeFault,
  type DashscopeTestServer,
} from './support/dashscope-test-server.ts';
import type { Harness } from './support/harness.ts';
import { type LectureClass, startLectureClass } from './support/lecture-class.ts';
import { LECTURE, type SpeechRecording, speechRecording } from './support/speech.ts';

let running: LectureClass | undefined;
let harness: Harness | undefined;
let service: DashscopeTestServer | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
  await service?.close();
  service = undefined;
});

const TEXTS = ['同学们早上好。', '今天我们讲二叉搜索树。', '请把书翻到第十页。'];

async function startClass(
  lecture: SpeechRecording,
  options: {
    faults?: DashscopeFault[];
    apiKey?: string;
    keyRefusal?: 'handshake' | 'task-failed';
  } = {},
) {
  service = await createDashscopeTestServer({
    apiKey: 'sk-dashscope-test-0000',
    referenceAudio: samplesToBytes(lecture.samples),
    sentences: lecture.sentences.map((sentence, index) => ({
      text: TEXTS[index]!,
      begin_time: sentence.startMs,
      end_time: sentence.endMs,
    })),
    faults: options.faults ?? [],
    ...(options.keyRefusal ? { keyRefusal: options.keyRefusal } : {}),
  });
  running = await startLectureClass(lecture, [
    // The original product's settings: its mode name and key name, unchanged.
    'ASR_MODE=dashscope',
    `DASHSCOPE_API_KEY=${options.apiKey ?? 'sk-dashscope-test-0000'}`,
    `DASHSCOPE_WS_URL=${service.url}`,
  ]);
  harness = running.harness;
  return running.client;
}

const lines = async (live: ClassClient) => (await live.transcript()).map((entry) => entry.text);

describe('ASR_MODE=dashscope', () => {
  it('writes each final sentence once, shows partials live, and speaks the documented protocol', async () => {
    const lecture = await speechRecording(LECTURE);
    const live = await startClass(lecture);
    const started = await live.start({ course_name: '数据结构' });
    expect(started.body).toMatchObject({ status: 'started', effective_asr_mode: 'dashscope' });
    await live.recognizerState('ended');

    expect(await lines(live)).toEqual(TEXTS);
    const partials = live
      .all('partial.changed')
      .map((event) => (event.data as { text: string }).text);
    expect(
      partials.some((text) => text !== '' && TEXTS[1]!.startsWith(text) && text !== TEXTS[1]),
    ).toBe(true);
    // Partial text is never written: the file holds the three sentences only.
    const file = await readFile(join(harness!.dataDir, 'class_transcript.txt'), 'utf8');
    expect(file.split('\n').filter((line) => /^\[\d\d:\d\d:\d\d\] /.test(line))).toHaveLength(3);

    expect(service!.connections).toHaveLength(1);
    const [connection] = service!.connections;
    expect(connection!.headers.authorization).toBe('bearer sk-dashscope-test-0000');
    expect(connection!.runTask).toMatchObject({
      header: {
        action: 'run-task',
        streaming: 'duplex',
        task_id: expect.stringMatching(/^[0-9a-f]{32}$/),
      },
      payload: {
        task_group: 'audio',
        task: 'asr',
        function: 'recognition',
        model: 'fun-asr-realtime',
        parameters: { format: 'pcm', sample_rate: 16000, heartbeat: true },
        input: {},
      },
    });
    // Every sample of the lecture once, then finish-task for the same task, answered task-finished.
    expect(connection!.audio.byteLength).toBe(lecture.samples.byteLength);
    const actions = connection!.instructions.map(
      (instruction) => (instruction.header as { action: string; task_id: string }).action,
    );
    expect(actions).toEqual(['run-task', 'finish-task']);
    expect(connection!.events.at(-1)!.header.event).toBe('task-finished');
  });

  it('reconnects after a connection dropped mid-class and resends what was not final: no line lost or repeated', async () => {
    const lecture = await speechRecording(LECTURE);
    const dropAt = lecture.sentences[1]!.startMs + 1200; // in the middle of the second sentence
    const live = await startClass(lecture, {
      faults: [{ type: 'close', afterAudioMs: dropAt, connection: 1 }],
    });
    await live.start();
    await live.recognizerState('ended');
    expect(await lines(live)).toEqual(TEXTS);
    expect(service!.connections.length).toBeGreaterThanOrEqual(2);
    // The second connection starts where the last final sentence ended (or at the start when
    // none had come back), never later than the drop: nothing unheard is skipped.
    const ends = [0, ...lecture.sentences.map((sentence) => sentence.endMs)];
    const offset = service!.connections[1]!.referenceOffsetMs!;
    expect(ends.some((end) => Math.abs(end - offset) <= 1)).toBe(true);
    expect(offset).toBeLessThanOrEqual(dropAt);
    expect(offset).toBeGreaterThan(0);
    const errors = live.all('error.raised').map((event) => event.data as { message: string });
    expect(errors).toContainEqual(
      expect.objectContaining({ message: expect.stringContaining('reconnecting') }),
    );
  });

  it('treats a passing task-failed (a service error) like a drop', async () => {
    const lecture = await speechRecording(LECTURE);
    const live = await startClass(lecture, {
      faults: [
        {
          type: 'task-failed',
          code: 'InternalError',
          message: 'Internal server error',
          afterAudioMs: lecture.sentences[2]!.startMs + 500,
          connection: 1,
        },
      ],
    });
    await live.start();
    await live.recognizerState('ended');
    expect(await lines(live)).toEqual(TEXTS);
    const reconnecting = live
      .all('error.raised')
      .map((event) => (event.data as { message: string }).message)
      .find((message) => message.includes('reconnecting'));
    expect(reconnecting).toContain('InternalError');
  });

  it('stops recognition with the service’s code on a fatal task-failed', async () => {
    const lecture = await speechRecording(LECTURE);
    const live = await startClass(lecture, {
      faults: [
        {
          type: 'task-failed',
          code: 'Arrearage',
          message: 'Access denied, please make sure your account is in good standing.',
          afterAudioMs: lecture.sentences[1]!.startMs + 500,
          connection: 1,
        },
      ],
    });
    await live.start();
    await live.recognizerState('failed');
    const error = live.all('error.raised').at(-1)!.data as { message: string };
    expect(error.message).toContain('DashScope stopped the class: Arrearage');
    expect(error.message).toContain('good standing');
    expect(service!.connections).toHaveLength(1);
    expect((await live.stop()).body).toMatchObject({ status: 'stopped' });
    expect((await lines(live)).length).toBeLessThanOrEqual(1);
  });

  it('answers start_monitor with the key to check when the handshake refuses it, in the user’s language', async () => {
    const lecture = await speechRecording(LECTURE);
    const live = await startClass(lecture, { apiKey: 'sk-wrong-key-1111' });
    const started = await live.start({ course_name: '数据结构' });
    expect(started.status).toBe(503);
    expect(started.body).toMatchObject({
      code: 'RECOGNIZER_UNAVAILABLE',
      field: 'DASHSCOPE_API_KEY',
      message: expect.stringContaining('DashScope 拒绝了 API 密钥（HTTP 401 InvalidApiKey'),
    });
    expect(service!.refusals).toBe(1);
    expect(service!.connections).toHaveLength(0);
    expect(harness!.app.classAssistant.monitor.status().is_monitoring).toBe(false);
    const english = await fetch(
      `http://127.0.0.1:${harness!.app.classAssistant.port()}/api/start_monitor`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'accept-language': 'en-US,en;q=0.9' },
        body: '{}',
      },
    );
    expect(await english.json()).toMatchObject({
      field: 'DASHSCOPE_API_KEY',
      message: expect.stringContaining(
        'DashScope refused the API key (HTTP 401 InvalidApiKey: Invalid API-key provided.)',
      ),
    });
  });

  it('says the same when the key is refused by a task-failed after the handshake', async () => {
    const lecture = await speechRecording(LECTURE);
    const live = await startClass(lecture, {
      apiKey: 'sk-wrong-key-2222',
      keyRefusal: 'task-failed',
    });
    const started = await live.start();
    expect(started.status).toBe(503);
    expect(started.body).toMatchObject({
      code: 'RECOGNIZER_UNAVAILABLE',
      field: 'DASHSCOPE_API_KEY',
    });
    expect(String(started.body.message)).toContain('InvalidApiKey');
    expect(service!.connections).toHaveLength(1);
  });
});
