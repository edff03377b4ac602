// AUDIO_INPUT=app through the real server: a "window" on a real WebSocket (/api/ws/capture)
// says hello and streams espeak-ng speech as 16-bit PCM; the local (PocketSphinx), cloud and
// stream modes hear it as they hear a microphone; the backend reports when that audio stops.

import { createFakeOpenAIServer, type FakeOpenAIServer } from '@class-assistant/agent-std/testing';
import { type AsrTestServer, createAsrTestServer } from '@class-assistant/asr-protocol/testing';
import { afterEach, describe, expect, it } from 'vitest';
import type { AudioChunk, AudioSource } from '../src/audio/audio-source.ts';
import { createAudioSource } from '../src/audio/audio-source.ts';
import { samplesToBytes } from '../src/audio/pcm.ts';
import type { CaptureStatus } from '../src/events/live-events.ts';
import { type CaptureWindow, connectCaptureWindow } from './support/capture-window.ts';
import { type ClassClient, classClient } from './support/class-client.ts';
import { createHarness, type Harness, waitFor } from './support/harness.ts';
import { LECTURE, type SpokenSentence, speechRecording, words } from './support/speech.ts';

let harness: Harness | undefined;
let client: ClassClient | undefined;
let cloud: FakeOpenAIServer | undefined;
let service: AsrTestServer | undefined;
const windows: CaptureWindow[] = [];
const sources: AudioSource[] = [];
afterEach(async () => {
  for (const window of windows.splice(0)) window.close();
  for (const source of sources.splice(0)) await source.close();
  client?.close();
  client = undefined;
  await harness?.close();
  harness = undefined;
  await cloud?.close();
  cloud = undefined;
  await service?.close();
  service = undefined;
});

const POCKETSPHINX = ['ASR_MODE=local', 'LOCAL_ASR_ENGINE=pocketsphinx', 'AUDIO_INPUT=app'];

/** Two sentences close together (one line in local mode), a long pause, a third. */
const LOCAL_LECTURE: readonly SpokenSentence[] = [
  { text: 'good morning everyone', pauseAfterMs: 1500 },
  { text: 'today we will talk about binary search trees', pauseAfterMs: 4500 },
  { text: 'please open your books to page ten', pauseAfterMs: 1500 },
];

async function openWindow(base: string): Promise<CaptureWindow> {
  const window = await connectCaptureWindow(base);
  windows.push(window);
  return window;
}

/** The next `capture.changed` event (after those already seen) in this state. */
function captureState(live: ClassClient, state: CaptureStatus['state'], after = 0) {
  return live.events.next(
    (event) =>
      event.event === 'capture.changed' &&
      Number(event.id) > after &&
      (event.data as CaptureStatus).state === state,
    20_000,
  );
}

/** A source of the running app listening to the window, opened (no recognizer). */
async function listeningSource(current: Harness): Promise<AudioSource> {
  const source = current.app.classAssistant.capture.createSource({
    sampleRate: 16000,
    channels: 1,
    chunkBytes: 3200,
  });
  sources.push(source);
  await source.open();
  return source;
}

/** Reads chunks of `source` in the background. */
function collect(source: AudioSource): AudioChunk[] {
  const chunks: AudioChunk[] = [];
  void (async () => {
    for await (const chunk of source.chunks()) chunks.push(chunk);
  })();
  return chunks;
}

const sampleCount = (chunks: readonly AudioChunk[]) =>
  chunks.reduce((sum, chunk) => sum + chunk.samples.length, 0);

