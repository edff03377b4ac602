// `class-assistant-backend import <file>` as a student runs it: the bin as a child process on a
// data folder of its own, espeak-ng speech recognised by PocketSphinx into the library.
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startBackendProcess } from './support/backend-process.ts';
import { spawnBin } from './support/bin-process.ts';
import { waitFor } from './support/harness.ts';
import { type SpokenSentence, speechRecording, words } from './support/speech.ts';

const LECTURE: readonly SpokenSentence[] = [
  { text: 'good morning everyone', pauseAfterMs: 2000 },
  { text: 'today we will talk about binary search trees', pauseAfterMs: 2000 },
  { text: 'please open your books to page ten', pauseAfterMs: 2000 },
  { text: 'a tree has a root and every node has children', pauseAfterMs: 2000 },
  { text: 'the left child is smaller than its parent', pauseAfterMs: 2000 },
  { text: 'the right child is larger than its parent', pauseAfterMs: 2000 },
];

const LECTURE_PART_TWO: readonly SpokenSentence[] = [
  { text: 'searching takes time in proportion to the height', pauseAfterMs: 2000 },
  { text: 'a balanced tree keeps the height small', pauseAfterMs: 2000 },
  { text: 'next week we will look at red black trees', pauseAfterMs: 2000 },
  { text: 'rotations move a node up or down', pauseAfterMs: 2000 },
  { text: 'insertion may break the balance of the tree', pauseAfterMs: 2000 },
  { text: 'deletion is the hardest operation to get right', pauseAfterMs: 2000 },
  { text: 'draw the tree on paper before you write code', pauseAfterMs: 2000 },
];

const POCKETSPHINX = ['ASR_MODE=local', 'LOCAL_ASR_ENGINE=pocketsphinx'];
/** English messages whatever the machine's locale. */
const ENGLISH = { LANG: 'C.UTF-8', LC_ALL: '', LC_MESSAGES: '' };

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function appFolder(): Promise<{ root: string; dataDir: string; envFile: string }> {
  const root = await mkdtemp(join(tmpdir(), 'class-assistant-import-cli-'));
  cleanups.push(() => rm(root, { recursive: true, force: true }));
  const envFile = join(root, '.env');
  await writeFile(envFile, `${POCKETSPHINX.join('\n')}\n`);
  return { root, dataDir: join(root, 'data'), envFile };
}

describe('class-assistant-backend import', { timeout: 180_000 }, () => {
  it('imports a recording into the library, printing progress; notes skipped without an LLM', async () => {
    const lecture = await speechRecording(LECTURE, { name: 'cli' });
    const { dataDir, envFile } = await appFolder();
    const run = spawnBin(
      [
        'import',
        lecture.path,
        '--course',
        'Data structures',
        '--data-dir',
        dataDir,
        '--settings-file',
        envFile,
      ],
      ENGLISH,
    );
    const code = await run.exited;
    const { stdout, stderr } = run.output();
    expect({ code, stderr }).toMatchObject({ code: 0 });
    // Plain progress lines (stdout is a pipe): percent, minutes done of the total.
    const total = (lecture.durationMs / 60_000).toFixed(1);
    expect(stdout).toMatch(
      new RegExp(`^100%  ${total.replace('.', '\\.')}/${total.replace('.', '\\.')} min`, 'm'),
    );
    expect(stdout).toMatch(/Imported "Data structures": \d+ lines, class \S+\./);
    // A first import starts at the beginning: nothing is said about going on.
    expect(stdout).not.toContain('Going on from');
    expect(stderr).toContain('No LLM is configured, so no notes were written');

    // The class is in the library folder with what was said, ended.
    const [id] = await readdir(join(dataDir, 'classes'));
    const meta = JSON.parse(await readFile(join(dataDir, 'classes', id!, 'class.json'), 'utf8'));
    expect(meta).toMatchObject({ course_name: 'Data structures' });
    expect(meta.ended_at).not.toBeNull();
    const transcript = await readFile(join(dataDir, 'classes', id!, 'transcript.txt'), 'utf8');
    const heard = new Set(words(transcript));
    const said = words(LECTURE.map((sentence) => sentence.text).join(' '));
    expect(said.filter((word) => heard.has(word)).length).toBeGreaterThan(said.length / 3);
    // The student's own file is used in place and left alone.
    expect((await readFile(lecture.path)).length).toBeGreaterThan(0);
  });

  it('cancels on Ctrl-C keeping the lines, and the same command goes on from there', async () => {
    const lecture = await speechRecording([...LECTURE, ...LECTURE_PART_TWO], { name: 'cli-long' });
    const { dataDir, envFile } = await appFolder();
    const args = ['import', lecture.path, '--data-dir', dataDir, '--settings-file', envFile];
    const first = spawnBin(args, ENGLISH);
    // Cancelled once its first progress line is out.
    await waitFor(() => /^\d+%/m.test(first.output().stdout), 120_000, 'a progress line');
    first.child.kill('SIGINT');
    expect(await first.exited).toBe(130);
    expect(first.output().stderr).toMatch(
      /Cancelled: the \d+ lines up to \d+:\d\d are kept in the class\. Run the same command again to go on from there\./,
    );

    const second = spawnBin(args, ENGLISH);
    expect(await second.exited).toBe(0);
    expect(second.output().stdout).toMatch(/^Going on from \d+:\d\d\./m);
    expect(second.output().stdout).toMatch(/Imported ".+": \d+ lines/);
    // One class: the import went on with it.
    expect(await readdir(join(dataDir, 'classes'))).toHaveLength(1);
  });

  it('refuses while a backend runs on the same data folder, and names what is missing', async () => {
    const { root, dataDir, envFile } = await appFolder();
    const backend = await startBackendProcess(POCKETSPHINX, process.env, { root });
    cleanups.push(() => backend.stop());
    const lecture = await speechRecording(LECTURE, { name: 'cli' });
    const refused = spawnBin(
      ['import', lecture.path, '--data-dir', dataDir, '--settings-file', envFile],
      ENGLISH,
    );
    expect(await refused.exited).toBe(1);
    expect(refused.output().stderr).toContain(
      `A backend is running on this data folder (${backend.base}): import the recording in the app`,
    );
    await backend.stop();

    const missing = spawnBin(
      ['import', join(root, 'nothing.mp3'), '--data-dir', dataDir, '--settings-file', envFile],
      ENGLISH,
    );
    expect(await missing.exited).toBe(1);
    expect(missing.output().stderr).toContain(
      `There is no recording file ${join(root, 'nothing.mp3')}.`,
    );
  });
});
