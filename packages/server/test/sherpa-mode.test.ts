// ASR_MODE=local with the sherpa engine, end to end through the real server: espeak-ng speech ->
// WAV file source -> the sherpa engine's process (real sherpa-onnx-node, the bundled Silero VAD,
// the tiny test models of test/fixtures/sherpa, see its README for what they say) -> transcript-core
// merging -> transcript, live events and HTTP.

import { copyFile, cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sherpaEngineDefinition } from '../src/recognizers/engines/sherpa-engine.ts';
import { createLocalRecognizerDefinition } from '../src/recognizers/local-recognizer.ts';
import type { Recognizer, RecognizerEvent } from '../src/recognizers/recognizer.ts';
import { createSherpaRecognizer } from '../src/recognizers/sherpa-recognizer.ts';
import { createSettingsStore } from '../src/settings/settings-store.ts';
import { type ClassClient, classClient } from './support/class-client.ts';
import { createHarness, type Harness, waitFor } from './support/harness.ts';
import { memorySource } from './support/memory-source.ts';
import { type SpokenSentence, speechRecording } from './support/speech.ts';

const FIXTURES = join(import.meta.dirname, 'fixtures', 'sherpa');
const SENSE_VOICE = join(FIXTURES, 'sense-voice');
const STREAMING = join(FIXTURES, 'streaming-zipformer');
const PUNCTUATION = join(FIXTURES, 'punct');

let harness: Harness | undefined;
let client: ClassClient | undefined;
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  client?.close();
  client = undefined;
  await harness?.close();
  harness = undefined;
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/**
 * The local mode's recognizer on its own (no transcript merging), with the settings `env` and a
 * machine without PocketSphinx; its events are collected.
 */
async function localRecognizer(
  env: string[],
  extra: { material?: string; keywords?: string[] } = {},
): Promise<{ events: RecognizerEvent[]; recognizer: Recognizer; logs: string[]; dataDir: string }> {
  const root = await mkdtemp(join(tmpdir(), 'class-assistant-sherpa-'));
  const environment = Object.fromEntries(
    ['ASR_MODE=local', ...env].map((line) => [
      line.slice(0, line.indexOf('=')),
      line.slice(line.indexOf('=') + 1),
    ]),
  );
  const store = await createSettingsStore({ path: join(root, '.env'), environment });
  const events: RecognizerEvent[] = [];
  const logs: string[] = [];
  const log = (object: object, message?: string) =>
    logs.push(`${message ?? ''} ${JSON.stringify(object)}`);
  const recognizer = createLocalRecognizerDefinition({ systemPocketsphinxModels: [] }).create({
    settings: store.current(),
    dataDir: join(root, 'data'),
    emit: (event) => events.push(event),
    logger: { info: log, warn: log, error: log },
    material: extra.material ?? '',
    keywords: extra.keywords ?? [],
  });
  cleanups.push(async () => {
    await recognizer.stop();
    await rm(root, { recursive: true, force: true });
  });
  return { events, recognizer, logs, dataDir: join(root, 'data') };
}

/** Three sentences, each followed by a pause longer than local mode joins across (3 s). */
const THREE_SENTENCES: readonly SpokenSentence[] = [
  { text: 'good morning everyone', pauseAfterMs: 4000 },
  { text: 'today we will talk about binary search trees', pauseAfterMs: 4000 },
  { text: 'please open your books to page ten', pauseAfterMs: 1500 },
];

/**
 * A backend in the local mode with the sherpa engine on `model`, listening to `recording` at
 * `pace`, plus `settings`; sets `harness` (the class is not started).
 */
async function sherpaBackend(
  model: string,
  recording: string,
  pace: 'fast' | 'realtime' | undefined,
  settings: string[] = [],
): Promise<Harness> {
  harness = await createHarness({
    env: [
      'ASR_MODE=local',
      'LOCAL_ASR_ENGINE=sherpa',
      `SHERPA_MODEL_PATH=${model}`,
      `AUDIO_INPUT=file:${recording}`,
      ...(pace ? [`AUDIO_FILE_PACE=${pace}`] : []),
      ...settings,
    ],
  });
  return harness;
}

/** Runs a class over the whole recording at fast pace and returns its client once it ended. */
async function classOverFile(
  body: Record<string, string> = { course_name: 'Data structures' },
): Promise<ClassClient> {
  client = await classClient(await harness!.listen());
  const started = await client.start(body);
  expect(started).toMatchObject({ status: 200, body: { status: 'started' } });
  await client.recognizerState('ended');
  return client;
}

