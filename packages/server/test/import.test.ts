// Importing a recorded lecture through the HTTP routes of a real backend on a loopback socket:
// espeak-ng speech in a WAV, recognised by PocketSphinx (ASR_MODE=local) as fast as it goes into
// a class of the library, with progress on /api/events and notes from a fake LLM on loopback.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { createFakeOpenAIServer, type FakeOpenAIServer } from '@class-assistant/agent-std/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness, waitFor } from './support/harness.ts';
import { type SpokenSentence, speechRecording, words } from './support/speech.ts';
import { openEventStream } from './support/sse-client.ts';

/** About 40 s of a lecture: sentences with pauses that end each phrase. */
export const RECORDED_LECTURE: readonly SpokenSentence[] = [
  { text: 'good morning everyone', pauseAfterMs: 2000 },
  { text: 'today we will talk about binary search trees', pauseAfterMs: 2000 },
  { text: 'please open your books to page ten', pauseAfterMs: 2000 },
  { text: 'a tree has a root and every node has children', pauseAfterMs: 2000 },
  { text: 'the left child is smaller than its parent', pauseAfterMs: 2000 },
  { text: 'the right child is larger than its parent', pauseAfterMs: 2000 },
  { text: 'searching takes time in proportion to the height', pauseAfterMs: 2000 },
  { text: 'a balanced tree keeps the height small', pauseAfterMs: 2000 },
  { text: 'next week we will look at red black trees', pauseAfterMs: 2000 },
  { text: 'your homework is the exercise on page twelve', pauseAfterMs: 2000 },
];

export const POCKETSPHINX = ['ASR_MODE=local', 'LOCAL_ASR_ENGINE=pocketsphinx'];

let harness: Harness | undefined;
let llm: FakeOpenAIServer | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  await llm?.close();
  llm = undefined;
});

