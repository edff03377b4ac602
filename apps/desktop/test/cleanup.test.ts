// Stale-backend cleanup on this machine (Linux, /proc) with real stale processes on real ports.
import { mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  cleanupStaleBackends,
  findPortOwners,
  findProcessesByName,
} from '../src/launcher/cleanup.ts';
import { serverPackage } from '../src/launcher/development.ts';
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

  it('asks our own backend to shut down over HTTP, so it stops gracefully', async () => {
    const port = await freePort();
    const root = await mkdtemp(join(tmpdir(), 'desktop-cleanup-'));
    folders.push(root);
    const server = await serverPackage();
    const backend = start(process.execPath, [
      server.bin,
      '--port',
      String(port),
      '--settings-file',
      join(root, '.env'),
    ]);
    await waitFor(() => listening(port), 'the backend');
    const report = await cleanupStaleBackends({ system: nodeSystem(), port, byName: false });
    expect(report.shutdownOverHttp).toBe(true);
    expect(report.stopped).toEqual([]);
    expect(report.messages).toEqual([`asked the Class Assistant backend on port ${port} to stop`]);
    expect(await backend.exited).toEqual({ code: 0, signal: null });
    const log = await readFile(join(root, 'data', '_startup.log'), 'utf8');
    expect(log).toContain('shutdown requested over HTTP');
    expect(log).toContain('"msg":"stopped"');
  });

  it('stops a process named class-assistant-backend that holds no port', async () => {
    const root = await mkdtemp(join(tmpdir(), 'desktop-cleanup-'));
    folders.push(root);
    // A program named like the packaged backend (a link to this Node, run under that name).
    const program = join(root, 'class-assistant-backend');
    await symlink(process.execPath, program);
    const stale = start(program, ['-e', 'setInterval(() => {}, 1000); console.log("up")']);
    await waitFor(() => stale.output().includes('up'), 'the stale backend');
    const found = await findProcessesByName(nodeSystem(), 'class-assistant-backend');
    expect(found.map((entry) => entry.pid)).toContain(stale.child.pid);

    const report = await cleanupStaleBackends({ system: nodeSystem(), port: await freePort() });
    expect(report.stopped).toContainEqual({ pid: stale.child.pid, reason: 'name', forced: false });
    expect((await stale.exited).signal).toBe('SIGTERM');
  });
});