describe('ASR_MODE=local with sherpa-onnx SenseVoice', () => {
  it("writes the model's text into the transcript", async () => {
    const lecture = await speechRecording(THREE_SENTENCES);
    harness = await sherpaBackend(SENSE_VOICE, lecture.path, 'fast');
    client = await classOverFile();
    // The test model says 你好 for every utterance: the transcript keeps one (local mode drops
    // a line equal to a recent one); the recognizer-level test below counts the utterances.
    const entries = await client.transcript();
    expect(entries.map((entry) => entry.text)).toEqual(['你好']);
    const stopped = await client.stop();
    expect(stopped).toMatchObject({ status: 200, body: { status: 'stopped' } });
  });

  it('cuts three sentences into three segments, each at its sentence', async () => {
    const lecture = await speechRecording(THREE_SENTENCES);
    const { events, recognizer } = await localRecognizer([
      'LOCAL_ASR_ENGINE=sherpa',
      `SHERPA_MODEL_PATH=${SENSE_VOICE}`,
      `AUDIO_INPUT=file:${lecture.path}`,
      'AUDIO_FILE_PACE=fast',
    ]);
    await recognizer.start();
    await waitFor(() => events.some((event) => event.type === 'end'), 60_000, 'the file to end');
    await recognizer.stop();
    const segments = events.filter((event) => event.type === 'segment');
    expect(segments.map((segment) => segment.text)).toEqual(['你好', '你好', '你好']);
    lecture.sentences.forEach((sentence, index) => {
      const segment = segments[index]!;
      // Silero pads a segment by a few windows either side; it never reaches the next sentence.
      expect(segment.startMs).toBeGreaterThan(sentence.startMs - 400);
      expect(segment.startMs).toBeLessThan(sentence.startMs + 300);
      expect(segment.endMs).toBeGreaterThan(sentence.endMs - 300);
      expect(segment.endMs).toBeLessThan(sentence.endMs + 800);
    });
    expect(events.some((event) => event.type === 'error')).toBe(false);
  });
});