/** POST /api/import with `file` (and fields) as multipart/form-data. */
export async function upload(
  base: string,
  file: { name: string; bytes: Uint8Array },
  fields: Record<string, string> = {},
  language = 'en',
): Promise<{ status: number; body: Record<string, unknown> }> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  form.append('file', new Blob([file.bytes]), file.name);
  const response = await fetch(`${base}/api/import`, {
    method: 'POST',
    body: form,
    headers: { 'accept-language': language },
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

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

async function currentImport(base: string): Promise<Status | null> {
  const response = await fetch(`${base}/api/import`);
  return ((await response.json()) as { import: Status | null }).import;
}

async function classLines(base: string, id: string): Promise<string[]> {
  const response = await fetch(`${base}/api/classes/${id}`);
  const body = (await response.json()) as { lines: Array<{ text: string }> };
  return body.lines.map((line) => line.text);
}

describe('importing a recording over HTTP', { timeout: 180_000 }, () => {
  it('recognises an uploaded lecture into a class with progress, lines and notes', async () => {
    const lecture = await speechRecording(RECORDED_LECTURE, { name: 'import' });
    llm = await createFakeOpenAIServer({
      apiKey: 'sk-test-key-000000000000',
      chat: () => ({ type: 'text', content: '## Binary search trees\n- left is smaller' }),
    });
    harness = await createHarness({
      env: [
        ...POCKETSPHINX,
        `LLM_BASE_URL=${llm.baseURL}`,
        'LLM_API_KEY=sk-test-key-000000000000',
        'LLM_MODEL=class-model',
      ],
    });
    const base = await harness.listen();
    const events = await openEventStream(`${base}/api/events`);
    try {
      const answer = await upload(base, {
        name: 'Week 3 trees.wav',
        bytes: await readFile(lecture.path),
      });
      expect(answer.status).toBe(202);
      const started = answer.body.import as Status;
      expect(started).toMatchObject({ state: 'running', notes: 'pending' });
      expect(started.class_id).toMatch(/\S/);

      const done = await events.next(
        (event) => event.event === 'import.changed' && (event.data as Status).state !== 'running',
        120_000,
      );
      const final = done.data as Status & { course_name: string };
      expect(final).toMatchObject({
        state: 'done',
        notes: 'written',
        fraction: 1,
        course_name: 'Week 3 trees',
        error: null,
        resumable: false,
      });
      expect(final.duration_ms).toBeCloseTo(lecture.durationMs, -2);

      // Progress came on the way: a fraction below 1 with the position and the length.
      const progress = events.events
        .filter((event) => event.event === 'import.changed')
        .map((event) => event.data as Status);
      expect(progress.some((status) => status.state === 'running' && status.fraction < 1)).toBe(
        true,
      );
      // Nobody was called: a recording's keywords (homework!) raise no live alert.
      expect(events.events.filter((event) => event.event === 'alert.raised')).toEqual([]);

      // The class is in the library with what was said, its notes and the course name.
      const lines = await classLines(base, final.class_id!);
      expect(lines.length).toBe(final.lines);
      const heard = new Set(words(lines.join(' ')));
      const said = words(RECORDED_LECTURE.map((sentence) => sentence.text).join(' '));
      expect(said.filter((word) => heard.has(word)).length).toBeGreaterThan(said.length / 3);
      const detail = (await (await fetch(`${base}/api/classes/${final.class_id}`)).json()) as {
        class: { course_name: string; ended_at: string | null; notes: string | null };
        alerts: Array<{ keywords: string[] }>;
      };
      // "homework" (a keyword of a fresh install) was heard: the class keeps the alert, while
      // none went out live (above).
      expect(detail.alerts.flatMap((alert) => alert.keywords)).toContain('homework');
      expect(detail.class).toMatchObject({ course_name: 'Week 3 trees' });
      expect(detail.class.ended_at).not.toBeNull();
      expect(detail.class.notes).toContain('Binary search trees');
      // The upload is removed once it cannot resume; only its state is kept.
      const importFolder = join(harness.dataDir, 'imports', final.id);
      expect(await readdir(importFolder)).toEqual(['import.json']);
      expect(await currentImport(base)).toMatchObject({ id: final.id, state: 'done' });
    } finally {
      events.close();
    }
  });

  it('refuses a file that is no recording, saying what can be imported', async () => {
    harness = await createHarness({ env: POCKETSPHINX });
    const base = await harness.listen();
    const pdf = new TextEncoder().encode(
      '%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\n'.repeat(4),
    );
    const refused = await upload(base, { name: 'slides.pdf', bytes: pdf });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: 'IMPORT_NOT_RECORDING', field: 'file' });
    expect(refused.body.message).toBe(
      '"slides.pdf" is not a recording. Recordings that can be imported: MP3, M4A/AAC, MP4/MOV, WebM/Opus, OGG (Vorbis, Opus), FLAC, WAV.',
    );
    // A renamed file is caught by its content; in Chinese by default.
    const renamed = await upload(base, { name: 'lecture.mp3', bytes: pdf }, {}, 'zh');
    expect(renamed.status).toBe(400);
    expect(renamed.body.message).toContain('“lecture.mp3”的内容不是录音');
    // Nothing was kept, and no import is shown.
    expect(
      (await readdir(join(harness.dataDir, 'imports'))).filter((name) => !name.startsWith('.')),
    ).toEqual([]);
    expect(await currentImport(base)).toBeNull();
  });

  it('keeps nothing of an upload cut off half-way (the UI cancels it), and takes the next one', async () => {
    const lecture = await speechRecording(RECORDED_LECTURE, { name: 'import' });
    harness = await createHarness({ env: POCKETSPHINX });
    const base = await harness.listen();
    const bytes = await readFile(lecture.path);
    const imports = join(harness.dataDir, 'imports');
    const kept = async () =>
      (await readdir(imports).catch(() => [] as string[])).filter((name) => !name.startsWith('.'));

    // The first half of the body is sent, then the connection is closed, as an aborted
    // XMLHttpRequest closes it.
    const boundary = 'cut-off-upload';
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="lecture.wav"\r\n` +
        'Content-Type: audio/wav\r\n\r\n',
    );
    const { port } = new URL(base);
    const socket = connect(Number(port), '127.0.0.1');
    socket.on('error', () => undefined);
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    socket.write(
      `POST /api/import HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n` +
        `Content-Type: multipart/form-data; boundary=${boundary}\r\n` +
        `Content-Length: ${head.length + bytes.length + boundary.length + 8}\r\n\r\n`,
    );
    socket.write(head);
    socket.write(bytes.subarray(0, bytes.length >> 1));
    // The upload is being stored…
    await expect.poll(kept, { timeout: 30_000 }).toHaveLength(1);
    socket.destroy();
    // …and once cut off, nothing of it is left, and no import is shown.
    await expect.poll(kept, { timeout: 30_000 }).toEqual([]);
    expect(await currentImport(base)).toBeNull();

    // The next upload is not refused as busy: it runs.
    const next = await upload(base, { name: 'lecture.wav', bytes });
    expect(next.status).toBe(202);
    await fetch(`${base}/api/import/cancel`, { method: 'POST' });
  });

  it('refuses a live class during an import, and an import during a live class', async () => {
    const lecture = await speechRecording(RECORDED_LECTURE, { name: 'import' });
    harness = await createHarness({ env: POCKETSPHINX });
    const base = await harness.listen();
    const bytes = await readFile(lecture.path);
    const started = await upload(base, { name: 'lecture.wav', bytes });
    expect(started.status).toBe(202);

    const live = await fetch(`${base}/api/start_monitor`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'accept-language': 'en' },
      body: JSON.stringify({ course_name: 'Live' }),
    });
    expect(live.status).toBe(409);
    expect(await live.json()).toMatchObject({
      code: 'IMPORT_BUSY',
      message:
        'A recording is being imported: wait until it is done, or cancel it, before starting a class.',
    });
    const second = await upload(base, { name: 'again.wav', bytes });
    expect(second).toMatchObject({ status: 409, body: { code: 'IMPORT_BUSY' } });

    const cancelled = await fetch(`${base}/api/import/cancel`, { method: 'POST' });
    expect(cancelled.status).toBe(200);
    expect(((await cancelled.json()) as { import: Status }).import.state).toBe('cancelled');

    // A live class (from a WAV file here: no microphone on the test machine) now starts…
    await writeFile(
      harness.envFile,
      `${[...POCKETSPHINX, `AUDIO_INPUT=file:${lecture.path}`].join('\n')}\n`,
    );
    await waitFor(
      () => harness!.app.classAssistant.settings.current().audioInput.startsWith('file:'),
      10_000,
      'the settings file to be read again',
    );
    const liveNow = await fetch(`${base}/api/start_monitor`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ course_name: 'Live' }),
    });
    expect(liveNow.status).toBe(200);
    // …and while it runs, an import is refused in the student's language.
    const during = await upload(base, { name: 'lecture.wav', bytes }, {}, 'zh');
    expect(during).toMatchObject({
      status: 409,
      body: { code: 'IMPORT_BUSY', message: '正在上课：下课后再导入录音。' },
    });
    await fetch(`${base}/api/stop_monitor?with_summary=false`, { method: 'POST' });
  });
});