describe('AUDIO_INPUT=app, local mode', () => {
  it('turns a window’s speech into transcript lines and an alert, and reports when its audio stops and comes back', async () => {
    const lecture = await speechRecording(LOCAL_LECTURE);
    harness = await createHarness({ env: POCKETSPHINX });
    const base = await harness.listen();
    client = await classClient(base);
    const opened = await client.events.next((event) => event.event === 'stream.opened');
    expect((opened.data as { capture: CaptureStatus }).capture).toMatchObject({
      state: 'off',
      connected: false,
    });
    await fetch(`${base}/api/update_keywords`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ keywords: ['books', 'page', 'binary', 'morning'] }),
    });
    expect((await client.start({ course_name: 'Trees' })).body).toMatchObject({
      status: 'started',
    });
    await captureState(client, 'waiting');

    const window = await openWindow(base);
    expect(await window.next('format')).toEqual({
      type: 'format',
      sample_rate: 16000,
      channels: 1,
      chunk_bytes: 3200,
    });
    window.hello({ device: 'Built-in Microphone' });
    await window.sendAudio(lecture.samples);
    const receiving = await captureState(client, 'receiving');
    expect(receiving.data).toMatchObject({ connected: true, device: 'Built-in Microphone' });

    await client.events.next((event) => event.event === 'alert.raised', 60_000);
    await waitFor(async () => (await client!.transcript()).length === 2, 60_000, 'two lines');
    const heard = new Set(words((await client.transcript()).map((entry) => entry.text).join(' ')));
    const spoken = words(LOCAL_LECTURE.map((sentence) => sentence.text).join(' '));
    expect(spoken.filter((word) => heard.has(word)).length).toBeGreaterThanOrEqual(7);

    // The window stays connected but sends nothing more: after 2 s the backend says so.
    const silent = await captureState(client, 'stopped', Number(receiving.id));
    expect(silent.data).toMatchObject({ problem: 'no-audio', connected: true });
    const mic = (await (await fetch(`${base}/api/check_mic`)).json()) as Record<string, unknown>;
    expect(mic).toMatchObject({
      status: 'error',
      input: 'app',
      error_code: 'AUDIO_CAPTURE_STOPPED',
      device: 'Built-in Microphone',
      in_use: true,
      message: expect.stringContaining('The microphone is in the app window'),
    });

    // The window closes: disconnected, at once.
    window.close();
    const gone = await client.events.next(
      (event) =>
        event.event === 'capture.changed' &&
        (event.data as CaptureStatus).problem === 'disconnected',
    );
    expect(gone.data).toMatchObject({ state: 'stopped', connected: false });

    // It comes back (the page reloaded): listening resumes by itself.
    const again = await openWindow(base);
    again.hello({ device: 'Built-in Microphone' });
    await again.sendAudio(lecture.samples.subarray(0, 16000));
    await captureState(client, 'receiving', Number(gone.id));

    expect((await client.stop()).body).toMatchObject({ status: 'stopped' });
    await captureState(client, 'off');
  }, 120_000);
});

/** Three lines for the three sentences, as the online services answer them. */
const ONLINE_TEXTS = ['Good morning, everyone.', 'Today we talk about trees.', 'Open your books.'];

/** Starts a class with these settings, a window speaks the lecture; resolves with the lines. */
async function windowSpeaksTo(env: string[], lecture: Int16Array): Promise<string[]> {
  harness = await createHarness({ env: [...env, 'AUDIO_INPUT=app'] });
  const base = await harness.listen();
  client = await classClient(base);
  await client.start();
  const window = await openWindow(base);
  window.hello();
  await window.sendAudio(lecture);
  await waitFor(async () => (await client!.transcript()).length === 3, 30_000, 'three lines');
  return (await client.transcript()).map((entry) => entry.text);
}

