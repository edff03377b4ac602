// A real child process writes to a transcript and is SIGKILLed mid-append, mid-replace and
// mid-fold. Afterwards the file must parse cleanly and hold every line the child acknowledged.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readTranscriptFile, TranscriptStore } from '../src/transcript-store.ts';
import { type CrashVersion, crashLine } from './helpers/crash-lines.ts';

const writer = fileURLToPath(new URL('./helpers/crash-writer.ts', import.meta.url));
const TIMEOUT = 120_000;

let folder: string;
beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'crash-safety-'));
});
afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

// Runs the writer; `decide(line, kill)` is called for each stdout line and either returns a
// delay in ms after which to SIGKILL the child, or undefined to keep going (it may also call
// `kill(delay)` later itself). Resolves with every line received before the child died.
function runUntilKilled(
  mode: 'append' | 'replace' | 'fold',
  path: string,
  decide: (line: string, kill: (delay: number) => void) => number | undefined,
): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child: ChildProcess = spawn(process.execPath, [writer, mode, path], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const lines: string[] = [];
    let buffered = '';
    let stderr = '';
    let killing = false;
    const kill = (delay: number) => {
      if (killing) return;
      killing = true;
      setTimeout(() => child.kill('SIGKILL'), delay);
    };
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const parts = buffered.split('\n');
      buffered = parts.pop()!;
      for (const line of parts) {
        lines.push(line); // acknowledged, even when it arrives after the kill decision
        if (killing) continue;
        const delay = decide(line, kill);
        if (delay !== undefined) kill(delay);
      }
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      // Lines written before death but read after the kill decision were acknowledged too.
      for (const line of buffered.split('\n').filter(Boolean)) lines.push(line);
      if (signal !== 'SIGKILL') reject(new Error(`writer exited with ${code}: ${stderr}`));
      else resolve(lines);
    });
  });
}

async function expectCleanFile(path: string) {
  // Reopening repairs what a crash can leave (a torn character, a stale temp file).
  const store = await TranscriptStore.open(path);
  const document = await store.read();
  await store.append('重新打开后继续写 reopened and continued');
  await store.close();
  const names = await readdir(folder);
  expect(names.filter((name) => name.includes('.tmp-'))).toEqual([]);
  for (const entry of document.entries) {
    expect(entry.time).toMatch(/^\d\d:\d\d:\d\d$/);
    expect(entry.text).not.toContain('\uFFFD');
  }
  const reread = await readTranscriptFile(path);
  expect(reread.entries.at(-1)?.text).toBe('重新打开后继续写 reopened and continued');
  return document;
}

const randomInt = (low: number, high: number) => low + Math.floor(Math.random() * (high - low + 1));

