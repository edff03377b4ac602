// A hard link to a file outside the root, swapped in and out by another process while the fs
// tools read and append through its name: no read may return the outside file's content and no
// append may reach it, however the swap falls between the tool's open, checks and read.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { isToolError } from '../src/errors.ts';
import { createToolbox } from '../src/toolbox.ts';

const SECRET = 'outside secret';
const TRIES = 3000;
// 3,000 calls with a process racing them on a shared machine: an upper bound, not a target.

let base: string;
let root: string;
let secret: string;
let swapper: ChildProcess | undefined;

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'agent-std-link-race-'));
  root = join(base, 'root');
  secret = join(base, 'outside', 'secret.txt');
  await mkdir(root);
  await mkdir(join(base, 'outside'));
  await writeFile(secret, SECRET);
});

afterEach(async () => {
  if (swapper && swapper.exitCode === null && swapper.signalCode === null) {
    const exited = once(swapper, 'exit');
    swapper.kill();
    await exited;
  }
  swapper = undefined;
  await rm(base, { recursive: true, force: true });
});

/**
 * Starts a process that links `target` at `name` and removes the name again, as fast as it can,
 * until killed (a file the tool created at `name` meanwhile is removed too). Resolves once it
 * has swapped a first time.
 */
async function startSwapping(target: string, name: string): Promise<ChildProcess> {
  const script = `
    const fs = require('node:fs');
    const [target, name] = process.argv.slice(1);
    let said = false;
    for (;;) {
      try { fs.linkSync(target, name); } catch {}
      try { fs.unlinkSync(name); } catch {}
      if (!said) { said = true; process.stdout.write('swapping\\n'); }
    }`;
  const child = spawn(process.execPath, ['-e', script, target, name], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  swapper = child;
  const [chunk] = (await once(child.stdout!, 'data')) as [Buffer];
  expect(chunk.toString()).toContain('swapping');
  return child;
}

test(`${TRIES} reads through a name a hard link to an outside file is swapped in and out of: none returns the outside file`, async () => {
  const fs = createToolbox({ uses: ['std.fs'], policy: { fs: { root, readOnly: true } } });
  await startSwapping(secret, join(root, 'swapped.txt'));
  const outcomes = { leaked: 0, refused: 0, missing: 0 };
  for (let attempt = 0; attempt < TRIES; attempt++) {
    try {
      const text = await fs.call('file_read', { path: 'swapped.txt' });
      if (text.includes(SECRET)) outcomes.leaked += 1;
    } catch (error) {
      if (!isToolError(error)) throw error;
      if (error.code === 'TOOL_POLICY_DENIED') outcomes.refused += 1;
      else outcomes.missing += 1;
    }
  }
  // The swap was seen (some reads found the link and were refused), and none got through.
  expect(outcomes.refused).toBeGreaterThan(0);
  expect(outcomes.leaked, JSON.stringify(outcomes)).toBe(0);
}, 180_000);

test(`${TRIES} appends through the same swapped name never reach the outside file`, async () => {
  const fs = createToolbox({ uses: ['std.fs'], policy: { fs: { root } } });
  await startSwapping(secret, join(root, 'swapped.txt'));
  let refused = 0;
  for (let attempt = 0; attempt < TRIES; attempt++) {
    try {
      await fs.call('file_append', { path: 'swapped.txt', content: '+leak' });
    } catch (error) {
      if (!isToolError(error)) throw error;
      if (error.code === 'TOOL_POLICY_DENIED') refused += 1;
    }
  }
  expect(refused).toBeGreaterThan(0);
  const reached = (await readFile(secret, 'utf8')).split('+leak').length - 1;
  expect(reached, 'appends that reached the outside file').toBe(0);
  expect(await readFile(secret, 'utf8')).toBe(SECRET);
}, 180_000);
