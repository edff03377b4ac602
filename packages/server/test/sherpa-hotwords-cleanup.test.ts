// A backend killed (SIGKILL) in the middle of a class on a streaming transducer with hot words
// cannot remove the class's hot-words folder itself: started again on the same data, it removes it.
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type BackendProcess, startBackendProcess } from './support/backend-process.ts';
import { type ClassClient, classClient } from './support/class-client.ts';
import { waitFor } from './support/harness.ts';
import { speechRecording } from './support/speech.ts';

const STREAMING = join(import.meta.dirname, 'fixtures', 'sherpa', 'streaming-zipformer');

const processes: BackendProcess[] = [];
const clients: ClassClient[] = [];
let root: string | undefined;
afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  for (const backend of processes.splice(0)) await backend.stop();
  if (root) await rm(root, { recursive: true, force: true });
  root = undefined;
});

/** Every hot-words file under a folder. */
async function hotwordsFiles(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name === 'hotwords.txt')
    .map((entry) => join(entry.parentPath, entry.name));
}

describe('a backend killed mid-class with hot words', () => {
  it('leaves no hot-words folder behind once it is started again', async () => {
    root = await mkdtemp(join(tmpdir(), 'class-assistant-hotwords-kill-'));
    // The backend's own temporary folder, so that nothing it writes there goes unseen.
    const temporary = join(root, 'tmp');
    await mkdir(temporary);
    await mkdir(join(root, 'data', 'cite'), { recursive: true });
    await writeFile(join(root, 'data', 'cite', 'lists.txt'), '--- 第 1 页 ---\n链表\n');
    const lecture = await speechRecording([
      { text: 'good morning everyone', pauseAfterMs: 4000 },
      { text: 'today we will talk about binary search trees', pauseAfterMs: 4000 },
    ]);
    const settings = [
      'ASR_MODE=local',
      'LOCAL_ASR_ENGINE=sherpa',
      `SHERPA_MODEL_PATH=${STREAMING}`,
      `AUDIO_INPUT=file:${lecture.path}`,
      'AUDIO_FILE_PACE=realtime',
    ];
    const environment = { ...process.env, TMPDIR: temporary };
    const first = await startBackendProcess(settings, environment, { root });
    processes.push(first);
    const client = await classClient(first.base);
    clients.push(client);
    const started = await client.start({ course_name: 'Lists', cite_filename: 'lists.txt' });
    expect(started.body.status).toBe('started');
    const written = await waitFor(
      async () => {
        const files = await hotwordsFiles(root!);
        return files.length > 0 ? files : undefined;
      },
      30_000,
      'the hot-words file of the class',
    );

    const exited = new Promise((resolve) => first.child.once('exit', resolve));
    first.child.kill('SIGKILL');
    await exited;
    expect(await hotwordsFiles(root)).toEqual(written);

    // Started again: the killed process's folder is gone (the class it resumes has its own).
    processes.push(await startBackendProcess(settings, environment, { root }));
    const left = await hotwordsFiles(root);
    expect(left.filter((file) => written.includes(file))).toEqual([]);
  });
});
