// A class listening to a recording (AUDIO_INPUT=file:…) stamps each line with the position in
// the recording where its speech starts, not the wall clock: in the live events, the transcript,
// /api/transcript, the library, search and the SRT export — also when the class was paused in
// the middle. Real espeak-ng speech at known positions, the real energy VAD and PocketSphinx,
// a real app over a real socket.
import { createFakeOpenAIServer, type FakeOpenAIServer } from '@class-assistant/agent-std/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createRecognizerRegistry, type RecognizerEvent } from '../src/recognizers/recognizer.ts';
import { type ClassClient, classClient } from './support/class-client.ts';
import { createHarness, type Harness, waitFor } from './support/harness.ts';
import {
  type SpeechRecording,
  type SpokenSentence,
  speechRecording,
  words,
} from './support/speech.ts';

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

const POCKETSPHINX = ['ASR_MODE=local', 'LOCAL_ASR_ENGINE=pocketsphinx'];

/** Sentences about 2 s, 14 s and 31 s into the recording, long silences between them. */
const SPREAD_LECTURE: readonly SpokenSentence[] = [
  { text: 'good morning everyone', pauseAfterMs: 10_500 },
  { text: 'today we will talk about binary search trees', pauseAfterMs: 14_500 },
  { text: 'please open your books to page ten', pauseAfterMs: 2000 },
];

const seconds = (time: string) => {
  const [hours, minutes, secs] = time.split(':').map(Number);
  return hours! * 3600 + minutes! * 60 + secs!;
};

/**
 * For each line, the sentence it holds (most words in common) and whether its time — whole
 * seconds, floored — is within 0.5 s of where that sentence starts in the recording.
 */
function placed(lines: Array<{ timestamp: string; text: string }>, lecture: SpeechRecording) {
  return lines.map((line) => {
    const heard = new Set(words(line.text));
    const sentence = lecture.sentences
      .map((candidate, index) => ({
        index,
        startMs: candidate.startMs,
        shared: words(candidate.text).filter((word) => heard.has(word)).length,
      }))
      .sort((a, b) => b.shared - a.shared)[0]!;
    const at = seconds(line.timestamp) * 1000;
    return {
      sentence: sentence.index,
      timestamp: line.timestamp,
      knownStartMs: sentence.startMs,
      near: at <= sentence.startMs + 500 && at + 1000 > sentence.startMs - 500,
    };
  });
}

const expectPlaced = (
  lines: Array<{ timestamp: string; text: string }>,
  lecture: SpeechRecording,
) =>
  expect(placed(lines, lecture)).toEqual(
    lecture.sentences.map((sentence, index) => ({
      sentence: index,
      timestamp: expect.any(String),
      knownStartMs: sentence.startMs,
      near: true,
    })),
  );

