// A class keeps the audio it hears in its folder (audio.ogg, Ogg Opus) and each line says where
// its speech starts in it (`audio_ms`): real espeak-ng speech at known positions, PocketSphinx,
// the encoder's worker thread, a real app over a real socket; ffmpeg/ffprobe judge the file.
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import JSZip from 'jszip';
import { afterEach, describe, expect, it } from 'vitest';
import { CLASS_FILES, dataPaths } from '../src/data-folder.ts';
import { type ClassClient, classClient } from './support/class-client.ts';
import { createHarness, FAST_MOCK, type Harness } from './support/harness.ts';
import { judgeAudio } from './support/ogg-judge.ts';
import { type SpeechRecording, speechRecording, words } from './support/speech.ts';
import { openEventStream } from './support/sse-client.ts';

let harness: Harness | undefined;
let client: ClassClient | undefined;
afterEach(async () => {
  client?.close();
  client = undefined;
  await harness?.close();
  harness = undefined;
});

const POCKETSPHINX = ['ASR_MODE=local', 'LOCAL_ASR_ENGINE=pocketsphinx'];

/** Sentences about 2 s, 9 s and 19 s into the recording. */
const LECTURE = [
  { text: 'good morning everyone', pauseAfterMs: 5500 },
  { text: 'today we will talk about binary search trees', pauseAfterMs: 7000 },
  { text: 'please open your books to page ten', pauseAfterMs: 2000 },
] as const;

type Line = { text: string; audio_ms: number | null };

/** For each line: the sentence it holds and how far its audio_ms is from that sentence's start. */
function offsets(lines: readonly Line[], lecture: SpeechRecording) {
  return lines.map((line) => {
    const heard = new Set(words(line.text));
    const sentence = lecture.sentences
      .map((candidate, index) => ({
        index,
        startMs: candidate.startMs,
        shared: words(candidate.text).filter((word) => heard.has(word)).length,
      }))
      .sort((a, b) => b.shared - a.shared)[0]!;
    return {
      sentence: sentence.index,
      near: line.audio_ms !== null && Math.abs(line.audio_ms - sentence.startMs) <= 500,
      audio_ms: line.audio_ms,
      startMs: sentence.startMs,
    };
  });
}

const expectNear = (lines: readonly Line[], lecture: SpeechRecording) =>
  expect(offsets(lines, lecture)).toEqual(
    lecture.sentences.map((sentence, index) => ({
      sentence: index,
      near: true,
      audio_ms: expect.any(Number),
      startMs: sentence.startMs,
    })),
  );

