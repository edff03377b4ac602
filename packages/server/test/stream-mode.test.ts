// ASR_MODE=stream end to end: the real server streams an espeak-ng lecture (a WAV file source)
// to asr-protocol's test server, which speaks the real wire protocol over a real socket and
// "recognises" the scripted sentences where they lie in the audio (referenceAudio). Faults: a
// dropped connection and error frames, retryable and fatal.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { estimateTokens } from '@class-assistant/asr-protocol';
import {
  type AsrFault,
  type AsrTestServer,
  createAsrTestServer,
} from '@class-assistant/asr-protocol/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { samplesToBytes } from '../src/audio/pcm.ts';
import type { Harness } from './support/harness.ts';
import { type LectureClass, startLectureClass } from './support/lecture-class.ts';
import { LECTURE, type SpeechRecording, speechRecording } from './support/speech.ts';

let running: LectureClass | undefined;
let harness: Harness | undefined;
let service: AsrTestServer | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
  await service?.close();
  service = undefined;
});

const TEXTS = [
  'Good morning, everyone.',
  'Today we will talk about binary search trees.',
  'Please open your books to page ten.',
];

async function startClass(
  lecture: SpeechRecording,
  options: {
    faults?: AsrFault[];
    extraEnv?: string[];
    appKey?: string;
    /** The settings lines naming the service (default: the STREAM_ASR_* keys). */
    serviceEnv?: (url: string) => string[];
  } = {},
) {
  service = await createAsrTestServer({
    auth: { appKey: 'app-id', accessKey: 'access-token' },
    referenceAudio: samplesToBytes(lecture.samples),
    utterances: lecture.sentences.map((sentence, index) => ({
      text: TEXTS[index]!,
      start_time: sentence.startMs,
      end_time: sentence.endMs,
    })),
    faults: options.faults ?? [],
  });
  running = await startLectureClass(
    lecture,
    options.serviceEnv?.(service.url) ?? [
      'ASR_MODE=stream',
      `STREAM_ASR_URL=${service.url}`,
      `STREAM_ASR_APP_KEY=${options.appKey ?? 'app-id'}`,
      'STREAM_ASR_ACCESS_KEY=access-token',
    ],
    options.extraEnv,
  );
  harness = running.harness;
  return running.client;
}

