// An import that stops half-way goes on with the same class: cancelled by the student, or the
// backend killed (kill -9) in the middle. Real backends (in-process on a loopback socket, and the
// bin as its own process), real speech, PocketSphinx.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFakeOpenAIServer } from '@class-assistant/agent-std/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { startBackendProcess } from './support/backend-process.ts';
import { createHarness, type Harness, waitFor } from './support/harness.ts';
import { type SpokenSentence, speechRecording, words } from './support/speech.ts';
import { openEventStream } from './support/sse-client.ts';

/** About a minute and a half of distinct sentences (none said twice). */
const LONG_LECTURE: readonly SpokenSentence[] = [
  { text: 'good morning everyone', pauseAfterMs: 2000 },
  { text: 'today we will talk about binary search trees', pauseAfterMs: 2000 },
  { text: 'please open your books to page ten', pauseAfterMs: 2000 },
  { text: 'a tree has a root and every node has children', pauseAfterMs: 2000 },
  { text: 'the left child is smaller than its parent', pauseAfterMs: 2000 },
  { text: 'the right child is larger than its parent', pauseAfterMs: 2000 },
  { text: 'searching takes time in proportion to the height', pauseAfterMs: 2000 },
  { text: 'a balanced tree keeps the height small', pauseAfterMs: 2000 },
  { text: 'next week we will look at red black trees', pauseAfterMs: 2000 },
  { text: 'rotations move a node up or down', pauseAfterMs: 2000 },
  { text: 'insertion may break the balance of the tree', pauseAfterMs: 2000 },
  { text: 'deletion is the hardest operation to get right', pauseAfterMs: 2000 },
  { text: 'draw the tree on paper before you write code', pauseAfterMs: 2000 },
  { text: 'the exam will have a question about heights', pauseAfterMs: 2000 },
  { text: 'thank you and see you on thursday', pauseAfterMs: 2000 },
];

const POCKETSPHINX = ['ASR_MODE=local', 'LOCAL_ASR_ENGINE=pocketsphinx'];

interface Status {
  id: string;
  state: string;
  class_id: string | null;
  fraction: number;
  position_ms: number;
  duration_ms: number | null;
  lines: number;
  notes: string;
  warning: { zh: string; en: string } | null;
  resumable: boolean;
  error: { code: string; zh: string; en: string } | null;
}

let harness: Harness | undefined;
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function upload(base: string, path: string, name: string): Promise<Status> {
  const form = new FormData();
  form.append('file', new Blob([await readFile(path)]), name);
  const response = await fetch(`${base}/api/import`, { method: 'POST', body: form });
  expect(response.status).toBe(202);
  return ((await response.json()) as { import: Status }).import;
}

async function currentImport(base: string): Promise<Status> {
  return ((await (await fetch(`${base}/api/import`)).json()) as { import: Status }).import;
}

async function resume(base: string, id: string): Promise<Response> {
  return fetch(`${base}/api/import/resume`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'accept-language': 'en' },
    body: JSON.stringify({ id }),
  });
}

interface ClassItem {
  id: string;
  line_count: number;
  ended_at: string | null;
}

async function classes(base: string): Promise<ClassItem[]> {
  const body = (await (await fetch(`${base}/api/classes`)).json()) as { items: ClassItem[] };
  return body.items;
}

async function classLines(base: string, id: string): Promise<string[]> {
  const body = (await (await fetch(`${base}/api/classes/${id}`)).json()) as {
    lines: Array<{ text: string }>;
  };
  return body.lines.map((line) => line.text);
}

/** Checks the class holds the lecture once: most words heard, no line written twice. */
function expectLectureOnce(lines: string[]) {
  expect(new Set(lines).size).toBe(lines.length);
  const heard = words(lines.join(' '));
  const said = words(LONG_LECTURE.map((sentence) => sentence.text).join(' '));
  const heardSet = new Set(heard);
  expect(said.filter((word) => heardSet.has(word)).length).toBeGreaterThan(said.length / 3);
  // Nothing was recognised twice: no more words than were said, give or take PocketSphinx's
  // guesses (a repeated stretch would add a third or more).
  expect(heard.length).toBeLessThan(said.length * 1.25);
}