describe('a class keeps its audio', () => {
  it('as Ogg Opus in its folder, each line placed in it, served, sized and exported', async () => {
    const lecture = await speechRecording(LECTURE, { leadMs: 2000, name: 'kept' });
    harness = await createHarness({
      env: [...POCKETSPHINX, `AUDIO_INPUT=file:${lecture.path}`, 'AUDIO_FILE_PACE=fast'],
    });
    const base = await harness.listen();
    client = await classClient(base);
    expect(await client.start({ course_name: 'Data structures' })).toMatchObject({ status: 200 });
    await client.recognizerState('ended');

    const appended = client.all('line.appended').map((event) => event.data as Line);
    expectNear(appended, lecture);
    const live = (await (await fetch(`${base}/api/transcript`)).json()) as {
      entries: Line[];
    };
    expectNear(live.entries, lecture);

    await client.stop();
    const list = (await (await fetch(`${base}/api/classes`)).json()) as {
      items: Array<{ id: string; audio_bytes: number | null }>;
      audio_bytes_total: number;
    };
    const id = list.items[0]!.id;
    const file = join(dataPaths(harness.dataDir).classes, id, CLASS_FILES.audio);
    const kept = await readFile(file);
    const { errors, durationMs, streams } = await judgeAudio(file);
    expect(streams).toBe(1);
    expect(errors).toBe('');
    expect(Math.abs(durationMs - lecture.durationMs)).toBeLessThanOrEqual(300);
    expect(list.items[0]!.audio_bytes).toBe(kept.length);
    expect(list.audio_bytes_total).toBe(kept.length);
    // About 24 kbit/s of speech.
    expect(kept.length / (lecture.durationMs / 1000)).toBeLessThan(4000);

    const detail = (await (await fetch(`${base}/api/classes/${id}`)).json()) as {
      class: { audio_bytes: number | null };
      lines: Line[];
    };
    expect(detail.class.audio_bytes).toBe(kept.length);
    expectNear(detail.lines, lecture);

    const served = await fetch(`${base}/api/classes/${id}/audio`);
    expect(served.status).toBe(200);
    expect(Buffer.from(await served.arrayBuffer()).equals(kept)).toBe(true);

    const exported = await fetch(`${base}/api/classes/${id}/export?format=zip`);
    expect(exported.status).toBe(200);
    expect(exported.headers.get('content-type')).toBe('application/zip');
    expect(exported.headers.get('content-disposition')).toMatch(/\.zip/);
    const zip = await JSZip.loadAsync(await exported.arrayBuffer());
    const names = Object.keys(zip.files).sort();
    expect(names).toEqual(
      [
        'README.txt',
        CLASS_FILES.audio,
        `Data structures_${id}.md`,
        `Data structures_${id}.srt`,
      ].sort(),
    );
    const zipped = await zip.file(CLASS_FILES.audio)!.async('nodebuffer');
    expect(zipped.equals(kept)).toBe(true);
    expect(await zip.file(`Data structures_${id}.srt`)!.async('string')).toContain('morning');
  });

  it('keeps an imported recording’s audio too (played as fast as it is recognised)', async () => {
    const lecture = await speechRecording(LECTURE, { leadMs: 2000, name: 'kept' });
    harness = await createHarness({ env: [...POCKETSPHINX] });
    const base = await harness.listen();
    const events = await openEventStream(`${base}/api/events`);
    try {
      const form = new FormData();
      form.append('file', new Blob([await readFile(lecture.path)]), 'Week 3 trees.wav');
      const answer = await fetch(`${base}/api/import`, { method: 'POST', body: form });
      expect(answer.status).toBe(202);
      const done = await events.next(
        (event) =>
          event.event === 'import.changed' && (event.data as { state: string }).state !== 'running',
        120_000,
      );
      const final = done.data as { state: string; class_id: string };
      expect(final.state).toBe('done');
      const file = join(dataPaths(harness.dataDir).classes, final.class_id, CLASS_FILES.audio);
      const { errors, durationMs } = await judgeAudio(file);
      expect(errors).toBe('');
      expect(Math.abs(durationMs - lecture.durationMs)).toBeLessThanOrEqual(300);
      const detail = (await (await fetch(`${base}/api/classes/${final.class_id}`)).json()) as {
        class: { audio_bytes: number | null };
        lines: Line[];
      };
      expect(detail.class.audio_bytes).toBe((await stat(file)).size);
      expectNear(detail.lines, lecture);
    } finally {
      events.close();
    }
  }, 180_000);

  it('keeps nothing with KEEP_AUDIO=off, nor in the demo mode', async () => {
    const lecture = await speechRecording(LECTURE, { leadMs: 2000, name: 'kept' });
    harness = await createHarness({
      env: [
        ...POCKETSPHINX,
        `AUDIO_INPUT=file:${lecture.path}`,
        'AUDIO_FILE_PACE=fast',
        'KEEP_AUDIO=off',
      ],
    });
    const base = await harness.listen();
    client = await classClient(base);
    await client.start({ course_name: 'Off' });
    await client.recognizerState('ended');
    const appended = client.all('line.appended').map((event) => event.data as Line);
    expect(appended.length).toBeGreaterThan(0);
    expect(appended.map((line) => line.audio_ms)).toEqual(appended.map(() => null));
    await client.stop();
    const list = (await (await fetch(`${base}/api/classes`)).json()) as {
      items: Array<{ id: string; audio_bytes: number | null }>;
      audio_bytes_total: number;
    };
    expect(list.items[0]!.audio_bytes).toBeNull();
    expect(list.audio_bytes_total).toBe(0);
    const folder = join(dataPaths(harness.dataDir).classes, list.items[0]!.id);
    await expect(stat(join(folder, CLASS_FILES.audio))).rejects.toThrow(/ENOENT/);
    const exported = await fetch(`${base}/api/classes/${list.items[0]!.id}/export?format=zip`);
    const zip = await JSZip.loadAsync(await exported.arrayBuffer());
    expect(zip.file(CLASS_FILES.audio)).toBeNull();
    expect(await zip.file('README.txt')!.async('string')).toMatch(/kept no audio/);
    client.close();
    await harness.close();

    harness = await createHarness({ env: [...FAST_MOCK] });
    const mockBase = await harness.listen();
    client = await classClient(mockBase);
    await client.start({ course_name: 'Demo' });
    await client.recognizerState('ended');
    const mockLines = client.all('line.appended').map((event) => event.data as Line);
    expect(mockLines.length).toBeGreaterThan(0);
    expect(mockLines.every((line) => line.audio_ms === null)).toBe(true);
    await client.stop();
    const mockList = (await (await fetch(`${mockBase}/api/classes`)).json()) as {
      items: Array<{ id: string; audio_bytes: number | null }>;
    };
    expect(mockList.items[0]!.audio_bytes).toBeNull();
    const mockFolder = join(dataPaths(harness.dataDir).classes, mockList.items[0]!.id);
    await expect(stat(join(mockFolder, CLASS_FILES.audio))).rejects.toThrow(/ENOENT/);
  });
});
