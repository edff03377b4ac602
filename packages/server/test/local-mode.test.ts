// ASR_MODE=local end to end through the real server: espeak-ng speech -> audio source -> energy
// VAD -> PocketSphinx (Debian's, through koffi) -> transcript-core merging -> transcript file,
// live events and HTTP. PocketSphinx on synthetic speech gets most words, not all: recognition is
// checked by words in common, never by exact text.
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultRecognizerDefinitions } from '../src/recognizers/default-recognizers.ts';
import { pocketsphinxEngineDefinition } from '../src/recognizers/engines/pocketsphinx-engine.ts';
import { createPhraseRecognizer } from '../src/recognizers/phrase-recognizer.ts';
import {
  createRecognizerRegistry,
  type RecognizerDefinition,
} from '../src/recognizers/recognizer.ts';
import { fakeAlsaHome, realtimePipe } from './support/alsa.ts';
import { startBackendProcess } from './support/backend-process.ts';
import { type ClassClient, classClient } from './support/class-client.ts';
import { createHarness, type Harness, waitFor } from './support/harness.ts';
import { memorySource } from './support/memory-source.ts';
import { type SpokenSentence, speechRecording, words } from './support/speech.ts';

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

/** Two sentences close together (joined into one line, as local mode merges), then a long pause. */
const LOCAL_LECTURE: readonly SpokenSentence[] = [
  { text: 'good morning everyone', pauseAfterMs: 1500 },
  { text: 'today we will talk about binary search trees', pauseAfterMs: 4500 },
  { text: 'please open your books to page ten', pauseAfterMs: 1500 },
];

const POCKETSPHINX = ['ASR_MODE=local', 'LOCAL_ASR_ENGINE=pocketsphinx'];

/** Process ids whose parent is `pid` (Linux /proc). */
async function childrenOf(pid: number): Promise<string[]> {
  const children: string[] = [];
  for (const entry of (await readdir('/proc')).filter((name) => /^\d+$/.test(name))) {
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    // "pid (comm) state ppid …": comm may hold spaces, so read after the last ')'.
    if (stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1] === String(pid)) children.push(entry);
  }
  return children;
}

function shared(line: string, sentence: string): number {
  const heard = new Set(words(line));
  return words(sentence).filter((word) => heard.has(word)).length;
}