describe('an import that stopped goes on with the same class', { timeout: 300_000 }, () => {
  it('cancelled mid-way keeps its lines, and resumes from where it stopped', async () => {
    const lecture = await speechRecording(LONG_LECTURE, { name: 'resume' });
    harness = await createHarness({ env: POCKETSPHINX });
    const base = await harness.listen();
    const events = await openEventStream(`${base}/api/events`);
    cleanups.push(async () => events.close());

    const started = await upload(base, lecture.path, 'trees.wav');
    await events.next((event) => event.event === 'line.appended', 120_000);
    const cancel = await fetch(`${base}/api/import/cancel`, { method: 'POST' });
    expect(cancel.status).toBe(200);
    const cancelled = ((await cancel.json()) as { import: Status }).import;
    expect(cancelled).toMatchObject({ id: started.id, state: 'cancelled', resumable: true });
    expect(cancelled.position_ms).toBeGreaterThan(0);
    expect(cancelled.position_ms).toBeLessThan(lecture.durationMs - 10_000);
    expect(cancelled.lines).toBeGreaterThan(0);
    // The lines so far are in the library, the class ended, nothing runs.
    const kept = await classLines(base, cancelled.class_id!);
    expect(kept.length).toBe(cancelled.lines);
    const status = (await (await fetch(`${base}/api/monitor_status`)).json()) as {
      is_monitoring: boolean;
    };
    expect(status.is_monitoring).toBe(false);

    const resumed = await resume(base, started.id);
    expect(resumed.status).toBe(202);
    const going = ((await resumed.json()) as { import: Status }).import;
    // The same class, from the position reached (not from the start).
    expect(going).toMatchObject({ state: 'running', class_id: cancelled.class_id });
    expect(going.position_ms).toBeGreaterThanOrEqual(cancelled.position_ms);
    const done = (
      await events.next(
        (event) =>
          event.event === 'import.changed' &&
          (event.data as Status).state === 'done' &&
          (event.data as Status).id === started.id,
        240_000,
      )
    ).data as Status;
    expect(done).toMatchObject({ class_id: cancelled.class_id, fraction: 1, notes: 'skipped' });
    expect(done.warning?.en).toContain('No LLM is configured');

    // One class with the whole lecture, each line once, the first lines still first.
    expect((await classes(base)).map((item) => item.id)).toEqual([cancelled.class_id]);
    const lines = await classLines(base, cancelled.class_id!);
    expect(lines.slice(0, kept.length)).toEqual(kept);
    expect(lines.length).toBeGreaterThan(kept.length);
    expectLectureOnce(lines);

    // Done is done.
    const again = await resume(base, started.id);
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({
      code: 'IMPORT_NOT_RESUMABLE',
      message: 'This recording has been imported already.',
    });
  });

  it('killed with the backend (kill -9) is failed and resumable at the next start, never continued live', async () => {
    const lecture = await speechRecording(LONG_LECTURE, { name: 'resume' });
    const root = await mkdtemp(join(tmpdir(), 'class-assistant-import-crash-'));
    cleanups.push(() => rm(root, { recursive: true, force: true }));
    const first = await startBackendProcess(POCKETSPHINX, process.env, { root });
    cleanups.push(() => first.stop());
    const started = await upload(first.base, lecture.path, 'trees.wav');
    const midway = await waitFor(
      async () => {
        const status = await currentImport(first.base);
        return status.lines >= 2 && status.state === 'running' ? status : undefined;
      },
      120_000,
      'two lines of the import',
    );
    expect(midway.fraction).toBeLessThan(0.8);
    await first.stop();

    const second = await startBackendProcess(POCKETSPHINX, process.env, { root });
    cleanups.push(() => second.stop());
    const failed = await currentImport(second.base);
    expect(failed).toMatchObject({
      id: started.id,
      state: 'failed',
      resumable: true,
      class_id: midway.class_id,
      error: { code: 'IMPORT_INTERRUPTED' },
    });
    // The class is kept, ended, with its lines: not continued with the microphone (which,
    // tried, would fail here and say so in the status's `interruption`).
    const kept = await waitFor(
      async () => {
        const items = await classes(second.base);
        return items.length === 1 && items[0]!.ended_at !== null ? items : undefined;
      },
      20_000,
      'the class kept, ended',
    );
    expect(kept[0]!.line_count).toBeGreaterThanOrEqual(2);
    const monitor = (await (await fetch(`${second.base}/api/monitor_status`)).json()) as {
      is_monitoring: boolean;
      interruption: unknown;
    };
    expect(monitor).toMatchObject({ is_monitoring: false, interruption: null });
    expect(kept[0]!.id).toBe(midway.class_id);

    const resumed = await resume(second.base, started.id);
    expect(resumed.status).toBe(202);
    const done = await waitFor(
      async () => {
        const status = await currentImport(second.base);
        return status.state !== 'running' ? status : undefined;
      },
      240_000,
      'the resumed import to end',
    );
    expect(done).toMatchObject({ state: 'done', class_id: midway.class_id, error: null });
    expect((await classes(second.base)).map((item) => item.id)).toEqual([midway.class_id]);
    expectLectureOnce(await classLines(second.base, midway.class_id!));
  });

  it('failed half-way (the recognizer fails) keeps its lines and goes on from the last one', async () => {
    const lecture = await speechRecording(LONG_LECTURE, { name: 'resume' });
    // The online recognizer at the edge of the machine: its key is refused from the 5th phrase
    // until the student has fixed it.
    let keyWorks = false;
    let phrase = 0;
    const heard: string[] = [];
    const cloud = await createFakeOpenAIServer({
      transcription: () => {
        phrase += 1;
        if (!keyWorks && phrase === 5) {
          return { type: 'error', status: 401, message: 'Incorrect API key provided' };
        }
        // What was said (the pipeline drops a line much like a recent one: each is distinct).
        const text = `${LONG_LECTURE[(phrase - 1) % LONG_LECTURE.length]!.text}.`;
        heard.push(text);
        return { type: 'text', text };
      },
    });
    cleanups.push(() => cloud.close());
    harness = await createHarness({
      env: [
        'ASR_MODE=cloud',
        `CLOUD_ASR_BASE_URL=${cloud.baseURL}`,
        'CLOUD_ASR_API_KEY=sk-cloud',
        'CLOUD_ASR_MODEL=whisper-large-v3',
        'CLOUD_ASR_LANGUAGE=en',
      ],
    });
    const base = await harness.listen();
    const started = await upload(base, lecture.path, 'trees.wav');
    const failed = await waitFor(
      async () => {
        const status = await currentImport(base);
        return status.state === 'failed' ? status : undefined;
      },
      120_000,
      'the import to fail',
    );
    expect(failed).toMatchObject({
      id: started.id,
      resumable: true,
      lines: 4,
      error: { code: 'RECOGNIZER_FAILED' },
    });
    expect(failed.error!.en).toMatch(
      /^Recognition stopped at 0:\d\d of the recording: .*CLOUD_ASR_API_KEY/,
    );
    expect(failed.error!.zh).toMatch(/^识别在录音的 0:\d\d 处停止了：/);
    expect(await classLines(base, failed.class_id!)).toEqual(heard.slice(0, 4));

    keyWorks = true;
    expect((await resume(base, started.id)).status).toBe(202);
    const done = await waitFor(
      async () => {
        const status = await currentImport(base);
        return status.state !== 'running' ? status : undefined;
      },
      120_000,
      'the resumed import to end',
    );
    expect(done).toMatchObject({ state: 'done', class_id: failed.class_id, error: null });
    // Every phrase once: the four kept, then from the one that failed (sent again) to the end.
    const lines = await classLines(base, failed.class_id!);
    expect(lines).toEqual(heard);
    expect(lines.length).toBe(LONG_LECTURE.length);
  });
});