describe('crash safety: a writer SIGKILLed at random moments', () => {
  it(
    'mid-append: every acknowledged line is in the file',
    async () => {
      for (let round = 0; round < 4; round += 1) {
        const path = join(folder, `append-${round}.txt`);
        const killAfter = randomInt(20, 300);
        const lines = await runUntilKilled('append', path, (line) =>
          line === `ack ${killAfter}` ? randomInt(0, 3) : undefined,
        );
        const acked = lines
          .filter((line) => line.startsWith('ack '))
          .map((line) => Number(line.slice(4)));
        expect(acked.length).toBeGreaterThan(killAfter);
        const document = await expectCleanFile(path);
        const texts = document.entries.map((entry) => entry.text);
        const last = acked.at(-1)!;
        expect(texts.slice(0, last + 1)).toEqual(acked.map((index) => crashLine(index, 'base')));
        // At most the one append in progress at the kill, complete or cut at a character.
        expect(texts.length - (last + 1)).toBeLessThanOrEqual(1);
        if (texts.length > last + 1)
          expect(crashLine(last + 1, 'base').startsWith(texts.at(-1)!)).toBe(true);
      }
    },
    TIMEOUT,
  );

  it(
    'mid-replace: earlier entries intact, the last one an acknowledged or newer version',
    async () => {
      const order: CrashVersion[] = ['base', 'long', 'short'];
      const versionOf = { a: 'base', l: 'long', s: 'short' } as const;
      for (let round = 0; round < 8; round += 1) {
        const path = join(folder, `replace-${round}.txt`);
        const killAfter = randomInt(10, 120);
        const lines = await runUntilKilled('replace', path, (line) =>
          line === `l ${killAfter}` ? randomInt(0, 2) : undefined,
        );
        const acked = new Map<number, CrashVersion>();
        for (const line of lines.filter((item) => /^[als] \d+$/.test(item))) {
          const [kind, index] = line.split(' ') as ['a' | 'l' | 's', string];
          acked.set(Number(index), versionOf[kind]);
        }
        const document = await expectCleanFile(path);
        const texts = document.entries.map((entry) => entry.text);
        const lastAcked = Math.max(...acked.keys());
        expect(texts.length).toBeGreaterThanOrEqual(lastAcked + 1);
        expect(texts.length).toBeLessThanOrEqual(lastAcked + 2);
        for (const [index, version] of acked) {
          // The acknowledged version, or a later one whose write completed before the kill.
          const allowed = order.slice(order.indexOf(version)).map((v) => crashLine(index, v));
          expect(allowed).toContain(texts[index]);
        }
        if (texts.length === lastAcked + 2) {
          expect(crashLine(lastAcked + 1, 'base').startsWith(texts.at(-1)!)).toBe(true);
        }
      }
    },
    TIMEOUT,
  );

  it(
    'mid-fold: every acknowledged line is an entry or quoted in the summary',
    async () => {
      let foldMs = 100;
      let killedMidFold = 0;
      let killedBeforeRename = 0;
      for (let round = 0; round < 6; round += 1) {
        const path = join(folder, `fold-${round}.txt`);
        // Even rounds: kill while the new file is being written (as soon as its temp file
        // appears, plus up to 30 ms). Odd rounds: at a random moment of the fold.
        const whileWriting = round % 2 === 0;
        const lines = await runUntilKilled('fold', path, (line, kill) => {
          const done = /^fold-done 1 (\d+)$/.exec(line);
          if (done) foldMs = Math.max(1, Number(done[1]));
          if (line !== 'fold-start 2') return undefined;
          if (!whileWriting) return randomInt(0, foldMs);
          const started = Date.now();
          const poll = setInterval(async () => {
            const names = await readdir(folder);
            const writing = names.some((name) => name.startsWith(`.fold-${round}.txt.tmp-`));
            if (writing || Date.now() - started > 3 * foldMs + 1000) {
              clearInterval(poll);
              kill(randomInt(0, 30));
            }
          }, 1);
          return undefined;
        });
        if (!lines.some((line) => line.startsWith('fold-done 2 '))) killedMidFold += 1;
        const acked = lines
          .filter((line) => line.startsWith('ack '))
          .map((line) => Number(line.slice(4)));
        const leftovers = (await readdir(folder)).filter((name) =>
          name.startsWith(`.fold-${round}.txt.tmp-`),
        );
        if (leftovers.length > 0) killedBeforeRename += 1;
        const document = await expectCleanFile(path);
        const texts = new Set(document.entries.map((entry) => entry.text));
        for (const index of acked) {
          const text = crashLine(index, 'base');
          expect(texts.has(text) || document.summary.includes(text), `line ${index} lost`).toBe(
            true,
          );
        }
        // Nothing twice: a line is either still an entry or folded, not both.
        for (const text of texts) expect(document.summary.includes(text)).toBe(false);
      }
      // The kills landed inside folds, and while the new file was being written (its temp
      // file was left behind): the window where a non-atomic rewrite would lose lines.
      expect(killedMidFold).toBeGreaterThanOrEqual(3);
      expect(killedBeforeRename).toBeGreaterThanOrEqual(2);
    },
    TIMEOUT,
  );
});
