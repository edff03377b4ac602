// The `class-assistant-backend` bin as a user runs it: a real process, real port, real signals.
import type { ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseCli } from '../src/cli-options.ts';
import { spawnBin } from './support/bin-process.ts';
import { waitFor } from './support/harness.ts';
import { freePort } from './support/ports.ts';

const children: ChildProcess[] = [];
const folders: string[] = [];

afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
});

function run(args: string[], env: Record<string, string> = {}) {
  const started = spawnBin(args, env);
  children.push(started.child);
  return started;
}

describe('parseCli', () => {
  it('reads flags over CLASS_ASSISTANT_* variables and derives the data folder', () => {
    expect(
      parseCli(['--port', '18765', '--env-file', '/srv/app/backend/.env'], {
        CLASS_ASSISTANT_PORT: '1',
      }),
    ).toEqual({
      kind: 'run',
      options: {
        host: '127.0.0.1',
        port: 18765,
        envFile: '/srv/app/backend/.env',
        dataDir: '/srv/app/backend/data',
      },
    });
    expect(
      parseCli(['--', '--data-dir', '/d'], {
        CLASS_ASSISTANT_HOST: '::1',
        CLASS_ASSISTANT_ENV_FILE: '/e/.env',
      }),
    ).toEqual({
      kind: 'run',
      // No port given: the settings' API_PORT decides (8765 by default).
      options: {
        host: '::1',
        port: 8765,
        portFromSettings: true,
        envFile: '/e/.env',
        dataDir: '/d',
      },
    });
  });

  it('takes --env-file and --settings-file over CLASS_ASSISTANT_ENV_FILE (the packaged default)', () => {
    const packaged = { CLASS_ASSISTANT_ENV_FILE: '/opt/release/backend/.env' };
    for (const flag of ['--env-file', '--settings-file']) {
      expect(parseCli([flag, '/home/me/class.env'], packaged)).toMatchObject({
        options: { envFile: '/home/me/class.env', dataDir: '/home/me/data' },
      });
    }
    expect(parseCli([], packaged)).toMatchObject({
      options: { envFile: '/opt/release/backend/.env' },
    });
  });

  it('takes the UI folder from --ui-dir or CLASS_ASSISTANT_UI_DIR, as an absolute path', () => {
    const withFlag = parseCli(['--ui-dir', 'ui/dist', '--env-file', '/e/.env'], {});
    expect(withFlag).toMatchObject({
      kind: 'run',
      options: { uiDir: join(process.cwd(), 'ui/dist') },
    });
    expect(
      parseCli(['--env-file', '/e/.env'], { CLASS_ASSISTANT_UI_DIR: '/opt/ui' }),
    ).toMatchObject({ options: { uiDir: '/opt/ui' } });
  });

  it('refuses a non-loopback host, a bad port and unknown flags', () => {
    expect(() => parseCli(['--host', '0.0.0.0'], {})).toThrow(/not a loopback address/);
    expect(() => parseCli(['--port', '99999'], {})).toThrow(/1 to 65535/);
    expect(() => parseCli(['--verbose'], {})).toThrow(/--help/);
    expect(parseCli(['-h'], {})).toEqual({ kind: 'help' });
  });
});

