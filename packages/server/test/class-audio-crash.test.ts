// A backend killed (SIGKILL) in the middle of a class keeps the audio it had written: the file
// decodes cleanly and holds all but the last seconds. Started again, the class goes on in the
// same Ogg stream (one stream, both parts), and the lines after the gap point into the second
// part. Real processes, real espeak-ng speech, PocketSphinx; ffmpeg/ffprobe judge the file.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLASS_FILES, dataPaths } from '../src/data-folder.ts';
import { oggResumePoint } from '../src/recording/ogg-page.ts';
import { type BackendProcess, startBackendProcess } from './support/backend-process.ts';
import { classClient } from './support/class-client.ts';
import { waitFor } from './support/harness.ts';
import { judgeAudio } from './support/ogg-judge.ts';
import { speechRecording, words } from './support/speech.ts';
import type { EventStreamClient } from './support/sse-client.ts';

let root: string | undefined;
const processes: BackendProcess[] = [];
const streams: EventStreamClient[] = [];
afterEach(async () => {
  for (const stream of streams.splice(0)) stream.close();
  for (const backend of processes.splice(0)) await backend.stop();
  if (root) await rm(root, { recursive: true, force: true });
  root = undefined;
});

const LECTURE = [
  { text: 'good morning everyone', pauseAfterMs: 5500 },
  { text: 'today we will talk about binary search trees', pauseAfterMs: 7000 },
  { text: 'please open your books to page ten', pauseAfterMs: 2000 },
] as const;

type Line = { id: number; text: string; audio_ms: number | null };

async function start(settings: string[]): Promise<BackendProcess> {
  root ??= await mkdtemp(join(tmpdir(), 'class-assistant-audio-crash-'));
  const backend = await startBackendProcess(settings, process.env, { root });
  processes.push(backend);
  return backend;
}

async function getJson<T>(url: string): Promise<T> {
  return (await (await fetch(url)).json()) as T;
}

describe('the kept audio of a backend killed mid-class', () => {
  it('decodes cleanly, and the class going on continues the same stream', async () => {
    const lecture = await speechRecording(LECTURE, { leadMs: 2000, name: 'crash' });
    const settings = [
      'ASR_MODE=local',
      'LOCAL_ASR_ENGINE=pocketsphinx',
      `AUDIO_INPUT=file:${lecture.path}`,
      'LOG_LEVEL=warn',
    ];
    const first = await start([...settings, 'AUDIO_FILE_PACE=realtime']);
    const client = await classClient(first.base);
    streams.push(client.events);
    expect((await client.start({ course_name: 'Data structures' })).body.status).toBe('started');
    const startedAt = performance.now();
    await client.events.next((event) => event.event === 'line.appended', 60_000);
    const [listed] = (await getJson<{ items: Array<{ id: string }> }>(`${first.base}/api/classes`))
      .items;
    const id = listed!.id;
    const file = join(dataPaths(first.dataDir).classes, id, CLASS_FILES.audio);
    // Some seconds into the class (the first sentence heard), the backend dies.
    const exited = new Promise((resolve) => first.child.once('exit', resolve));
    first.child.kill('SIGKILL');
    await exited;
    const heardMs = performance.now() - startedAt;
    const lastBefore = Math.max(
      ...client.all('line.appended').map((event) => (event.data as Line).id),
    );

    const killed = await judgeAudio(file);
    expect(killed.errors).toBe('');
    expect(killed.streams).toBe(1);
    // All but the last few seconds (pages are written every second): at least the audio of
    // the time the class ran (a recording at real-time pace), at most what the recording holds.
    expect(killed.durationMs).toBeGreaterThan(heardMs - 3500);
    expect(killed.durationMs).toBeLessThan(lecture.durationMs);

    // Started again: the class goes on by itself (the recording plays again, fast).
    const second = await start([...settings, 'AUDIO_FILE_PACE=fast']);
    await waitFor(
      async () => {
        const status = await getJson<{ state: string; recognizer_state?: string }>(
          `${second.base}/api/monitor_status`,
        );
        return status.state === 'running' && status.recognizer_state === 'ended';
      },
      90_000,
      'the class to go on and hear the recording to its end',
    );
    await fetch(`${second.base}/api/stop_monitor?with_summary=false`, { method: 'POST' });

    const bytes = new Uint8Array(await readFile(file));
    // One logical stream, every page whole, to the end of the file.
    expect(oggResumePoint(bytes)).toMatchObject({ endOffset: bytes.length });
    const both = await judgeAudio(file);
    expect(both.errors).toBe('');
    expect(both.streams).toBe(1);
    expect(Math.abs(both.durationMs - (killed.durationMs + lecture.durationMs))).toBeLessThan(500);

    // The lines heard after the gap are placed in the second part.
    const detail = await getJson<{ lines: Line[] }>(`${second.base}/api/classes/${id}`);
    const after = detail.lines.filter((line) => line.id > lastBefore && line.audio_ms !== null);
    // (The recording's first sentence, heard again, is dropped as a repeat of the first line.)
    expect(after.length).toBeGreaterThanOrEqual(lecture.sentences.length - 1);
    const placed = after.map((line) => {
      const heard = new Set(words(line.text));
      const sentence = [...lecture.sentences].sort(
        (a, b) =>
          words(b.text).filter((word) => heard.has(word)).length -
          words(a.text).filter((word) => heard.has(word)).length,
      )[0]!;
      return Math.abs(line.audio_ms! - (killed.durationMs + sentence.startMs)) <= 500;
    });
    expect(placed).toEqual(after.map(() => true));
  }, 240_000);
});
