// `class-assistant` (what `pnpm start` runs) as a user runs it: a real launcher process starting
// the real backend on a real port.
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { findPortOwners } from '../src/launcher/process-discovery.ts';
import { nodeSystem } from '../src/launcher/system.ts';
import {
  freePort,
  killAll,
  launcherEnvironment,
  listening,
  type Running,
  start,
  stranger,
  waitFor,
} from './support/processes.ts';

const BIN = fileURLToPath(new URL('../bin/class-assistant.js', import.meta.url));
const folders: string[] = [];

afterEach(async () => {
  killAll();
  for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
});

async function folder(): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'desktop-launcher-'));
  folders.push(root);
  return root;
}

function launch(
  root: string,
  port: number,
  env: NodeJS.ProcessEnv = launcherEnvironment(),
  extra: string[] = [],
) {
  return start(
    process.execPath,
    [
      BIN,
      '--port',
      String(port),
      '--settings-file',
      join(root, '.env'),
      '--data-dir',
      join(root, 'data'),
      ...extra,
    ],
    { env },
  );
}

/** Waits until `launcher` runs the app (it printed its address). */
async function running(launcher: Running): Promise<void> {
  await waitFor(() => launcher.output().includes('Press Ctrl-C'), 'the launcher', 60_000);
}

/** Stops `launcher` as Ctrl-C does and expects a clean exit. */
async function stopWithCtrlC(launcher: Running): Promise<void> {
  launcher.child.kill('SIGINT');
  expect((await launcher.exited).code).toBe(0);
}

interface Health {
  pid: number;
  launcher_pid: number | null;
  monitor: { state: string };
}

async function health(port: number): Promise<Health> {
  return (await (await fetch(`http://127.0.0.1:${port}/api/health`)).json()) as Health;
}

/** Starts the demo class on `port`. */
async function startClass(port: number): Promise<void> {
  const answer = await fetch(`http://127.0.0.1:${port}/api/start_monitor`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ course_name: 'Physics' }),
  });
  expect(answer.status).toBe(200);
}