describe('ASR_MODE=local with a sherpa-onnx streaming transducer', () => {
  it('shows partial text while the teacher speaks and writes the definite line', async () => {
    const lecture = await speechRecording(THREE_SENTENCES);
    harness = await sherpaBackend(STREAMING, lecture.path, 'fast');
    client = await classOverFile();
    const partials = client
      .all('partial.changed')
      .map((event) => (event.data as { text: string }).text);
    // The model's text grows 你 -> 你好 within each utterance.
    expect(partials).toContain('你');
    expect(partials).toContain('你好');
    expect(partials.indexOf('你')).toBeLessThan(partials.indexOf('你好'));
    expect((await client.transcript()).map((entry) => entry.text)).toEqual(['你好']);
    const file = await readFile(join(harness.dataDir, 'class_transcript.txt'), 'utf8');
    expect(file).toMatch(/^\[\d\d:\d\d:\d\d\] 你好$/m);
  });

  it('writes the words spoken before the student pauses the class', async () => {
    const lecture = await speechRecording([
      {
        text: 'today we will talk about binary search trees and their balance',
        pauseAfterMs: 3000,
      },
    ]);
    harness = await sherpaBackend(STREAMING, lecture.path, 'realtime');
    client = await classClient(await harness.listen());
    await client.start();
    // Mid-sentence: the teacher's words are on screen as partial text.
    await client.events.next(
      (event) =>
        event.event === 'partial.changed' && (event.data as { text: string }).text === '你好',
      30_000,
    );
    expect(await client.pause()).toMatchObject({ status: 'paused' });
    // They are written as a line at the pause, not lost with it.
    await waitFor(
      async () => (await client!.transcript()).length > 0,
      10_000,
      'the line spoken before the pause',
    );
    expect((await client.transcript()).map((entry) => entry.text)).toEqual(['你好']);
    await client.stop();
  });

  it('ends one line per utterance at the pauses (endpoint detection)', async () => {
    const lecture = await speechRecording(THREE_SENTENCES);
    const { events, recognizer } = await localRecognizer([
      'LOCAL_ASR_ENGINE=sherpa',
      `SHERPA_MODEL_PATH=${STREAMING}`,
      `AUDIO_INPUT=file:${lecture.path}`,
      'AUDIO_FILE_PACE=fast',
    ]);
    await recognizer.start();
    await waitFor(() => events.some((event) => event.type === 'end'), 60_000, 'the file to end');
    const segments = events.filter((event) => event.type === 'segment');
    expect(segments.map((segment) => segment.text)).toEqual(['你好', '你好', '你好']);
    lecture.sentences.forEach((sentence, index) => {
      const segment = segments[index]!;
      expect(segment.startMs).toBeGreaterThan(sentence.startMs - 400);
      expect(segment.startMs).toBeLessThan(sentence.startMs + 400);
      expect(segment.endMs).toBeLessThan(
        lecture.sentences[index + 1]?.startMs ?? lecture.durationMs + 1000,
      );
    });
    // Each line was shown as partial text first.
    const firstLine = events.findIndex((event) => event.type === 'segment');
    expect(events.slice(0, firstLine)).toContainEqual({ type: 'partial', text: '你' });
    expect(events.some((event) => event.type === 'error')).toBe(false);
  });

  it('writes the utterance being spoken when the class is stopped', async () => {
    const lecture = await speechRecording(THREE_SENTENCES);
    // Audio up to the middle of the last sentence, then a "microphone" that stays open and silent
    // no longer: no pause ends the utterance; stop must.
    const cut = Math.round(((lecture.sentences[2]!.startMs + 1200) * 16000) / 1000);
    const source = memorySource(lecture.samples.subarray(0, cut), { afterAudio: 'hold' });
    const store = await createSettingsStore({ path: join(tmpdir(), 'no-such-settings.env') });
    const events: RecognizerEvent[] = [];
    const log = () => undefined;
    const recognizer = createSherpaRecognizer({
      context: {
        settings: store.current(),
        dataDir: tmpdir(),
        emit: (event) => events.push(event),
        logger: { info: log, warn: log, error: log },
        material: '',
      },
      folder: STREAMING,
      source,
    });
    cleanups.push(() => recognizer.stop());
    await recognizer.start();
    const segments = () => events.filter((event) => event.type === 'segment');
    await waitFor(() => source.delivered() >= cut, 30_000, 'the audio to be played');
    await waitFor(
      () => segments().length === 2 && events.at(-1)?.type === 'partial' && events.at(-1),
      30_000,
      'the third sentence to show as partial text',
    );
    await recognizer.stop();
    expect(segments().map((segment) => segment.text)).toEqual(['你好', '你好', '你好']);
    expect(segments()[2]!.startMs).toBeGreaterThan(lecture.sentences[2]!.startMs - 400);
  });

  it('favours the hot words of the class material', async () => {
    const lecture = await speechRecording(THREE_SENTENCES);
    const material = '--- 第 1 页 ---\n链表\n单链表的插入与删除\n';
    harness = await sherpaBackend(STREAMING, lecture.path, 'fast');
    await mkdir(join(harness.dataDir, 'cite'), { recursive: true });
    await writeFile(join(harness.dataDir, 'cite', 'lists.txt'), material);
    client = await classOverFile({ course_name: 'Lists', cite_filename: 'lists.txt' });
    // The test model says 链表 instead of 你好 only when 链表 biases its beam search.
    expect((await client.transcript()).map((entry) => entry.text)).toEqual(['链表']);
  });

  it('says how many hot words reached the engine; SenseVoice takes none', async () => {
    const lecture = await speechRecording(THREE_SENTENCES.slice(0, 1));
    const material = '--- 第 1 页 ---\n链表\n二叉搜索树\n二叉搜索树\n';
    const streaming = await localRecognizer(
      [
        'LOCAL_ASR_ENGINE=sherpa',
        `SHERPA_MODEL_PATH=${STREAMING}`,
        `AUDIO_INPUT=file:${lecture.path}`,
        'AUDIO_FILE_PACE=fast',
      ],
      { material, keywords: ['李小明'] },
    );
    await streaming.recognizer.start();
    await waitFor(() => streaming.events.some((event) => event.type === 'end'), 60_000);
    // 李小明 and 二叉搜索树 have characters the tiny model has no token for: only 链表 is kept.
    expect(streaming.logs.join('\n')).toContain('1 hot words reached the sherpa engine');
    expect(streaming.events).toContainEqual(
      expect.objectContaining({ type: 'segment', text: '链表' }),
    );
    const senseVoice = await localRecognizer(
      [
        'LOCAL_ASR_ENGINE=sherpa',
        `SHERPA_MODEL_PATH=${SENSE_VOICE}`,
        `AUDIO_INPUT=file:${lecture.path}`,
        'AUDIO_FILE_PACE=fast',
      ],
      { material },
    );
    await senseVoice.recognizer.start();
    await waitFor(() => senseVoice.events.some((event) => event.type === 'end'), 60_000);
    expect(senseVoice.logs.join('\n')).toContain('SenseVoice takes no hot words');
  });
});