describe('ASR_MODE=local with PocketSphinx', () => {
  it('turns a WAV of speech into transcript lines, merged the way local mode merges', async () => {
    const lecture = await speechRecording(LOCAL_LECTURE);
    harness = await createHarness({
      env: [...POCKETSPHINX, `AUDIO_INPUT=file:${lecture.path}`, 'AUDIO_FILE_PACE=fast'],
    });
    const base = await harness.listen();
    client = await classClient(base);
    const started = await client.start({ course_name: 'Data structures' });
    expect(started).toMatchObject({
      status: 200,
      body: { status: 'started', effective_asr_mode: 'local' },
    });
    await client.recognizerState('ended');

    const entries = await client.transcript();
    // Sentence 1 and 2 are 1.5 s apart and unpunctuated: joined into one line; sentence 3
    // follows 4.5 s of silence: a line of its own.
    expect(entries).toHaveLength(2);
    const [first, second] = [entries[0]!, entries[1]!];
    expect(shared(first.text, LOCAL_LECTURE[0]!.text)).toBeGreaterThanOrEqual(2);
    expect(shared(first.text, LOCAL_LECTURE[1]!.text)).toBeGreaterThanOrEqual(2);
    expect(shared(second.text, LOCAL_LECTURE[2]!.text)).toBeGreaterThanOrEqual(2);
    expect(client.all('line.appended')).toHaveLength(2);
    expect(client.all('line.updated').length).toBeGreaterThanOrEqual(1);
    const file = await readFile(join(harness.dataDir, 'class_transcript.txt'), 'utf8');
    expect(file).toContain(second.text);
    expect(file).toMatch(/^\[\d\d:\d\d:\d\d\] /m);

    const stopped = await client.stop();
    expect(stopped).toMatchObject({ status: 200, body: { status: 'stopped' } });
  });

  it('writes the phrase being spoken when the class is stopped', async () => {
    const lecture = await speechRecording(LOCAL_LECTURE);
    // Audio up to the middle of the last sentence; the "microphone" then stays open and silent
    // no longer: stop comes while the phrase is still open (no pause has ended it).
    const cut = Math.round(((lecture.sentences[2]!.startMs + 1500) * 16000) / 1000);
    const source = memorySource(lecture.samples.subarray(0, cut), { afterAudio: 'hold' });
    const local: RecognizerDefinition = {
      mode: 'local',
      description: 'PocketSphinx on audio held in memory',
      availability: async () => ({ available: true }),
      create: (context) =>
        createPhraseRecognizer({
          context,
          emitAs: 'segment',
          source,
          async prepare() {
            const engine = await pocketsphinxEngineDefinition.load(context.settings);
            return {
              transcribe: (phrase) => engine.transcribe(phrase.samples),
              close: () => engine.close(),
            };
          },
        }),
    };
    harness = await createHarness({
      env: POCKETSPHINX,
      options: {
        recognizers: createRecognizerRegistry([...defaultRecognizerDefinitions(), local]),
      },
    });
    client = await classClient(await harness.listen());
    await client.start();
    await client.events.next((event) => event.event === 'line.appended', 30_000);
    await waitFor(() => source.delivered() >= cut, 30_000, 'the audio to be played');
    expect(await client.transcript()).toHaveLength(1);
    await client.stop();
    const entries = await client.transcript();
    expect(entries).toHaveLength(2);
    expect(shared(entries[1]!.text, 'please open your books')).toBeGreaterThanOrEqual(2);
  });

  it('reports a missing or unreadable WAV file at start with the setting to fix', async () => {
    harness = await createHarness({ env: [...POCKETSPHINX, 'AUDIO_INPUT=file:lectures/none.wav'] });
    const missing = await harness.startMonitor();
    expect(missing.statusCode).toBe(503);
    expect(missing.body).toMatchObject({
      code: 'RECOGNIZER_UNAVAILABLE',
      field: 'AUDIO_INPUT',
      message:
        '音频输入设置（AUDIO_INPUT）不能用，无法开始上课。请在设置里把它改为 mic（麦克风）或一个录音文件（MP3、M4A、WAV 等）。',
      technical: expect.stringContaining(join(harness.root, 'lectures', 'none.wav')),
    });
    await mkdir(join(harness.root, 'lectures'));
    await writeFile(join(harness.root, 'lectures', 'none.wav'), 'RIFF....WAVEnot really');
    const bad = await harness.startMonitor();
    expect(bad.statusCode).toBe(415);
    expect(bad.body).toMatchObject({
      code: 'RECORDING_UNSUPPORTED',
      field: 'AUDIO_INPUT',
      message: expect.stringContaining(join(harness.root, 'lectures', 'none.wav')),
    });
    expect(harness.app.classAssistant.monitor.status().is_monitoring).toBe(false);
  });

  it('says there is no microphone, and starts nothing, on a machine without one', async () => {
    harness = await createHarness({ env: [...POCKETSPHINX, 'AUDIO_INPUT=mic'] });
    const response = await harness.startMonitor();
    expect(response.statusCode).toBe(503);
    expect(response.body).toMatchObject({
      code: 'AUDIO_DEVICE_UNAVAILABLE',
      field: 'AUDIO_INPUT',
      // What happened and what to do in the student's language; ALSA's words behind "details".
      message:
        '找不到麦克风：这台电脑没有可用的录音设备。请接上麦克风并允许本应用使用后重试，或切换到演示模式。',
      technical: expect.stringContaining('no audio input device'),
      hint: expect.stringContaining('AUDIO_INPUT=file:PATH'),
    });
    expect(response.body.message).not.toContain('ALSA');
    const english = await harness.request({
      method: 'POST',
      url: '/api/start_monitor',
      headers: { 'accept-language': 'en-US,en;q=0.9' },
      payload: {},
    });
    expect(english.json()).toMatchObject({
      code: 'AUDIO_DEVICE_UNAVAILABLE',
      message:
        'No microphone found: this computer has no audio input device. Connect a microphone, let the app use it and try again, or use the demo mode.',
      technical: expect.stringContaining('no audio input device'),
    });
    expect(harness.app.classAssistant.monitor.status().is_monitoring).toBe(false);
  });
});

