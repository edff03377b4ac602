// Stale-backend cleanup on this machine (Linux, /proc) with real stale processes on real ports.
import { copyFile, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupStaleBackends } from '../src/launcher/cleanup.ts';
import { serverPackage } from '../src/launcher/development.ts';
import { findPortOwners, findProcessesByName } from '../src/launcher/process-discovery.ts';
import { nodeSystem } from '../src/launcher/system.ts';
import { freePort, killAll, listening, start, stranger, waitFor } from './support/processes.ts';

const folders: string[] = [];
afterEach(async () => {
  killAll();
  for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
});

describe.runIf(process.platform === 'linux')('cleanupStaleBackends (Linux)', () => {
  it('finds the process on the port through /proc and stops it with SIGTERM', async () => {
    const port = await freePort();
    const stale = stranger(port);
    await waitFor(() => stale.output().includes('listening'), 'the stale process');
    expect(await findPortOwners(nodeSystem(), port)).toEqual([stale.child.pid]);

    const report = await cleanupStaleBackends({ system: nodeSystem(), port, byName: false });
    expect(report).toMatchObject({
      shutdownOverHttp: false,
      stopped: [{ pid: stale.child.pid, reason: 'port', forced: false }],
      failed: [],
      portFree: true,
    });
    expect(await stale.exited).toEqual({ code: null, signal: 'SIGTERM' });
    expect(await listening(port)).toBe(false);
  });

  it('forces a process that ignores SIGTERM', async () => {
    const port = await freePort();
    const stale = stranger(port, { ignoreSigterm: true });
    await waitFor(() => stale.output().includes('listening'), 'the stale process');
    const report = await cleanupStaleBackends({
      system: nodeSystem(),
      port,
      byName: false,
      graceMs: 500,
    });
    expect(report.stopped).toEqual([{ pid: stale.child.pid, reason: 'port', forced: true }]);
    expect((await stale.exited).signal).toBe('SIGKILL');
    expect(report.portFree).toBe(true);
  });

  it('asks our own stale backend to stop over HTTP with its run token, so it stops gracefully', async () => {
    const port = await freePort();
    const root = await mkdtemp(join(tmpdir(), 'desktop-cleanup-'));
    folders.push(root);
    const backend = await startBackend(root, port);
    const report = await cleanupStaleBackends({ system: nodeSystem(), port, byName: false });
    expect(report.shutdownOverHttp).toBe(true);
    expect(report.stopped).toEqual([]);
    expect(report.messages).toEqual([
      `asked the stale Class Assistant backend on port ${port} (process ${backend.child.pid}) to stop`,
    ]);
    expect(await backend.exited).toEqual({ code: 0, signal: null });
    const log = await readFile(join(root, 'data', '_startup.log'), 'utf8');
    expect(log).toContain('shutdown requested over HTTP');
    expect(log).toContain('"msg":"stopped"');
  });

  it('leaves a backend whose launcher still runs alone: a second launch never ends a class', async () => {
    const port = await freePort();
    const root = await mkdtemp(join(tmpdir(), 'desktop-cleanup-'));
    folders.push(root);
    // Its launcher: any live process of ours that is not the one cleaning up.
    const launcher = start(process.execPath, ['-e', 'setInterval(() => {}, 1000)']);
    const backend = await startBackend(root, port, launcher.child.pid);
    const report = await cleanupStaleBackends({ system: nodeSystem(), port });
    expect(report.liveInstance).toEqual({
      port,
      pid: backend.child.pid,
      launcherPid: launcher.child.pid,
      dataDir: join(root, 'data'),
    });
    expect(report.stopped).toEqual([]);
    expect(await (await fetch(`http://127.0.0.1:${port}/api/health`)).json()).toMatchObject({
      status: 'healthy',
      pid: backend.child.pid,
    });

    // Once its launcher is gone, the same backend is stale.
    launcher.child.kill('SIGKILL');
    await launcher.exited;
    const later = await cleanupStaleBackends({ system: nodeSystem(), port, byName: false });
    expect(later.liveInstance).toBeUndefined();
    expect(later.shutdownOverHttp).toBe(true);
    expect(await backend.exited).toEqual({ code: 0, signal: null });
  });

  it('a backend with an API token: left running without the token (it cannot be looked into), stopped over HTTP as stale with it', async () => {
    const port = await freePort();
    const root = await mkdtemp(join(tmpdir(), 'desktop-cleanup-'));
    folders.push(root);
    const apiToken = 'cleanup-test-token-0123456789';
    const backend = await startBackend(root, port, undefined, { API_TOKEN: apiToken });
    const blind = await cleanupStaleBackends({ system: nodeSystem(), port, byName: false });
    expect(blind.liveInstance).toEqual({
      port,
      pid: backend.child.pid,
      launcherPid: null,
      dataDir: undefined,
      locked: true,
    });
    expect(blind.stopped).toEqual([]);
    expect(blind.messages[0]).toContain('needs an API_TOKEN');
    expect(backend.child.exitCode).toBeNull();

    const knowing = await cleanupStaleBackends({
      system: nodeSystem(),
      port,
      byName: false,
      apiToken,
    });
    expect(knowing.liveInstance).toBeUndefined();
    expect(knowing.shutdownOverHttp).toBe(true);
    expect(await backend.exited).toEqual({ code: 0, signal: null });
  });

  it("stops this installation's orphaned backend by name and leaves other programs of that name alone", async () => {
    const root = await mkdtemp(join(tmpdir(), 'desktop-cleanup-'));
    folders.push(root);
    // Programs named like the packaged backend (links to this Node, run under that name): one
    // of this installation, whose launcher died, and one of another installation.
    await mkdir(join(root, 'ours'));
    await mkdir(join(root, 'theirs'));
    const ours = join(root, 'ours', 'class-assistant-backend');
    const theirs = join(root, 'theirs', 'class-assistant-backend');
    await copyFile(process.execPath, ours);
    await copyFile(process.execPath, theirs);
    const idle = ['-e', 'setInterval(() => {}, 1000); console.log("up")'];
    const orphan = start(ours, idle);
    const starting = start(ours, idle);
    const foreign = start(theirs, idle);
    for (const running of [orphan, starting, foreign]) {
      await waitFor(() => running.output().includes('up'), 'the named process');
    }
    const found = await findProcessesByName(nodeSystem(), 'class-assistant-backend');
    expect(found).toContainEqual({
      pid: orphan.child.pid,
      name: 'class-assistant-backend',
      path: ours,
    });

    const report = await cleanupStaleBackends({
      system: nodeSystem(),
      port: await freePort(),
      backendExecutable: ours,
      orphans: [orphan.child.pid!],
    });
    expect(report.stopped).toEqual([{ pid: orphan.child.pid, reason: 'name', forced: false }]);
    expect((await orphan.exited).signal).toBe('SIGTERM');
    expect(report.leftAlone).toEqual(
      expect.arrayContaining([
        { pid: starting.child.pid, why: 'not listening' },
        { pid: foreign.child.pid, why: 'another installation' },
      ]),
    );
    expect(nodeSystem().isAlive(starting.child.pid!)).toBe(true);
    expect(nodeSystem().isAlive(foreign.child.pid!)).toBe(true);
  });
});

/** The real backend on `port` with its files in `root`, owned by `launcherPid` when given. */
async function startBackend(
  root: string,
  port: number,
  launcherPid?: number,
  extra: Record<string, string> = {},
) {
  const server = await serverPackage();
  const { CLASS_ASSISTANT_LAUNCHER_PID: _inherited, API_TOKEN: _token, ...env } = process.env;
  const backend = start(
    process.execPath,
    [server.bin, '--port', String(port), '--settings-file', join(root, '.env')],
    {
      env: {
        ...env,
        ...(launcherPid ? { CLASS_ASSISTANT_LAUNCHER_PID: String(launcherPid) } : {}),
        ...extra,
      },
    },
  );
  await waitFor(() => listening(port), 'the backend', 60_000);
  return backend;
}