describe('AUDIO_INPUT=app, online modes', () => {
  it('cloud mode sends each phrase the window spoke', async () => {
    const lecture = await speechRecording(LECTURE);
    cloud = await createFakeOpenAIServer({
      apiKey: 'sk-cloud',
      transcription: ONLINE_TEXTS.map((text) => ({ type: 'text' as const, text })),
    });
    const lines = await windowSpeaksTo(
      ['ASR_MODE=cloud', `CLOUD_ASR_BASE_URL=${cloud.baseURL}`, 'CLOUD_ASR_API_KEY=sk-cloud'],
      lecture.samples,
    );
    expect(lines).toEqual(ONLINE_TEXTS);
  });

  it('stream mode streams the window’s audio to the service', async () => {
    const lecture = await speechRecording(LECTURE);
    service = await createAsrTestServer({
      auth: { appKey: 'app-id', accessKey: 'access-token' },
      referenceAudio: samplesToBytes(lecture.samples),
      utterances: lecture.sentences.map((sentence, index) => ({
        text: ONLINE_TEXTS[index]!,
        start_time: sentence.startMs,
        end_time: sentence.endMs,
      })),
    });
    const lines = await windowSpeaksTo(
      [
        'ASR_MODE=stream',
        `STREAM_ASR_URL=${service.url}`,
        'STREAM_ASR_APP_KEY=app-id',
        'STREAM_ASR_ACCESS_KEY=access-token',
      ],
      lecture.samples,
    );
    expect(lines).toEqual(ONLINE_TEXTS);
  });
});

