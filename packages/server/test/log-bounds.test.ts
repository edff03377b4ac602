// The startup log stays small whatever a web page or a program sends: refused requests (a
// foreign Origin, /mcp without its token) are written once per second per kind of refusal with
// a count, and the log files are capped. Real process, real loopback HTTP, real files.
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type BackendProcess, startBackendProcess } from './support/backend-process.ts';

let backend: BackendProcess | undefined;

afterEach(async () => {
  await backend?.stop();
  backend = undefined;
});

/** Total bytes of the startup log and its kept predecessors. */
async function logBytes(dataDir: string): Promise<number> {
  let total = 0;
  for (const name of await readdir(dataDir)) {
    if (name.startsWith('_startup.log')) total += (await stat(join(dataDir, name))).size;
  }
  return total;
}

/** Sends `count` requests, `parallel` at a time, each made by `send`. */
async function flood(count: number, parallel: number, send: (index: number) => Promise<Response>) {
  let next = 0;
  const statuses = new Map<number, number>();
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < count) {
        const response = await send(next++);
        await response.arrayBuffer();
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      }
    }),
  );
  return statuses;
}

describe('the startup log under a flood of refused requests', () => {
  it('grows by at most 256 KiB for 5,000 refused requests, and still says what was refused', async () => {
    backend = await startBackendProcess(['ASR_MODE=mock']);
    const { base, dataDir, child } = backend;
    const before = await logBytes(dataDir);
    const statuses = await flood(5000, 16, (index) =>
      index % 2 === 0
        ? fetch(`${base}/mcp`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
          })
        : fetch(`${base}/api/settings`, { headers: { origin: 'https://pages.example' } }),
    );
    expect(Object.fromEntries(statuses)).toEqual({ 401: 2500, 403: 2500 });
    // Stopped cleanly, so everything it wrote is on disk.
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
    const added = (await logBytes(dataDir)) - before;
    expect(added).toBeLessThanOrEqual(256 * 1024);
    // Collapsed, not lost: each kind's lines, with their counts, stand for every refusal.
    const entries = (await readFile(join(dataDir, '_startup.log'), 'utf8'))
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const refusals = (code: string) => entries.filter((entry) => entry.code === code);
    const counted = (code: string) =>
      refusals(code).reduce((sum, entry) => sum + ((entry.collapsed as number) ?? 1), 0);
    expect(counted('MCP_UNAUTHORIZED')).toBe(2500);
    expect(counted('ORIGIN_NOT_ALLOWED')).toBe(2500);
    expect(refusals('ORIGIN_NOT_ALLOWED')[0]).toMatchObject({
      origin: 'https://pages.example',
      url: '/api/settings',
      res: { statusCode: 403 },
    });
    expect(String(refusals('MCP_UNAUTHORIZED')[0]?.msg)).toContain('Authorization: Bearer');
  }, 180_000);
});
