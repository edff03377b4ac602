// ASR_MODE=cloud end to end: the energy VAD cuts an espeak-ng lecture into phrases, each goes as
// a WAV through the real `openai` SDK to an OpenAI-compatible fake over real HTTP
// (`createFakeOpenAIServer` from agent-std/testing), and the answers become transcript lines.

import {
  createFakeOpenAIServer,
  type FakeOpenAIServer,
  type FakeTranscriptionReply,
} from '@class-assistant/agent-std/testing';
import { parseWav } from '@class-assistant/asr-protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { type ClassClient, classClient } from './support/class-client.ts';
import { createHarness, type Harness } from './support/harness.ts';
import { LECTURE, speechRecording } from './support/speech.ts';

let harness: Harness | undefined;
let client: ClassClient | undefined;
let cloud: FakeOpenAIServer | undefined;
afterEach(async () => {
  client?.close();
  client = undefined;
  await harness?.close();
  harness = undefined;
  await cloud?.close();
  cloud = undefined;
});

const TEXTS = [
  'Good morning, everyone.',
  'Today we will talk about binary search trees.',
  'Please open your books to page ten.',
];

async function startCloudClass(
  replies: FakeTranscriptionReply[],
  settings: { key?: string } = {},
): Promise<ClassClient> {
  const lecture = await speechRecording(LECTURE);
  cloud = await createFakeOpenAIServer({ apiKey: 'sk-cloud', transcription: replies });
  harness = await createHarness({
    env: [
      'ASR_MODE=cloud',
      `CLOUD_ASR_BASE_URL=${cloud.baseURL}`,
      `CLOUD_ASR_API_KEY=${settings.key ?? 'sk-cloud'}`,
      'CLOUD_ASR_MODEL=whisper-large-v3',
      'CLOUD_ASR_LANGUAGE=en',
      `AUDIO_INPUT=file:${lecture.path}`,
      'AUDIO_FILE_PACE=fast',
    ],
  });
  client = await classClient(await harness.listen());
  return client;
}

describe('ASR_MODE=cloud', () => {
  it('sends each detected phrase as a WAV and writes the answers as lines', async () => {
    const lecture = await speechRecording(LECTURE);
    const live = await startCloudClass(TEXTS.map((text) => ({ type: 'text', text })));
    await fetch(`http://127.0.0.1:${harness!.app.classAssistant.port()}/api/update_keywords`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ keywords: ['Wang Fang'] }),
    });
    expect((await live.start()).body).toMatchObject({
      status: 'started',
      effective_asr_mode: 'cloud',
    });
    await live.recognizerState('ended');
    expect((await live.transcript()).map((entry) => entry.text)).toEqual(TEXTS);

    const requests = cloud!.transcriptionRequests;
    expect(requests).toHaveLength(3);
    requests.forEach((request, index) => {
      expect(request).toMatchObject({
        path: '/v1/audio/transcriptions',
        model: 'whisper-large-v3',
        language: 'en',
        prompt: 'Wang Fang',
        fileName: `phrase-${index + 1}.wav`,
      });
      expect(request.headers.authorization).toBe('Bearer sk-cloud');
      // A real 16 kHz mono WAV holding the sentence, with the kept silence around it.
      const wav = parseWav(request.audio);
      const sentence = lecture.sentences[index]!;
      expect(wav.channels).toBe(1);
      expect(wav.durationMs).toBeGreaterThan(sentence.endMs - sentence.startMs);
      expect(wav.durationMs).toBeLessThan(sentence.endMs - sentence.startMs + 2000);
    });
  });

  it('rides out a server error (the SDK retries) and loses one phrase to a rate limit, saying so', async () => {
    const live = await startCloudClass([
      { type: 'error', status: 500, message: 'upstream hiccup' },
      { type: 'text', text: TEXTS[0]! },
      ...Array.from({ length: 3 }, () => ({
        type: 'error' as const,
        status: 429,
        message: 'Rate limit reached',
      })),
      { type: 'text', text: TEXTS[2]! },
    ]);
    await live.start();
    await live.recognizerState('ended');
    expect((await live.transcript()).map((entry) => entry.text)).toEqual([TEXTS[0], TEXTS[2]]);
    const error = live.all('error.raised').map((event) => event.data as { message: string });
    expect(error).toHaveLength(1);
    expect(error[0]!.message).toContain('rate-limiting (HTTP 429)');
  });

  it('stops the class on a rejected key, naming CLOUD_ASR_API_KEY', async () => {
    const live = await startCloudClass([], { key: 'sk-wrong' });
    await live.start();
    await live.recognizerState('failed');
    const error = live.all('error.raised').at(-1)!.data as { message: string };
    expect(error.message).toContain('CLOUD_ASR_API_KEY');
    expect(error.message).toContain('HTTP 401');
    expect(await live.transcript()).toEqual([]);
  });

  it('says which keys are missing before starting', async () => {
    harness = await createHarness({
      env: ['ASR_MODE=cloud', 'LLM_API_KEY=', 'CLOUD_ASR_API_KEY='],
    });
    const response = await harness.startMonitor();
    expect(response.statusCode).toBe(503);
    expect(response.body).toMatchObject({
      code: 'RECOGNIZER_UNAVAILABLE',
      field: 'CLOUD_ASR_API_KEY',
      message: expect.stringContaining('CLOUD_ASR_API_KEY'),
    });
  });
});