describe('class-assistant-backend', () => {
  it("keeps what it compiled to start in Node's compile cache once it answers, for the next start", async () => {
    const folder = await mkdtemp(join(tmpdir(), 'class-assistant-compile-cache-'));
    folders.push(folder);
    const cache = join(folder, 'compile-cache');
    await writeFile(join(folder, '.env'), 'ASR_MODE=mock\n');
    const port = await freePort();
    const started = run(
      [
        '--port',
        String(port),
        '--env-file',
        join(folder, '.env'),
        '--data-dir',
        join(folder, 'data'),
      ],
      { NODE_COMPILE_CACHE: cache },
    );
    await waitFor(
      () =>
        fetch(`http://127.0.0.1:${port}/api/health`).then(
          (response) => response.ok,
          () => false,
        ),
      30_000,
      'the backend to answer',
    );
    // Flushed while running (a backend killed later still leaves it for the next start).
    const files = async (path: string): Promise<number> => {
      const entries = await readdir(path, { withFileTypes: true }).catch(() => []);
      let count = 0;
      for (const entry of entries) {
        count += entry.isDirectory() ? await files(join(path, entry.name)) : 1;
      }
      return count;
    };
    await waitFor(async () => (await files(cache)) > 50, 10_000, 'the compile cache');
    started.child.kill('SIGKILL');
    await started.exited;
    expect(await files(cache)).toBeGreaterThan(50);
  });

  it('prints help and the version', async () => {
    const help = run(['--help']);
    expect(await help.exited).toBe(0);
    expect(help.output().stdout).toContain('--settings-file');
    const version = run(['--version']);
    expect(await version.exited).toBe(0);
    expect(version.output().stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('refuses to listen on the network', async () => {
    const result = run(['--host', '0.0.0.0']);
    expect(await result.exited).toBe(2);
    expect(result.output().stderr).toContain('not a loopback address');
  });

  it('starts with no settings file, reports what is missing, and stops gracefully mid-class', async () => {
    const root = await mkdtemp(join(tmpdir(), 'backend-cli-'));
    folders.push(root);
    const port = await freePort();
    const backend = run(['--port', String(port), '--data-dir', join(root, 'data')], {
      CLASS_ASSISTANT_ENV_FILE: join(root, '.env'),
      ASR_MODE: 'mock',
      MOCK_INTERVAL_MS: '30',
    });
    const base = `http://127.0.0.1:${port}`;
    const health = await waitFor(
      async () => {
        try {
          return (await (await fetch(`${base}/api/health`)).json()) as Record<string, unknown>;
        } catch {
          return undefined;
        }
      },
      20_000,
      'a healthy backend',
    );
    expect(health).toMatchObject({
      status: 'healthy',
      asr: { mode: 'mock', available: true },
      llm: { configured: false, missing: ['LLM_API_KEY'] },
      not_configured: ['AI features (rescue, catch-up, notes): set LLM_API_KEY in the settings.'],
    });
    expect(await readFile(join(root, '.env'), 'utf8')).toContain(
      '# Class Assistant backend settings',
    );
    // It will hold API keys: only its owner may read it.
    if (process.platform !== 'win32') {
      expect((await stat(join(root, '.env'))).mode & 0o777).toBe(0o600);
    }
    expect((await fetch(`${base}/docs`)).status).toBe(200);

    await fetch(`${base}/api/start_monitor`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"course_name":"demo"}',
    });
    const transcript = join(root, 'data', 'class_transcript.txt');
    await waitFor(
      async () =>
        (await readFile(transcript, 'utf8')).split('\n').filter((line) => line.startsWith('['))
          .length >= 3,
      20_000,
      'lines',
    );
    backend.child.kill('SIGTERM');
    expect(await backend.exited).toBe(0);
    const log = await readFile(join(root, 'data', '_startup.log'), 'utf8');
    expect(log).toContain('not configured: AI features');
    expect(log).toContain('shutting down: stopping monitoring and flushing the transcript');
    expect(log).toContain('"msg":"stopped"');
    expect(backend.output().stdout).toContain(`ready: ${base}`);
    const lines = (await readFile(transcript, 'utf8'))
      .split('\n')
      .filter((line) => line.startsWith('['));
    expect(lines.length).toBeGreaterThanOrEqual(3);
  });

  it('serves the UI given by --ui-dir and stops gracefully on POST /api/shutdown with its token', async () => {
    const root = await mkdtemp(join(tmpdir(), 'backend-cli-'));
    folders.push(root);
    await mkdir(join(root, 'ui'));
    await writeFile(join(root, 'ui', 'index.html'), '<!doctype html><title>the bar</title>');
    await writeFile(join(root, '.env'), 'LOG_LEVEL=info\n');
    const port = await freePort();
    const backend = run(
      ['--port', String(port), '--settings-file', join(root, '.env'), '--ui-dir', join(root, 'ui')],
      // What the desktop launcher tells its backend.
      { CLASS_ASSISTANT_APP_VERSION: '1.2.0', CLASS_ASSISTANT_LAUNCHER_PID: String(process.pid) },
    );
    const base = `http://127.0.0.1:${port}`;
    const page = await waitFor(
      async () => {
        try {
          return await (await fetch(`${base}/`)).text();
        } catch {
          return undefined;
        }
      },
      20_000,
      'the UI',
    );
    expect(page).toContain('<title>the bar</title>');
    // Who it is: its own process, the launcher that owns it, the app it ships in.
    expect(await (await fetch(`${base}/api/health`)).json()).toMatchObject({
      pid: backend.child.pid,
      launcher_pid: process.pid,
      app_version: '1.2.0',
    });
    expect(
      ((await (await fetch(`${base}/docs/json`)).json()) as { info: { version: string } }).info
        .version,
    ).toBe('1.2.0');

    // Only whoever can read the token file may stop it: another local user cannot.
    const tokenFile = join(root, 'data', '_shutdown.token');
    const token = await readFile(tokenFile, 'utf8');
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    if (process.platform !== 'win32') expect((await stat(tokenFile)).mode & 0o777).toBe(0o600);
    for (const headers of [{}, { 'x-shutdown-token': 'guess' }]) {
      const refused = await fetch(`${base}/api/shutdown`, { method: 'POST', headers });
      expect(refused.status).toBe(403);
      expect(await refused.json()).toMatchObject({ code: 'SHUTDOWN_FORBIDDEN' });
    }
    expect((await fetch(`${base}/api/health`)).ok).toBe(true);
    const response = await fetch(`${base}/api/shutdown`, {
      method: 'POST',
      headers: { 'x-shutdown-token': token },
    });
    expect(response.status).toBe(202);
    expect(await backend.exited).toBe(0);
    const log = await readFile(join(root, 'data', '_startup.log'), 'utf8');
    expect(log).toContain('shutdown requested over HTTP');
    expect(log).toContain('"msg":"stopped"');
    expect(log).toContain('"appVersion":"1.2.0"');
    // The token dies with the process.
    await expect(stat(tokenFile)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('explains a port that is already taken', async () => {
    const root = await mkdtemp(join(tmpdir(), 'backend-cli-'));
    folders.push(root);
    await writeFile(join(root, '.env'), 'LOG_LEVEL=warn\n');
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as { port: number };
    try {
      const result = run(['--port', String(port), '--env-file', join(root, '.env')]);
      expect(await result.exited).toBe(1);
      expect(result.output().stderr).toContain(`Port ${port} is already in use`);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });
});