describe('the capture socket', () => {
  it('converts what the window really sends (48 kHz stereo) to 16 kHz mono', async () => {
    harness = await createHarness({ env: ['AUDIO_INPUT=app'] });
    const base = await harness.listen();
    const source = await listeningSource(harness);
    const chunks = collect(source);
    const window = await openWindow(base);
    window.hello({ sampleRate: 48000, channels: 2 });
    const stereo = new Int16Array(48000 * 2);
    for (let frame = 0; frame < 48000; frame++) {
      const value = Math.round(8000 * Math.sin((2 * Math.PI * 440 * frame) / 48000));
      stereo[frame * 2] = value;
      stereo[frame * 2 + 1] = value;
    }
    await window.sendAudio(stereo, 19200);
    // One second of audio, less the resampler's 16-sample latency.
    await waitFor(() => sampleCount(chunks) >= 15_990, 5000, 'one second of audio');
    expect(sampleCount(chunks)).toBeLessThanOrEqual(16_000);
    expect(source.info).toMatchObject({ kind: 'app', sampleRate: 48000, channels: 2 });
    expect(source.level).toBeGreaterThan(5000);
  });

  it('reports silence and a window’s own problem at once; the class clock jumps over a gap', async () => {
    harness = await createHarness({ env: ['AUDIO_INPUT=app'] });
    const base = await harness.listen();
    const capture = harness.app.classAssistant.capture;
    expect(capture.status()).toMatchObject({ state: 'off', problem: null });
    const source = await listeningSource(harness);
    const chunks = collect(source);
    expect(capture.status()).toMatchObject({ state: 'waiting', connected: false });
    const window = await openWindow(base);
    // Connected, asking for the microphone: still waiting, however long that takes.
    await new Promise((resolve) => setTimeout(resolve, 2300));
    expect(capture.status()).toMatchObject({ state: 'waiting', connected: true });

    window.socket.send(
      JSON.stringify({
        type: 'problem',
        problem: 'permission-denied',
        message: 'the microphone was refused',
      }),
    );
    await waitFor(() => capture.status().state === 'stopped');
    expect(capture.status()).toMatchObject({
      problem: 'permission-denied',
      message: 'The app window cannot capture: the microphone was refused',
    });

    window.hello();
    await window.sendAudio(new Int16Array(8000).fill(300));
    await waitFor(() => capture.status().state === 'receiving');
    await waitFor(() => sampleCount(chunks) === 8000);
    await waitFor(() => capture.status().state === 'stopped', 5000);
    expect(capture.status()).toMatchObject({ problem: 'no-audio', connected: true });
    // (The half second went in one burst, ahead of real time: wait that out too.)
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await window.sendAudio(new Int16Array(1600).fill(300));
    await waitFor(() => capture.status().state === 'receiving');
    await waitFor(() => chunks.length === 6);
    // The class clock counts the time the window took to start, and the gap of over 2 s after
    // the half second sent first.
    expect(chunks[0]!.atMs).toBeGreaterThan(2000);
    expect(chunks.at(-1)!.atMs).toBeGreaterThan(chunks[0]!.atMs + 2500);

    await source.close();
    expect(capture.status()).toMatchObject({ state: 'off', connected: true });
  });

  it('takes one window at a time: the newest replaces the one before, which is told', async () => {
    harness = await createHarness({ env: ['AUDIO_INPUT=app'] });
    const base = await harness.listen();
    const first = await openWindow(base);
    first.hello({ device: 'First' });
    await waitFor(() => harness!.app.classAssistant.capture.status().device === 'First');
    const second = await openWindow(base);
    expect(await first.next('replaced')).toMatchObject({
      message: 'Another window took over the microphone capture.',
    });
    expect(await first.closed).toEqual({ code: 4001, reason: 'replaced by another window' });
    second.hello({ device: 'Second' });
    await waitFor(() => harness!.app.classAssistant.capture.status().device === 'Second');
    expect(harness.app.classAssistant.capture.status()).toMatchObject({ connected: true });
  });

  it('refuses audio before hello and messages it does not know, saying what was wrong', async () => {
    harness = await createHarness({ env: ['AUDIO_INPUT=app'] });
    const base = await harness.listen();
    const early = await openWindow(base);
    await early.sendAudio(new Int16Array(1600));
    expect(await early.next('error')).toEqual({
      type: 'error',
      code: 'CAPTURE_HELLO_MISSING',
      message: 'Send {"type":"hello", device, sample_rate, channels} before audio.',
    });
    expect((await early.closed).code).toBe(1008);

    const wrong = await openWindow(base);
    wrong.socket.send(JSON.stringify({ type: 'hello', device: 'x', sample_rate: 16000 }));
    const error = await wrong.next('error');
    expect(error).toMatchObject({ code: 'CAPTURE_MESSAGE_INVALID' });
    expect(error.message).toContain('channels');
    expect((await wrong.closed).code).toBe(1008);

    const notJson = await openWindow(base);
    notJson.socket.send('hello');
    expect(await notJson.next('error')).toMatchObject({
      message: 'Text messages must be JSON (hello or problem).',
    });
  });

  it('is behind the Host and Origin rules of every route', async () => {
    harness = await createHarness({ env: ['AUDIO_INPUT=app'] });
    const base = await harness.listen();
    await expect(connectCaptureWindow(base, { origin: 'https://evil.example' })).rejects.toThrow(
      'upgrade refused: HTTP 403',
    );
    await expect(connectCaptureWindow(base, { host: 'evil.example:80' })).rejects.toThrow(
      'upgrade refused: HTTP 403',
    );
    expect(harness.app.classAssistant.capture.status().connected).toBe(false);
    const own = await connectCaptureWindow(base, { origin: base });
    windows.push(own);
    expect(await own.next('format')).toMatchObject({ type: 'format' });
  });

  it('asks for the settings’ format, and check_mic says where the microphone is', async () => {
    harness = await createHarness({
      env: [
        'AUDIO_INPUT=app',
        'AUDIO_SAMPLE_RATE=48000',
        'AUDIO_CHANNELS=2',
        'AUDIO_CHUNK_SIZE=19200',
      ],
    });
    const base = await harness.listen();
    const window = await openWindow(base);
    expect(await window.next('format')).toEqual({
      type: 'format',
      sample_rate: 48000,
      channels: 2,
      chunk_bytes: 19200,
    });
    const mic = (await (await fetch(`${base}/api/check_mic`)).json()) as Record<string, unknown>;
    expect(mic).toEqual({
      status: 'ok',
      input: 'app',
      device: '',
      in_use: false,
      message:
        'The microphone is in the app window (AUDIO_INPUT=app). No class is listening to the app window.',
    });
  });

  it('needs the backend’s capture: a source made without it says so', async () => {
    harness = await createHarness({ env: ['AUDIO_INPUT=app'] });
    expect(() =>
      createAudioSource(harness!.app.classAssistant.settings.current(), harness!.dataDir),
    ).toThrow(expect.objectContaining({ code: 'AUDIO_INPUT_INVALID' }));
  });
});