describe('ASR_MODE=local with Vosk', () => {
  it('explains a model folder that is not a model, and one libvosk cannot load', async () => {
    harness = await createHarness({ env: ['ASR_MODE=local', 'VOSK_MODEL_PATH=models/vosk'] });
    const notAModel = await harness.startMonitor();
    expect(notAModel.body).toMatchObject({
      code: 'RECOGNIZER_UNAVAILABLE',
      field: 'VOSK_MODEL_PATH',
      message: expect.stringContaining('找不到可用的识别模型'),
      technical: expect.stringContaining('alphacephei.com/vosk/models'),
    });
    // Looks like a model (am/final.mdl) but is not one: the real libvosk refuses to load it.
    const model = join(harness.root, 'broken-model');
    await mkdir(join(model, 'am'), { recursive: true });
    await writeFile(join(model, 'am', 'final.mdl'), 'not a kaldi model');
    const lecture = await speechRecording(LOCAL_LECTURE);
    await harness.request({
      method: 'POST',
      url: '/api/settings',
      payload: { fields: { VOSK_MODEL_PATH: model, AUDIO_INPUT: `file:${lecture.path}` } },
    });
    const broken = await harness.startMonitor();
    expect(broken.statusCode).toBe(503);
    expect(broken.body).toMatchObject({
      code: 'ASR_MODEL_MISSING',
      field: 'VOSK_MODEL_PATH',
      message: expect.stringContaining('找不到可用的识别模型'),
      technical: expect.stringContaining(`Vosk could not load the model in ${model}`),
    });
    expect(harness.app.classAssistant.monitor.status().is_monitoring).toBe(false);
  });
});

describe('the microphone, end to end (the bin as a process, ALSA fed in real time)', () => {
  it('hears a lecture through the capture device and writes its lines; stop leaves no process', async () => {
    const lecture = await speechRecording(LOCAL_LECTURE);
    const pipe = await realtimePipe(lecture.samples);
    const alsa = await fakeAlsaHome(pipe.path);
    cleanups.push(
      () => alsa.remove(),
      () => pipe.stop(),
    );
    const backend = await startBackendProcess(
      [...POCKETSPHINX, 'AUDIO_INPUT=mic'],
      alsa.environment,
    );
    cleanups.push(() => backend.stop());
    const base = backend.base;
    client = await classClient(base);
    pipe.start();
    expect((await client.start()).body).toMatchObject({ status: 'started' });
    const mic = (await (await fetch(`${base}/api/check_mic`)).json()) as Record<string, unknown>;
    expect(mic).toMatchObject({
      status: 'ok',
      in_use: true,
      device: 'default',
      input: 'microphone',
    });
    await client.events.next((event) => event.event === 'line.appended', 40_000);
    await waitFor(async () => (await client!.transcript()).length >= 2, 40_000, 'the second line');
    const entries = await client.transcript();
    expect(
      shared(
        entries.map((entry) => entry.text).join(' '),
        LOCAL_LECTURE.map((s) => s.text).join(' '),
      ),
    ).toBeGreaterThanOrEqual(9);
    expect(await childrenOf(backend.child.pid!)).toHaveLength(1);
    expect((await client.stop()).body).toMatchObject({ status: 'stopped' });
    // The capture child is gone with the class.
    expect(await childrenOf(backend.child.pid!)).toEqual([]);
  });
});