describe('class-assistant (pnpm start)', () => {
  it('without a display: starts the backend in demo mode, prints the address, stops on Ctrl-C', async () => {
    const root = await folder();
    const port = await freePort();
    const launcher = launch(root, port);
    await waitFor(() => launcher.output().includes('Press Ctrl-C to stop.'), 'the address', 60_000);
    expect(launcher.output()).toContain(
      `Class Assistant is running: open http://127.0.0.1:${port}/ in Chromium, Chrome or Edge (no display to open a window on).`,
    );
    const health = (await (await fetch(`http://127.0.0.1:${port}/api/health`)).json()) as {
      asr: { mode: string; available: boolean };
      settings_file: string;
    };
    // A fresh settings file runs the scripted demo class: no microphone, model or key needed.
    expect(health.asr).toMatchObject({ mode: 'mock', available: true });
    expect(health.settings_file).toBe(join(root, '.env'));
    expect(await readFile(join(root, '.env'), 'utf8')).toMatch(/^ASR_MODE=mock$/m);
    const page = await (await fetch(`http://127.0.0.1:${port}/`)).text();
    expect(page).toContain('<div id="app">');

    launcher.child.kill('SIGINT');
    expect(await launcher.exited).toEqual({ code: 0, signal: null });
    expect(await listening(port)).toBe(false);
    const backendLog = await readFile(join(root, 'data', '_startup.log'), 'utf8');
    expect(backendLog).toContain('shutdown requested over HTTP');
    expect(backendLog).toContain('"msg":"stopped"');
    const launcherLog = await readFile(join(root, 'data', '_launcher.log'), 'utf8');
    expect(launcherLog).toContain('SIGINT received: stopping the backend');
    expect(launcherLog).toMatch(/stopped\n$/);
  });

  it('first stops a stale process that holds the port', async () => {
    const root = await folder();
    const port = await freePort();
    const stale = stranger(port);
    await waitFor(() => stale.output().includes('listening'), 'the stale process');
    const launcher = launch(root, port);
    await running(launcher);
    expect(launcher.output()).toContain(
      `cleanup: stopped process ${stale.child.pid}, which held port ${port}`,
    );
    expect((await stale.exited).signal).toBe('SIGTERM');
    expect(await (await fetch(`http://127.0.0.1:${port}/api/health`)).json()).toMatchObject({
      status: 'healthy',
    });
    launcher.child.kill('SIGTERM');
    expect((await launcher.exited).code).toBe(0);
  });

  it('opens the app window and stops the backend when the window closes', async () => {
    const root = await folder();
    const port = await freePort();
    // A stand-in browser: records its command line, shows "a window" for a moment, closes.
    const browser = join(root, 'browser.sh');
    await writeFile(
      browser,
      `#!/bin/sh\necho "$@" > "${join(root, 'browser-args.txt')}"\nsleep 2\n`,
    );
    await chmod(browser, 0o755);
    const launcher = launch(
      root,
      port,
      launcherEnvironment({ DISPLAY: ':77', CLASS_ASSISTANT_BROWSER: browser }),
    );
    const { code } = await launcher.exited;
    expect(code).toBe(0);
    const output = launcher.output();
    expect(output).toContain(`opened the app window (${browser})`);
    expect(output).toContain('the window was closed: stopping the backend');
    const args = await readFile(join(root, 'browser-args.txt'), 'utf8');
    expect(args).toContain(`--app=http://127.0.0.1:${port}/`);
    expect(args).toContain(`--user-data-dir=${join(root, 'data', 'browser-profile')}`);
    expect(args).toContain('--window-size=320,116');
    expect(await listening(port)).toBe(false);
  });

  it('starts the backend again when it dies while the window is open', async () => {
    const root = await folder();
    const port = await freePort();
    const launcher = launch(root, port);
    await running(launcher);
    const [backendPid] = await findPortOwners(nodeSystem(), port);
    expect(backendPid).toBeGreaterThan(0);
    process.kill(backendPid!, 'SIGKILL');
    await waitFor(() => launcher.output().includes('backend ready again'), 'the restart', 60_000);
    expect(launcher.output()).toContain(
      'The backend stopped unexpectedly (SIGKILL): starting it again.',
    );
    expect(await (await fetch(`http://127.0.0.1:${port}/api/health`)).json()).toMatchObject({
      status: 'healthy',
    });
    await stopWithCtrlC(launcher);
  });

  it('a second launch with the same data folder points to the running app and leaves its class running', async () => {
    const root = await folder();
    const port = await freePort();
    const first = launch(root, port);
    await running(first);
    await startClass(port);
    const before = await health(port);
    expect(before).toMatchObject({ launcher_pid: first.child.pid, monitor: { state: 'running' } });

    // Even asked for another port: the data folder is the running app's.
    const second = launch(root, await freePort());
    expect(await second.exited).toEqual({ code: 0, signal: null });
    expect(second.output()).toContain(
      `Class Assistant is already running with this data folder (launcher process ${first.child.pid}).`,
    );
    expect(second.output()).toContain(`Open http://127.0.0.1:${port}/ in Chromium`);
    expect(await health(port)).toMatchObject({
      pid: before.pid,
      launcher_pid: first.child.pid,
      monitor: { state: 'running' },
    });
    // The running launcher's log is its own still.
    expect(await readFile(join(root, 'data', '_launcher.log'), 'utf8')).toContain(
      'backend ready at',
    );

    await stopWithCtrlC(first);
    // Its lock goes with it: the next launch starts normally.
    await expect(readFile(join(root, 'data', '_launcher.lock'), 'utf8')).rejects.toThrow(/ENOENT/);
  });

  it('reopened while it is still closing: waits for the old app to finish, then starts afresh', async () => {
    const root = await folder();
    const port = await freePort();
    const first = launch(root, port);
    await running(first);
    await startClass(port);
    first.child.kill('SIGINT');
    await waitFor(
      () => first.output().includes('stopping the backend'),
      'the first launcher stopping',
    );
    const second = launch(root, port, launcherEnvironment(), ['--no-window']);
    await running(second);
    expect((await first.exited).code).toBe(0);
    expect(second.output()).not.toContain('already running');
    expect(await health(port)).toMatchObject({ launcher_pid: second.child.pid });
    // The first one stopped its backend gracefully (its class saved), not cut off.
    expect(first.output()).toMatch(/stopped\n$/);
    expect(first.output()).not.toContain('was killed');
    await stopWithCtrlC(second);
  });

  it('another data folder on the same port: says the port belongs to a running Class Assistant and exits', async () => {
    const port = await freePort();
    const firstRoot = await folder();
    const first = launch(firstRoot, port);
    await running(first);
    const before = await health(port);

    const second = launch(await folder(), port, launcherEnvironment(), ['--no-window']);
    expect((await second.exited).code).toBe(1);
    expect(second.output()).toContain(
      `Port ${port} is used by another running Class Assistant (launcher process ${first.child.pid}, data folder ${join(firstRoot, 'data')}), which was left running.`,
    );
    expect((await health(port)).pid).toBe(before.pid);
    await stopWithCtrlC(first);
  });

  it('after a launcher was killed, the next one takes its lock over and stops its orphaned backend', async () => {
    const root = await folder();
    const port = await freePort();
    const first = launch(root, port);
    await running(first);
    const orphan = (await health(port)).pid;
    first.child.kill('SIGKILL');
    await first.exited;
    // The backend runs on, ownerless.
    expect((await health(port)).pid).toBe(orphan);

    const second = launch(root, port, launcherEnvironment(), ['--no-window']);
    await running(second);
    expect(second.output()).toContain(
      `the previous launcher (process ${first.child.pid}) is gone; its backend (process ${orphan}) is stale`,
    );
    expect(second.output()).toContain(
      `cleanup: asked the stale Class Assistant backend on port ${port} (process ${orphan}) to stop`,
    );
    expect(nodeSystem().isAlive(orphan)).toBe(false);
    expect(await health(port)).toMatchObject({ launcher_pid: second.child.pid });
    await stopWithCtrlC(second);
  });

  it('says why when the backend cannot start', async () => {
    const root = await folder();
    const port = await freePort();
    // The data folder is a file: the backend cannot create its folders.
    await writeFile(join(root, 'data'), 'not a folder');
    const launcher = start(
      process.execPath,
      [
        BIN,
        '--port',
        String(port),
        '--settings-file',
        join(root, '.env'),
        '--data-dir',
        join(root, 'data', 'inner'),
      ],
      { env: launcherEnvironment() },
    );
    const { code } = await launcher.exited;
    expect(code).toBe(1);
    expect(launcher.output()).toContain(
      `class-assistant: could not run: ENOTDIR: not a directory, mkdir '${join(root, 'data', 'inner')}'`,
    );
    expect(launcher.output()).not.toMatch(/\n\s+at /);
  });
});
