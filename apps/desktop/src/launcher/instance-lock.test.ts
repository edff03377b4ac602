// The data folder's instance lock with real files: who holds it, when it is stale, and a damaged
// lock never blocking the app.
import { mkdir, mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { acquireInstanceLock, LOCK_FILE, STARTING_GRACE_MS } from './instance-lock.ts';

const folders: string[] = [];
afterEach(async () => {
  for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
});

async function dataDir(): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), 'desktop-lock-'));
  folders.push(folder);
  return folder;
}

/** Leaves the lock of launcher 10 on port 8765 in `dir`, as a launcher that took it at `startedAt`. */
async function writeLock(
  dir: string,
  startedAt: string | number,
  extra: { backend_pid?: number } = {},
): Promise<void> {
  const started_at = typeof startedAt === 'number' ? new Date(startedAt).toISOString() : startedAt;
  const record = { pid: 10, port: 8765, url: 'http://127.0.0.1:8765', started_at, ...extra };
  await writeFile(join(dir, LOCK_FILE), JSON.stringify(record));
}

/** A system where `alive` processes run and this one is `selfPid`. */
function system(selfPid: number, alive: number[]) {
  return { selfPid, isAlive: (pid: number) => alive.includes(pid), sleep: async () => {} };
}

describe('acquireInstanceLock', () => {
  it('lets one launcher hold a data folder; a second finds it, and takes it over once it is gone', async () => {
    const dir = await dataDir();
    const first = await acquireInstanceLock({
      dataDir: dir,
      port: 8765,
      system: system(10, [10, 20]),
    });
    if (first.kind !== 'acquired') throw new Error('the first launcher did not get the lock');
    await first.lock.setBackend(11);

    const second = await acquireInstanceLock({
      dataDir: dir,
      port: 9000,
      system: system(20, [10, 11, 20]),
    });
    expect(second).toMatchObject({
      kind: 'running',
      record: { pid: 10, port: 8765, url: 'http://127.0.0.1:8765', backend_pid: 11 },
    });

    // Launcher 10 died without releasing it.
    const third = await acquireInstanceLock({ dataDir: dir, port: 9000, system: system(20, [20]) });
    if (third.kind !== 'acquired') throw new Error('the stale lock was not taken over');
    expect(third.stale).toMatchObject({ pid: 10, backend_pid: 11 });
    expect(JSON.parse(await readFile(join(dir, LOCK_FILE), 'utf8'))).toMatchObject({
      pid: 20,
      port: 9000,
    });

    // The old holder's late release must not remove the new holder's lock.
    await first.lock.release();
    expect(JSON.parse(await readFile(join(dir, LOCK_FILE), 'utf8'))).toMatchObject({ pid: 20 });
    await third.lock.release();
    await expect(readFile(join(dir, LOCK_FILE), 'utf8')).rejects.toThrow(/ENOENT/);
  });

  it('treats a lock from before this computer started as stale, even when its pid is in use again', async () => {
    const dir = await dataDir();
    await writeLock(dir, '2026-01-05T08:00:00.000Z');
    const outcome = await acquireInstanceLock({
      dataDir: dir,
      port: 8765,
      system: system(20, [10, 20]),
      bootTimeMs: Date.parse('2026-11-20T07:00:00.000Z'),
    });
    expect(outcome).toMatchObject({ kind: 'acquired', stale: { pid: 10 } });
  });

  it('takes over a damaged lock once it is old, and waits while it may be being written', async () => {
    const dir = await dataDir();
    const path = join(dir, LOCK_FILE);
    await writeFile(path, '{"pid": 1');
    const old = new Date(Date.now() - 60_000);
    await utimes(path, old, old);
    const outcome = await acquireInstanceLock({
      dataDir: dir,
      port: 8765,
      system: system(20, [20]),
    });
    expect(outcome.kind).toBe('acquired');
    expect(JSON.parse(await readFile(path, 'utf8'))).toMatchObject({ pid: 20 });

    // A fresh unreadable lock: waited on while it may be being written (2 s), then taken over.
    const fresh = await dataDir();
    await writeFile(join(fresh, LOCK_FILE), '');
    let waits = 0;
    const outcomeFresh = await acquireInstanceLock({
      dataDir: fresh,
      port: 8765,
      system: {
        selfPid: 20,
        isAlive: () => false,
        sleep: (ms: number) => {
          waits++;
          return new Promise((resolve) => setTimeout(resolve, ms));
        },
      },
    });
    expect(waits).toBeGreaterThanOrEqual(15);
    expect(outcomeFresh.kind).toBe('acquired');
  });

  it('a lock whose launcher lives but whose backend is gone names a reused process number: stale', async () => {
    const dir = await dataDir();
    await writeLock(dir, Date.now() - 3_600_000, { backend_pid: 11 });
    // Process 10 is some other program now (Windows' fast startup kept the uptime running).
    const outcome = await acquireInstanceLock({
      dataDir: dir,
      port: 8765,
      system: system(20, [10, 20]),
    });
    expect(outcome).toMatchObject({ kind: 'acquired', stale: { pid: 10, backend_pid: 11 } });

    // Without a backend yet, a launcher is starting for a while — then it is not one.
    const starting = await dataDir();
    const write = (startedAt: number) => writeLock(starting, startedAt);
    await write(Date.now() - 5000);
    expect(
      (await acquireInstanceLock({ dataDir: starting, port: 8765, system: system(20, [10, 20]) }))
        .kind,
    ).toBe('running');
    await write(Date.now() - STARTING_GRACE_MS - 5000);
    expect(
      (await acquireInstanceLock({ dataDir: starting, port: 8765, system: system(20, [10, 20]) }))
        .kind,
    ).toBe('acquired');
  });

  it('waits for an app that is stopping, then takes the lock (reopening right after closing)', async () => {
    const dir = await dataDir();
    const first = await acquireInstanceLock({
      dataDir: dir,
      port: 8765,
      system: system(10, [10, 11]),
    });
    if (first.kind !== 'acquired') throw new Error('no lock');
    await first.lock.setBackend(11);
    await first.lock.setStopping();
    const alive = [10, 11, 20];
    // The closing launcher finishes a moment later.
    setTimeout(() => {
      void first.lock.release().then(() => alive.splice(0, 2));
    }, 300);
    const second = await acquireInstanceLock({
      dataDir: dir,
      port: 8765,
      system: {
        selfPid: 20,
        isAlive: (pid: number) => alive.includes(pid),
        sleep: (ms: number) => new Promise((resolve) => setTimeout(resolve, ms)),
      },
    });
    expect(second.kind).toBe('acquired');
    expect(JSON.parse(await readFile(join(dir, LOCK_FILE), 'utf8'))).toMatchObject({ pid: 20 });
  });

  it('lets exactly one of two launches started together after a crash take the lock over', async () => {
    for (let round = 0; round < 100; round++) {
      const dir = await dataDir();
      await writeLock(dir, Date.now());
      const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
      const launch = (pid: number) =>
        acquireInstanceLock({
          dataDir: dir,
          port: 8765,
          system: {
            selfPid: pid,
            isAlive: (other: number) => other === 20 || other === 30,
            sleep: realSleep,
          },
        });
      const outcomes = await Promise.all([launch(20), launch(30)]);
      expect(outcomes.map((outcome) => outcome.kind).sort()).toEqual(['acquired', 'running']);
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('names a lock it cannot read instead of spinning', async () => {
    const dir = await dataDir();
    await mkdir(join(dir, LOCK_FILE));
    await expect(
      acquireInstanceLock({ dataDir: dir, port: 8765, system: system(20, [20]) }),
    ).rejects.toThrow(`cannot read the instance lock ${join(dir, LOCK_FILE)}: EISDIR`);
  });
});