describe('a class listening to a recording', () => {
  it('stamps every line with where its sentence starts in the recording, everywhere it is shown', async () => {
    const lecture = await speechRecording(SPREAD_LECTURE, { leadMs: 2000, name: 'spread' });
    expect(lecture.sentences.map((sentence) => Math.round(sentence.startMs / 1000))).toEqual([
      2,
      expect.any(Number),
      expect.any(Number),
    ]);
    harness = await createHarness({
      env: [...POCKETSPHINX, `AUDIO_INPUT=file:${lecture.path}`, 'AUDIO_FILE_PACE=fast'],
    });
    const base = await harness.listen();
    client = await classClient(base);
    const started = await client.start({ course_name: 'Data structures' });
    expect(started).toMatchObject({ status: 200, body: { status: 'started' } });
    const status = (await (await fetch(`${base}/api/monitor_status`)).json()) as {
      source?: unknown;
    };
    expect(status.source).toEqual({
      kind: 'recording',
      file_name: lecture.path.split('/').at(-1),
      duration_ms: Math.round(lecture.durationMs),
    });
    await client.recognizerState('ended');

    // The live events and /api/transcript.
    const appended = client
      .all('line.appended')
      .map((event) => event.data as { timestamp: string; text: string });
    expectPlaced(appended, lecture);
    const entries = await client.transcript();
    expectPlaced(entries, lecture);
    // The first line is 2 s into the recording, not at the time of day the class started.
    expect(entries[0]!.timestamp).toMatch(/^00:00:0[12]$/);

    await client.stop();
    const classes = (await (await fetch(`${base}/api/classes`)).json()) as {
      items: Array<{ id: string; source: unknown }>;
    };
    const id = classes.items[0]!.id;
    const source = {
      kind: 'recording',
      file_name: lecture.path.split('/').at(-1),
      duration_ms: Math.round(lecture.durationMs),
    };
    expect(classes.items[0]!.source).toEqual(source);
    const detail = (await (await fetch(`${base}/api/classes/${id}`)).json()) as {
      class: { source: unknown };
      lines: Array<{ timestamp: string; text: string }>;
    };
    expect(detail.class.source).toEqual(source);
    expectPlaced(detail.lines, lecture);

    // Subtitles: cue starts are the positions.
    const srt = await (await fetch(`${base}/api/classes/${id}/export?format=srt`)).text();
    const cues = [...srt.matchAll(/^(\d\d:\d\d:\d\d),\d{3} --> .*\n(.+)$/gm)].map((match) => ({
      timestamp: match[1]!,
      text: match[2]!,
    }));
    expectPlaced(cues, lecture);

    // A search finds the line with its position.
    const word = words(entries[2]!.text).sort((a, b) => b.length - a.length)[0]!;
    await harness.app.classAssistant.library.ready();
    const found = await waitFor(
      async () => {
        const answer = (await (await fetch(`${base}/api/search?q=${word}`)).json()) as {
          hits: Array<{ kind: string; timestamp?: string }>;
        };
        return answer.hits.find((hit) => hit.kind === 'line');
      },
      30_000,
      'the class to be searchable',
    );
    expect(found.timestamp).toBe(entries[2]!.timestamp);
  });

  it('keeps the positions right when the class was paused in the middle', async () => {
    const lecture = await speechRecording(
      [
        { text: 'good morning everyone', pauseAfterMs: 7000 },
        { text: 'today we will talk about binary search trees', pauseAfterMs: 1500 },
      ],
      { leadMs: 1500, name: 'paused' },
    );
    harness = await createHarness({
      env: [...POCKETSPHINX, `AUDIO_INPUT=file:${lecture.path}`, 'AUDIO_FILE_PACE=realtime'],
    });
    client = await classClient(await harness.listen());
    await client.start({ course_name: 'Data structures' });
    // In the silence after the first sentence, the student pauses the class for 4 s: the
    // class clock runs on, the recording does not.
    await client.events.next((event) => event.event === 'line.appended', 30_000);
    expect(await client.pause()).toMatchObject({ status: 'paused' });
    await new Promise((resolve) => setTimeout(resolve, 4000));
    expect(await client.resume()).toMatchObject({ status: 'resumed' });
    await client.recognizerState('ended', 60_000);
    expectPlaced(await client.transcript(), lecture);
  });

  it('stamps a transcription service’s lines with where each phrase starts (cloud mode)', async () => {
    const lecture = await speechRecording(SPREAD_LECTURE, { leadMs: 2000, name: 'spread' });
    // The service answers each phrase with its sentence; the lines carry no times of their own.
    cloud = await createFakeOpenAIServer({
      apiKey: 'sk-cloud',
      transcription: SPREAD_LECTURE.map((sentence) => ({ type: 'text', text: sentence.text })),
    });
    harness = await createHarness({
      env: [
        'ASR_MODE=cloud',
        `CLOUD_ASR_BASE_URL=${cloud.baseURL}`,
        'CLOUD_ASR_API_KEY=sk-cloud',
        'CLOUD_ASR_MODEL=whisper-large-v3',
        `AUDIO_INPUT=file:${lecture.path}`,
        'AUDIO_FILE_PACE=fast',
      ],
    });
    client = await classClient(await harness.listen());
    await client.start({ course_name: 'Data structures' });
    await client.recognizerState('ended');
    expectPlaced(await client.transcript(), lecture);
  });

  it('keeps the name the student gave the file, and a length learnt at the end (the import’s start)', async () => {
    // A recognizer playing an upload kept under another name, whose length is not known ahead:
    // its class clock runs 1 s ahead of the recording (a pause), and it has given 65 s so far.
    let emit: (event: RecognizerEvent) => void = () => undefined;
    const recognizers = createRecognizerRegistry([
      {
        mode: 'local',
        description: 'a recognizer playing a recording',
        availability: async () => ({ available: true }),
        create(context) {
          emit = context.emit;
          return {
            input: () => ({
              kind: 'file',
              name: '/data/.imports/upload-1f3a.tmp',
              sampleRate: 44_100,
              channels: 2,
              level: 0,
            }),
            recordingPosition: (atMs) => (atMs === undefined ? 65_400 : atMs - 1000),
            start: async () => undefined,
            pause: async () => undefined,
            resume: async () => undefined,
            stop: async () => undefined,
          };
        },
      },
    ]);
    harness = await createHarness({ env: ['ASR_MODE=local'], options: { recognizers } });
    const base = await harness.listen();
    client = await classClient(base);
    const { monitor } = harness.app.classAssistant;
    await monitor.start({
      courseName: 'Linear algebra',
      citeFilename: null,
      recordingName: 'lecture 3 - matrices.mp3',
    });
    const source = { kind: 'recording', file_name: 'lecture 3 - matrices.mp3', duration_ms: null };
    expect(monitor.status().source).toEqual(source);
    emit({ type: 'segment', text: 'The rank of a matrix.', startMs: 5200, endMs: 7000 });
    emit({ type: 'text', text: 'Homework is on page ten.' });
    await waitFor(async () => (await client!.transcript()).length === 2, 10_000, 'two lines');
    expect((await client.transcript()).map((line) => line.timestamp)).toEqual([
      '00:00:04',
      '00:01:05',
    ]);
    await monitor.stop();
    const classes = (await (await fetch(`${base}/api/classes`)).json()) as {
      items: Array<{ source: unknown }>;
    };
    expect(classes.items[0]!.source).toEqual({ ...source, duration_ms: 65_400 });
  });
});