describe('ASR_MODE=local with a streaming transducer and a punctuation model', () => {
  // The test punctuation model puts "，" after the first token and sherpa-onnx ends the line
  // with "。": the model's 你好 becomes 你，好。 (test/fixtures/sherpa/README.md).
  it('punctuates each definite line; the partial text stays without punctuation', async () => {
    const lecture = await speechRecording(THREE_SENTENCES);
    harness = await sherpaBackend(STREAMING, lecture.path, 'fast', [
      `SHERPA_PUNCTUATION_MODEL_PATH=${PUNCTUATION}`,
    ]);
    client = await classOverFile();
    const partials = client
      .all('partial.changed')
      .map((event) => (event.data as { text: string }).text);
    expect(partials).toContain('你');
    expect(partials).toContain('你好');
    expect(partials.filter((text) => /[，。]/.test(text))).toEqual([]);
    expect((await client.transcript()).map((entry) => entry.text)).toEqual(['你，好。']);
    const file = await readFile(join(harness.dataDir, 'class_transcript.txt'), 'utf8');
    expect(file).toMatch(/^\[\d\d:\d\d:\d\d\] 你，好。$/m);
  });

  it('uses an installed punctuation model, never as the recognizer', async () => {
    const lecture = await speechRecording(THREE_SENTENCES);
    const { events, recognizer, logs, dataDir } = await localRecognizer([
      'LOCAL_ASR_ENGINE=sherpa',
      `AUDIO_INPUT=file:${lecture.path}`,
      'AUDIO_FILE_PACE=fast',
    ]);
    const models = join(dataDir, 'models');
    const punctuation = join(
      models,
      'sherpa-onnx-punct-ct-transformer-zh-en-vocab272727-2024-04-12',
    );
    const streaming = join(models, 'sherpa-onnx-streaming-zipformer-bilingual-zh-en-2023-02-20');
    await mkdir(punctuation, { recursive: true });
    await copyFile(join(PUNCTUATION, 'model.onnx'), join(punctuation, 'model.onnx'));
    await cp(STREAMING, streaming, { recursive: true });
    await recognizer.start();
    await waitFor(() => events.some((event) => event.type === 'end'), 60_000, 'the file to end');
    const segments = events.filter((event) => event.type === 'segment');
    expect(segments.map((segment) => segment.text)).toEqual(['你，好。', '你，好。', '你，好。']);
    expect(logs.join('\n')).toContain(join(punctuation, 'model.onnx'));
  });

  it('runs the class without punctuation when the punctuation model cannot be loaded, and says why', async () => {
    const lecture = await speechRecording(THREE_SENTENCES);
    const broken = await mkdtemp(join(tmpdir(), 'class-assistant-broken-punct-'));
    cleanups.push(() => rm(broken, { recursive: true, force: true }));
    // A truncated download: ONNX Runtime refuses it and sherpa-onnx ends its process on it.
    await writeFile(join(broken, 'model.onnx'), 'not an onnx graph');
    const { events, recognizer, logs } = await localRecognizer([
      'LOCAL_ASR_ENGINE=sherpa',
      `SHERPA_MODEL_PATH=${STREAMING}`,
      `SHERPA_PUNCTUATION_MODEL_PATH=${broken}`,
      `AUDIO_INPUT=file:${lecture.path}`,
      'AUDIO_FILE_PACE=fast',
    ]);
    await recognizer.start();
    await waitFor(() => events.some((event) => event.type === 'end'), 60_000, 'the file to end');
    const segments = events.filter((event) => event.type === 'segment');
    expect(segments.map((segment) => segment.text)).toEqual(['你好', '你好', '你好']);
    expect(events.some((event) => event.type === 'error')).toBe(false);
    const warnings = logs.filter((line) => line.includes('punctuation model could not be loaded'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(join(broken, 'model.onnx'));
    expect(warnings[0]).toMatch(/Protobuf parsing failed|Load model/);
    // The process that ended on the graph is gone; the one without punctuation ends at stop.
    await recognizer.stop();
    expect(await sherpaChildren()).toEqual([]);
    // A folder with no punctuation graph at all is named too.
    await writeFile(join(broken, 'tokens.txt'), '<blk> 0\n');
    const second = await localRecognizer([
      'LOCAL_ASR_ENGINE=sherpa',
      `SHERPA_MODEL_PATH=${STREAMING}`,
      `SHERPA_PUNCTUATION_MODEL_PATH=${broken}`,
      `AUDIO_INPUT=file:${lecture.path}`,
      'AUDIO_FILE_PACE=fast',
    ]);
    await second.recognizer.start();
    await waitFor(() => second.events.some((event) => event.type === 'end'), 60_000);
    expect(
      second.events.filter((event) => event.type === 'segment').map((event) => event.text),
    ).toEqual(['你好', '你好', '你好']);
    expect(second.logs.join('\n')).toContain(
      `SHERPA_PUNCTUATION_MODEL_PATH: ${broken} holds no sherpa-onnx punctuation model`,
    );
  });

  it('leaves SenseVoice lines as the model punctuates them', async () => {
    const lecture = await speechRecording(THREE_SENTENCES.slice(0, 1));
    const { events, recognizer } = await localRecognizer([
      'LOCAL_ASR_ENGINE=sherpa',
      `SHERPA_MODEL_PATH=${SENSE_VOICE}`,
      `SHERPA_PUNCTUATION_MODEL_PATH=${PUNCTUATION}`,
      `AUDIO_INPUT=file:${lecture.path}`,
      'AUDIO_FILE_PACE=fast',
    ]);
    await recognizer.start();
    await waitFor(() => events.some((event) => event.type === 'end'), 60_000, 'the file to end');
    expect(events.filter((event) => event.type === 'segment').map((event) => event.text)).toEqual([
      '你好',
    ]);
  });
});

describe('sherpaEngineDefinition (whole recordings, as the quality harness runs them)', () => {
  it('recognises a recording with either model kind, and closes its process', async () => {
    const lecture = await speechRecording(THREE_SENTENCES);
    const store = await createSettingsStore({ path: join(tmpdir(), 'no-such-settings.env') });
    for (const folder of [SENSE_VOICE, STREAMING]) {
      const engine = await sherpaEngineDefinition.load(store.current(), folder);
      expect(engine.name).toBe('sherpa');
      // Longer than one 10 s piece of the transfer to the engine's process.
      expect(await engine.transcribe(lecture.samples)).toBe('你好你好你好');
      expect(await engine.transcribe(new Int16Array(0))).toBe('');
      engine.close();
    }
    await waitFor(async () => (await sherpaChildren()).length === 0, 10_000, 'the engines to exit');
  });
});

/** The sherpa engine processes that are children of this process (Linux /proc). */
async function sherpaChildren(): Promise<number[]> {
  const found: number[] = [];
  for (const entry of (await readdir('/proc')).filter((name) => /^\d+$/.test(name))) {
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    if (stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1] !== String(process.pid)) continue;
    const command = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (command.includes('--class-assistant-sherpa-engine')) found.push(Number(entry));
  }
  return found;
}

describe('ASR_MODE=local with sherpa-onnx: what goes wrong', () => {
  it('names the model to download and the setting when no sherpa model is installed', async () => {
    harness = await createHarness({ env: ['ASR_MODE=local', 'LOCAL_ASR_ENGINE=sherpa'] });
    const english = await harness.request({
      method: 'POST',
      url: '/api/start_monitor',
      payload: {},
      headers: { 'accept-language': 'en' },
    });
    expect(english.statusCode).toBe(503);
    // The class panel offers the download for the class language (field LOCAL_ASR_LANGUAGE).
    expect(english.json()).toMatchObject({
      code: 'ASR_MODEL_MISSING',
      field: 'LOCAL_ASR_LANGUAGE',
      message: expect.stringContaining('models pull sense-voice-small'),
    });
    expect(english.json().message).toContain('SHERPA_MODEL_PATH');
    const chinese = await harness.startMonitor();
    expect(chinese.body).toMatchObject({
      code: 'ASR_MODEL_MISSING',
      message: expect.stringContaining('需要一个 sherpa-onnx 模型'),
    });
    expect(chinese.body.message).toContain('sense-voice-small');
    const health = (await harness.request({ url: '/api/health' })).json();
    expect(health.asr).toMatchObject({
      available: false,
      message: expect.stringContaining('sense-voice-small'),
      settings: ['LOCAL_ASR_LANGUAGE', 'SHERPA_MODEL_PATH', 'LOCAL_ASR_ENGINE'],
    });
    expect(harness.app.classAssistant.monitor.status().is_monitoring).toBe(false);
  });

  it('explains a folder that is no sherpa model, and a graph sherpa-onnx cannot load, without crashing', async () => {
    const lecture = await speechRecording(THREE_SENTENCES);
    const odd = await mkdtemp(join(tmpdir(), 'class-assistant-odd-model-'));
    cleanups.push(() => rm(odd, { recursive: true, force: true }));
    harness = await sherpaBackend(odd, lecture.path, undefined);
    await writeFile(join(odd, 'tokens.txt'), '<blk> 0\n');
    await writeFile(join(odd, 'notes.md'), 'no graph here');
    const notAModel = await harness.request({
      method: 'POST',
      url: '/api/start_monitor',
      payload: {},
      headers: { 'accept-language': 'en' },
    });
    expect(notAModel.statusCode).toBe(503);
    expect(notAModel.json()).toMatchObject({
      code: 'ASR_MODEL_MISSING',
      field: 'SHERPA_MODEL_PATH',
      message: expect.stringContaining('it has notes.md, tokens.txt; expected encoder*.onnx'),
    });
    // In Chinese, the whole answer is Chinese: what the folder holds and what it should hold.
    const chinese = (
      await harness.request({ method: 'POST', url: '/api/start_monitor', payload: {} })
    ).json().message as string;
    expect(chinese).toContain(`SHERPA_MODEL_PATH：${odd} 里没有本应用能运行的 sherpa-onnx 模型`);
    expect(chinese).toContain('现有文件：notes.md, tokens.txt');
    expect(chinese).not.toContain('expected');
    // A graph ONNX Runtime refuses (a truncated download): the engine's process dies on it, the
    // server does not, and the answer names the file.
    await writeFile(join(odd, 'model.int8.onnx'), 'not an onnx graph');
    const broken = await harness.request({
      method: 'POST',
      url: '/api/start_monitor',
      payload: {},
      headers: { 'accept-language': 'en' },
    });
    expect(broken.statusCode).toBe(503);
    expect(broken.json()).toMatchObject({
      code: 'ASR_MODEL_MISSING',
      field: 'SHERPA_MODEL_PATH',
      message: expect.stringContaining(join(odd, 'model.int8.onnx')),
    });
    expect((await harness.request({ url: '/api/health' })).statusCode).toBe(200);
    expect(harness.app.classAssistant.monitor.status().is_monitoring).toBe(false);
    expect(await sherpaChildren()).toEqual([]);
  });

  it('ends recognition with an error when the engine process dies, and keeps the lines', async () => {
    const lecture = await speechRecording(THREE_SENTENCES);
    harness = await sherpaBackend(SENSE_VOICE, lecture.path, 'realtime');
    client = await classClient(await harness.listen());
    await client.start();
    await client.events.next((event) => event.event === 'line.appended', 30_000);
    const [pid] = await sherpaChildren();
    expect(pid).toBeDefined();
    process.kill(pid!, 'SIGKILL');
    const failed = await client.recognizerState('failed', 30_000);
    expect(failed).toBeDefined();
    const error = await client.events.next((event) => event.event === 'error.raised', 30_000);
    expect(JSON.stringify(error.data)).toContain('sherpa-onnx engine');
    // A Chinese-speaking student reads why in Chinese, and what to do.
    const messages = (error.data as { messages?: { zh: string; en: string } }).messages;
    expect(messages?.zh).toMatch(/sherpa-onnx 引擎.*重新开始/);
    expect(messages?.en).toContain('start the class again');
    expect((await client.transcript()).map((entry) => entry.text)).toEqual(['你好']);
    await client.stop();
    expect((await client.transcript()).map((entry) => entry.text)).toEqual(['你好']);
  });
});