describe('ASR_MODE=stream', () => {
  it('writes each definite utterance once, shows partials live, sends the backend request settings and hot words', async () => {
    const lecture = await speechRecording(LECTURE);
    const live = await startClass(lecture);
    // The class material and the student's own keywords become hot words.
    await writeFile(
      join(harness!.dataDir, 'cite', 'trees.txt'),
      '--- 第 1 页 ---\nBinary Search Tree\n二叉搜索树的查找\n--- 第 2 页 ---\n二叉搜索树的插入\nAVL Tree 旋转\n',
    );
    await fetch(`${await baseOf()}/api/update_keywords`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ keywords: ['李小明'] }),
    });
    const started = await live.start({ course_name: 'Trees', cite_filename: 'trees.txt' });
    expect(started.body).toMatchObject({ status: 'started', effective_asr_mode: 'stream' });
    await live.recognizerState('ended');

    expect((await live.transcript()).map((entry) => entry.text)).toEqual(TEXTS);
    const partials = live
      .all('partial.changed')
      .map((event) => (event.data as { text: string }).text);
    expect(partials).toContain('Today we');
    // Partial text is shown live but never written: the file holds the three sentences only.
    const file = await readFile(join(harness!.dataDir, 'class_transcript.txt'), 'utf8');
    expect(file.split('\n').filter((line) => /^\[\d\d:\d\d:\d\d\] /.test(line))).toHaveLength(3);

    const [connection] = service!.connections;
    expect(service!.connections).toHaveLength(1);
    expect(connection!.endpoint).toBe('bigmodel_async');
    expect(connection!.headers).toMatchObject({
      'x-api-app-key': 'app-id',
      'x-api-access-key': 'access-token',
      'x-api-resource-id': 'volc.bigasr.sauc.duration',
    });
    const request = connection!.request as {
      audio: Record<string, unknown>;
      request: Record<string, unknown> & { corpus?: { context: string } };
    };
    expect(request.audio).toMatchObject({ format: 'pcm', rate: 16000, bits: 16, channel: 1 });
    expect(request.request).toMatchObject({
      model_name: 'bigmodel',
      show_utterances: true,
      result_type: 'single',
      end_window_size: 800,
      force_to_speech_time: 1000,
    });
    const hotwords = (
      JSON.parse(request.request.corpus!.context) as { hotwords: Array<{ word: string }> }
    ).hotwords.map((item) => item.word);
    expect(hotwords[0]).toBe('李小明');
    expect(hotwords).toContain('二叉搜索树');
    expect(hotwords).toContain('AVL Tree');
    expect(hotwords.reduce((sum, word) => sum + estimateTokens(word), 0)).toBeLessThanOrEqual(100);
    // 200 ms packets (6400 bytes), the last one shorter, all of the lecture's audio once.
    const audioFrames = connection!.frames.filter((frame) => frame.type === 'audio-only-request');
    expect(audioFrames.slice(0, -2).every((frame) => frame.payload.byteLength === 6400)).toBe(true);
    expect(connection!.audio.byteLength).toBe(lecture.samples.byteLength);
  });

  it('runs a class from the original product’s settings file, its key names and seed-asr unchanged', async () => {
    const lecture = await speechRecording(LECTURE);
    const live = await startClass(lecture, {
      serviceEnv: (url) => [
        'ASR_MODE=seed-asr',
        // The original's full address names its endpoint: that endpoint is used.
        `SEED_ASR_WS_URL=${url}/api/v3/sauc/bigmodel`,
        'SEED_ASR_APP_KEY=app-id',
        'SEED_ASR_ACCESS_KEY=access-token',
        'SEED_ASR_RESOURCE_ID=volc.bigasr.sauc.concurrent',
        'AUDIO_CHUNK_SIZE=1024',
      ],
    });
    const started = await live.start({ course_name: 'Trees' });
    expect(started.body).toMatchObject({ status: 'started', effective_asr_mode: 'stream' });
    await live.recognizerState('ended');
    expect((await live.transcript()).map((entry) => entry.text)).toEqual(TEXTS);
    const [connection] = service!.connections;
    expect(connection!.endpoint).toBe('bigmodel');
    expect(connection!.headers).toMatchObject({
      'x-api-app-key': 'app-id',
      'x-api-access-key': 'access-token',
      'x-api-resource-id': 'volc.bigasr.sauc.concurrent',
    });
    expect(connection!.audio.byteLength).toBe(lecture.samples.byteLength);
  });

  it('reconnects after a dropped connection and resends what was not yet definite: no line lost or repeated', async () => {
    const lecture = await speechRecording(LECTURE);
    const dropAt = lecture.sentences[1]!.startMs + 1200; // in the middle of the second sentence
    const live = await startClass(lecture, {
      faults: [{ type: 'close', at: { afterAudioMs: dropAt }, connection: 1 }],
    });
    await live.start();
    await live.recognizerState('ended');
    expect((await live.transcript()).map((entry) => entry.text)).toEqual(TEXTS);
    expect(service!.connections.length).toBeGreaterThanOrEqual(2);
    // The second connection starts exactly where the last definite sentence ended (or at the
    // start, when none had come back before the drop), never later: nothing unheard is skipped.
    const ends = [0, ...lecture.sentences.map((sentence) => sentence.endMs)];
    const offset = service!.connections[1]!.referenceOffsetMs;
    expect(offset).toBeDefined();
    expect(ends.some((end) => Math.abs(end - offset!) <= 1)).toBe(true);
    expect(offset!).toBeLessThanOrEqual(dropAt);
    const errors = live
      .all('error.raised')
      .map((event) => event.data as { code: string; message: string });
    expect(errors).toContainEqual(
      expect.objectContaining({ message: expect.stringContaining('reconnecting') }),
    );
  });

  it('treats a retryable service error frame (55000031 busy) like a drop', async () => {
    const lecture = await speechRecording(LECTURE);
    const live = await startClass(lecture, {
      faults: [
        {
          type: 'error',
          code: 55000031,
          message: 'server busy',
          at: { afterAudioMs: lecture.sentences[2]!.startMs + 500 },
          connection: 1,
        },
      ],
    });
    await live.start();
    await live.recognizerState('ended');
    expect((await live.transcript()).map((entry) => entry.text)).toEqual(TEXTS);
    expect(service!.connections.length).toBeGreaterThanOrEqual(2);
    const reconnecting = live
      .all('error.raised')
      .map((event) => (event.data as { message: string }).message)
      .find((message) => message.includes('reconnecting'));
    expect(reconnecting).toContain('55000031');
  });

  it('pauses by closing the connection and resumes on a new one, losing nothing said after', async () => {
    const lecture = await speechRecording(LECTURE.slice(0, 2), { name: 'two-sentences' });
    const live = await startClass(lecture, { extraEnv: ['AUDIO_FILE_PACE=realtime'] });
    await live.start();
    await live.events.next((event) => event.event === 'line.appended', 20_000);
    expect(await live.pause()).toMatchObject({ status: 'paused' });
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(await live.resume()).toMatchObject({ status: 'resumed' });
    await live.recognizerState('ended');
    expect((await live.transcript()).map((entry) => entry.text)).toEqual(TEXTS.slice(0, 2));
    expect(service!.connections).toHaveLength(2);
    // The new connection starts where the file was paused: after the first sentence, before the second.
    const offset = service!.connections[1]!.referenceOffsetMs!;
    expect(offset).toBeGreaterThanOrEqual(lecture.sentences[0]!.endMs);
    expect(offset).toBeLessThanOrEqual(lecture.sentences[1]!.startMs);
  });

  it('stops cleanly on a fatal service error and shows its code', async () => {
    const lecture = await speechRecording(LECTURE);
    const live = await startClass(lecture, {
      faults: [
        {
          type: 'error',
          code: 45000001,
          message: 'invalid request parameters: request.corpus',
          at: { afterAudioMs: lecture.sentences[1]!.startMs + 500 },
          connection: 1,
        },
      ],
    });
    await live.start();
    await live.recognizerState('failed');
    const error = live.all('error.raised').at(-1)!.data as { message: string };
    expect(error.message).toContain('45000001');
    expect(error.message).toContain('invalid request parameters');
    expect(service!.connections).toHaveLength(1);
    const status = await (await fetch(`${await baseOf()}/api/monitor_status`)).json();
    expect(status).toMatchObject({ is_monitoring: true, recognizer_state: 'failed' });
    expect((await live.stop()).body).toMatchObject({ status: 'stopped' });
    expect((await live.transcript()).length).toBeLessThanOrEqual(1);
  });

  it('answers start_monitor with the keys to check when the service refuses them', async () => {
    const lecture = await speechRecording(LECTURE);
    const live = await startClass(lecture, { appKey: 'wrong-app' });
    // The previous class's transcript and material survive the refused start.
    const { dataDir, cite } = harness!.app.classAssistant;
    const previousTranscript =
      '=== 课堂记录 开始于 2026-03-02 08:00:00 ===\n\n[08:00:05] 上节课的内容\n';
    await writeFile(join(dataDir, 'class_transcript.txt'), previousTranscript);
    await writeFile(join(dataDir, 'current_class_material.txt'), '--- 第 1 页 ---\n上节课\n');
    const next = await cite.write('week2.pptx', '--- 第 1 页 ---\n这节课\n', new Date());
    const started = await live.start({ course_name: '数据结构', cite_filename: next });
    expect(started.status).toBe(503);
    expect(await readFile(join(dataDir, 'class_transcript.txt'), 'utf8')).toBe(previousTranscript);
    expect(await readFile(join(dataDir, 'current_class_material.txt'), 'utf8')).toBe(
      '--- 第 1 页 ---\n上节课\n',
    );
    expect(started.body).toMatchObject({
      code: 'RECOGNIZER_UNAVAILABLE',
      field: 'STREAM_ASR_ACCESS_KEY',
      message: expect.stringContaining('HTTP 401'),
    });
    expect(String(started.body.message)).toContain('STREAM_ASR_APP_KEY');
    expect(harness!.app.classAssistant.monitor.status().is_monitoring).toBe(false);
  });
});

async function baseOf(): Promise<string> {
  return `http://127.0.0.1:${harness!.app.classAssistant.port()}`;
}
