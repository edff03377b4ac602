// A hard link to the settings file swapped in and out of cite/ by another process while class
// files are read through that name: no read returns the settings. And a class file the backend
// rewrites (a temp file renamed over it) while it is read is read, never refused.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { isServerError } from '../src/errors.ts';
import { readContainedText } from '../src/security/contained-file.ts';

const SECRET = 'LLM_API_KEY=sk-settings-secret';
const TRIES = 3000;

let base: string | undefined;
let swapper: ChildProcess | undefined;

afterEach(async () => {
  if (swapper && swapper.exitCode === null && swapper.signalCode === null) {
    const exited = once(swapper, 'exit');
    swapper.kill();
    await exited;
  }
  swapper = undefined;
  if (base) await rm(base, { recursive: true, force: true });
  base = undefined;
});

it(`${TRIES} reads of a cite/ file a hard link to the settings file is swapped in and out of: none returns the settings`, async () => {
  base = await mkdtemp(join(tmpdir(), 'class-file-race-'));
  const settings = join(base, '.env');
  const data = join(base, 'data');
  await mkdir(join(data, 'cite'), { recursive: true });
  await writeFile(settings, `${SECRET}\n`);
  const script = `
    const fs = require('node:fs');
    const [target, name] = process.argv.slice(1);
    let said = false;
    for (;;) {
      try { fs.linkSync(target, name); } catch {}
      try { fs.unlinkSync(name); } catch {}
      if (!said) { said = true; process.stdout.write('swapping\\n'); }
    }`;
  swapper = spawn(process.execPath, ['-e', script, settings, join(data, 'cite', 'deck.txt')], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await once(swapper.stdout!, 'data');
  const outcomes = { leaked: 0, refused: 0, missing: 0 };
  for (let attempt = 0; attempt < TRIES; attempt++) {
    try {
      const text = await readContainedText(data, ['cite', 'deck.txt']);
      if (text === undefined) outcomes.missing += 1;
      else if (text.includes(SECRET)) outcomes.leaked += 1;
    } catch (error) {
      if (!isServerError(error) || error.code !== 'FILE_LINK_REFUSED') throw error;
      outcomes.refused += 1;
    }
  }
  expect(outcomes.refused, JSON.stringify(outcomes)).toBeGreaterThan(0);
  expect(outcomes.leaked, JSON.stringify(outcomes)).toBe(0);
}, 180_000);

it(`${TRIES} reads of a class file rewritten every 2 ms (the backend: every few seconds) by renames: each returns a whole version, none is refused`, async () => {
  base = await mkdtemp(join(tmpdir(), 'class-file-race-'));
  const folder = join(base, 'data', 'classes', '20261127-080000-ab12');
  await mkdir(folder, { recursive: true });
  await writeFile(join(folder, 'class.json'), '{"alive_at":"0"}'.padEnd(4096, ' '));
  const script = `
    const fs = require('node:fs');
    const [file] = process.argv.slice(1);
    const pause = new Int32Array(new SharedArrayBuffer(4));
    let said = false;
    for (let n = 1; ; n++) {
      fs.writeFileSync(file + '.tmp', ('{"alive_at":"' + n + '"}').padEnd(4096, ' '));
      fs.renameSync(file + '.tmp', file);
      Atomics.wait(pause, 0, 0, 2);
      if (!said) { said = true; process.stdout.write('rewriting\\n'); }
    }`;
  swapper = spawn(process.execPath, ['-e', script, join(folder, 'class.json')], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await once(swapper.stdout!, 'data');
  for (let attempt = 0; attempt < TRIES; attempt++) {
    const text = await readContainedText(join(base, 'data'), [
      'classes',
      '20261127-080000-ab12',
      'class.json',
    ]);
    expect(text).toMatch(/^\{"alive_at":"\d+"\} {10}/);
    expect(text).toHaveLength(4096);
  }
}, 180_000);
