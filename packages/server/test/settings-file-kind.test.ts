// The settings path is only ever opened as a regular file. A named pipe (FIFO) there used to
// wedge the backend for good (its read waits for a writer that never comes), a folder made every
// settings request answer 500. Now the backend starts and keeps serving, /api/health names the
// problem, and /api/settings answers 409 SETTINGS_FILE_UNUSABLE saying what to do. Real
// process, real `mkfifo`, real loopback HTTP.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type BackendProcess, startBackendProcess } from './support/backend-process.ts';
import { BIN } from './support/bin-process.ts';
import { waitFor } from './support/harness.ts';
import { freePort } from './support/ports.ts';

const children: ChildProcess[] = [];
const folders: string[] = [];
let backend: BackendProcess | undefined;

afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  await backend?.stop();
  backend = undefined;
  for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
});

/** A request that must be answered: a hang fails the test instead of holding it. */
async function get(url: string, init: RequestInit = {}) {
  const response = await fetch(url, {
    ...init,
    headers: { 'accept-language': 'en', ...init.headers },
    signal: AbortSignal.timeout(15_000),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

function mkfifo(path: string): void {
  const made = spawnSync('mkfifo', [path], { encoding: 'utf8' });
  if (made.status !== 0) throw new Error(`mkfifo ${path} failed: ${made.stderr}`);
}

/** The settings routes and /api/health with the settings path unusable (`kind` there). */
async function expectSettingsProblem(base: string, kind: string, words: string) {
  // A change on disk is noticed within a second (a watch on the folder, a check every 250 ms).
  const health = await waitFor(
    async () => {
      const answer = await get(`${base}/api/health`);
      const problem = answer.body.settings_file_problem as { kind?: string } | null;
      return problem?.kind === kind ? answer : undefined;
    },
    10_000,
    `/api/health to name the ${kind}`,
  );
  expect(health.status).toBe(200);
  expect(health.body.settings_file_problem).toMatchObject({
    kind,
    message: expect.stringContaining(words),
  });
  expect(health.body.not_configured).toContainEqual(expect.stringContaining(`Settings: `));
  const read = await get(`${base}/api/settings`);
  expect(read).toMatchObject({
    status: 409,
    body: {
      code: 'SETTINGS_FILE_UNUSABLE',
      field: 'settings_file',
      message: expect.stringContaining(words),
    },
  });
  expect(String(read.body.message)).toContain('Remove or move it away');
  const saved = await get(`${base}/api/settings`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ fields: { LLM_MODEL: 'class-model' } }),
  });
  expect(saved).toMatchObject({ status: 409, body: { code: 'SETTINGS_FILE_UNUSABLE' } });
  // In Chinese too, the student's default language.
  const chinese = await fetch(`${base}/api/settings`, { signal: AbortSignal.timeout(15_000) });
  expect(((await chinese.json()) as { message: string }).message).toContain('不是普通文件');
}

describe('the settings path holds something other than a regular file', () => {
  it('a named pipe at start: the backend starts, says so, and saves once it is gone', async () => {
    const root = await mkdtemp(join(tmpdir(), 'class-assistant-fifo-'));
    folders.push(root);
    const settingsFile = join(root, '.env');
    mkfifo(settingsFile);
    const port = await freePort();
    const child = spawn(
      process.execPath,
      [
        BIN,
        '--port',
        String(port),
        '--settings-file',
        settingsFile,
        '--data-dir',
        join(root, 'data'),
      ],
      { stdio: 'ignore' },
    );
    children.push(child);
    const base = `http://127.0.0.1:${port}`;
    // Before: it never answered (the read of the pipe waited for a writer).
    await waitFor(
      async () => (await fetch(`${base}/api/health`).catch(() => undefined))?.ok,
      30_000,
      'the backend to answer',
    );
    await expectSettingsProblem(base, 'fifo', 'is a named pipe (FIFO), not a regular file');
    // The pipe was never opened: nothing waits on it, and it is still a pipe.
    expect((await stat(settingsFile)).isFIFO()).toBe(true);
    // Removed: the next save makes the file.
    await rm(settingsFile);
    const saved = await get(`${base}/api/settings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ fields: { LLM_MODEL: 'class-model' } }),
    });
    expect(saved.status).toBe(200);
    expect(await readFile(settingsFile, 'utf8')).toContain('LLM_MODEL=class-model');
    expect((await get(`${base}/api/health`)).body.settings_file_problem).toBeNull();
  });

  it('a folder or a named pipe put there while it runs: it keeps serving and says so', async () => {
    backend = await startBackendProcess(['ASR_MODE=mock', 'LLM_MODEL=class-model']);
    const { base, root } = backend;
    const settingsFile = join(root, '.env');
    await rm(settingsFile);
    await mkdir(settingsFile);
    // Before: 500 INTERNAL_ERROR (EISDIR) for reading and saving.
    await expectSettingsProblem(base, 'directory', 'is a folder, not a regular file');
    await rm(settingsFile, { recursive: true });
    mkfifo(settingsFile);
    // Before: the first read of the settings (any request) wedged the backend for good.
    await expectSettingsProblem(base, 'fifo', 'is a named pipe (FIFO)');
    // The settings read last stay in use meanwhile.
    const health = await get(`${base}/api/health`);
    expect(health.body).toMatchObject({ status: 'healthy', llm: { model: 'class-model' } });
  });
});
