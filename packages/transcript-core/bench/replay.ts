// pnpm bench: replays a synthetic 3-hour class through the real store and pipeline on a real
// file, and prints ratios against baselines measured in the same run. Nothing is asserted.
//
//   0. One written transcript line (pipeline + store, fsync on as shipped) at 100 and at 10,000
//      lines, against the disk's floor (one write + fdatasync of such a line) and the whole-file
//      rewrite of the product this one replaces, all at the same file sizes; and without fsync.
//   1. Cost per change near line 100 and near line 10,000 of the file: flat means ≈ 1×.
//   2. Total time of the class's file changes against a baseline that rewrites the whole file
//      on every change (what the product this one replaces did), with and without fsync.
//   3. Keyword matching per line for 10 vs 1,000 keywords, against scanning every keyword.
import {
  closeSync,
  fdatasync,
  fdatasyncSync,
  fsyncSync,
  mkdtempSync,
  openSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createKeywordMatcher,
  formatClockTime,
  formatEntryLine,
  TranscriptPipeline,
  TranscriptStore,
} from '../src/index.ts';
import { makeKeywords, syntheticClass } from './synthetic-class.ts';

const SEGMENTS = 14_400; // recogniser segments: 3 hours, a file of 10,000+ lines
const WINDOW = 100; // samples around each measuring point (median)
const folder = mkdtempSync(join(tmpdir(), 'transcript-bench-'));
const events = syntheticClass(SEGMENTS, 20260921);
const keywords500 = makeKeywords(500, 1);
const matcher500 = createKeywordMatcher(keywords500, { homophones: 'pinyin' });

/** One measured operation: its duration and the file's line count (or lines written) after it. */
interface Sample {
  ms: number;
  line: number;
}
interface Change {
  kind: 'append' | 'replace';
  text: string;
  line: number;
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const near = (samples: Sample[], line: number) => {
  const window = samples.filter((sample) => Math.abs(sample.line - line) <= WINDOW / 2);
  return window.length > 0 ? median(window.map((sample) => sample.ms)) : Number.NaN;
};
const total = (samples: Sample[]) => samples.reduce((sum, sample) => sum + sample.ms, 0);
const us = (ms: number) => `${(ms * 1000).toFixed(1)} µs`;
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const times = (a: number, b: number) => `${(a / b).toFixed(2)}×`;

function table(title: string, header: string[], rows: string[][]) {
  const widths = header.map((cell, column) =>
    Math.max(cell.length, ...rows.map((row) => row[column]!.length)),
  );
  const format = (cells: string[]) =>
    `| ${cells.map((cell, column) => cell.padEnd(widths[column]!)).join(' | ')} |`;
  console.log(`\n${title}`);
  console.log(format(header));
  console.log(`|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`);
  for (const row of rows) console.log(format(row));
}

// A clock that advances one second per reading.
function classClock() {
  let tick = 0;
  return () => new Date(2026, 8, 21, 8, 0, tick++);
}

// The pipeline as the backend drives it in local mode: filters, merging, 500 keywords (pinyin
// homophones on), durable appends; with folding, an instant fake summarizer.
let run = 0;
async function pipelineReplay(options: { fold: boolean; segments?: number }) {
  const store = await TranscriptStore.open(join(folder, `pipeline-${run++}.txt`), {
    now: classClock(),
  });
  let folds = 0;
  const pipeline = new TranscriptPipeline({
    store,
    keywords: matcher500,
    ...(options.fold
      ? {
          summarize: async (_previous: string, entries: readonly unknown[]) =>
            `课堂进度摘要：已折叠 ${++folds} 次，本次 ${entries.length} 句。`,
        }
      : {}),
  });
  const counts = { appended: 0, updated: 0, dropped: 0, alerts: 0 };
  const changes: Change[] = [];
  pipeline.on('alert-raised', () => counts.alerts++);
  pipeline.on('line-appended', ({ entry }) =>
    changes.push({ kind: 'append', text: entry.text, line: store.entryCount }),
  );
  pipeline.on('line-updated', ({ entry }) =>
    changes.push({ kind: 'replace', text: entry.text, line: store.entryCount }),
  );
  const samples: Sample[] = [];
  // The file's line count before each segment.
  const linesBefore: number[] = [];
  for (const event of events.slice(0, options.segments ?? events.length)) {
    linesBefore.push(counts.appended);
    const started = performance.now();
    const result = await pipeline.pushSegment({
      text: event.text,
      startMs: event.startMs,
      endMs: event.endMs,
    });
    samples.push({
      ms: performance.now() - started,
      line: counts.appended + (result.action === 'appended' ? 1 : 0),
    });
    counts[result.action]++;
  }
  await pipeline.flush();
  await pipeline.close();
  await store.close();
  return { samples, counts, folds, changes, linesBefore };
}

// The same file changes through the store alone.
async function storeReplay(changes: readonly Change[], durable: boolean) {
  const store = await TranscriptStore.open(join(folder, `store-${durable}.txt`), {
    now: classClock(),
    durable,
  });
  const samples: Sample[] = [];
  for (const change of changes) {
    const started = performance.now();
    if (change.kind === 'append') await store.append(change.text);
    else await store.replaceLast(change.text);
    samples.push({ ms: performance.now() - started, line: change.line });
  }
  await store.close();
  return samples;
}

/**
 * Median cost of the class's next WINDOW changes on a file that already holds `lines` entries,
 * through a freshly opened store. Measuring both sizes this way, in alternating rounds, keeps
 * the comparison fair: a replay's first changes would otherwise also carry whatever the previous
 * phase left behind (page-cache writeback of a large file, JIT warm-up).
 */
async function storeCostAt(changes: readonly Change[], lines: number, durable: boolean) {
  const clock = classClock();
  const appended = changes.filter((change) => change.kind === 'append').slice(0, lines);
  const path = join(folder, `size-${lines}-${durable}-${run++}.txt`);
  const text = appended.map((change) =>
    formatEntryLine({ time: formatClockTime(clock()), text: change.text }),
  );
  writeFileSync(path, `${text.join('\n')}\n`);
  const from = changes.findIndex((change) => change.line > lines);
  const store = await TranscriptStore.open(path, { now: clock, durable });
  const samples: number[] = [];
  for (const change of changes.slice(from, from + WINDOW)) {
    const started = performance.now();
    if (change.kind === 'append') await store.append(change.text);
    else await store.replaceLast(change.text);
    samples.push(performance.now() - started);
  }
  await store.close();
  rmSync(path);
  return median(samples);
}

async function storeCostBySize(changes: readonly Change[], durable: boolean) {
  const small: number[] = [];
  const large: number[] = [];
  for (let round = 0; round < 5; round++) {
    small.push(await storeCostAt(changes, 100, durable));
    large.push(await storeCostAt(changes, 10_000, durable));
  }
  return { at100: median(small), at10k: median(large) };
}

// A file of `lines` entries as the class had written them (its first appended lines).
function prefilled(changes: readonly Change[], lines: number, name: string) {
  const clock = classClock();
  const path = join(folder, `${name}-${lines}-${run++}.txt`);
  const text = changes
    .filter((change) => change.kind === 'append')
    .slice(0, lines)
    .map((change) => formatEntryLine({ time: formatClockTime(clock()), text: change.text }));
  writeFileSync(path, `${text.join('\n')}\n`);
  return { path, clock, text };
}

/**
 * Median cost of one written line — a segment the pipeline appends or merges into the last line
 * (filters, merging, 500 keywords with homophones, the store) — for the class's next segments
 * on a file of `lines` entries, through a fresh store and pipeline.
 */
async function lineCostAt(
  replay: { changes: readonly Change[]; linesBefore: readonly number[] },
  lines: number,
  durable: boolean,
) {
  const { path, clock } = prefilled(replay.changes, lines, 'line');
  const store = await TranscriptStore.open(path, { now: clock, durable });
  const pipeline = new TranscriptPipeline({ store, keywords: matcher500 });
  const samples: number[] = [];
  for (
    let index = replay.linesBefore.findIndex((count) => count >= lines);
    samples.length < WINDOW;
    index++
  ) {
    const event = events[index]!;
    const started = performance.now();
    const result = await pipeline.pushSegment({
      text: event.text,
      startMs: event.startMs,
      endMs: event.endMs,
    });
    if (result.action !== 'dropped') samples.push(performance.now() - started);
  }
  await pipeline.close();
  await store.close();
  rmSync(path);
  return median(samples);
}

/**
 * The disk's floor for a line: one write at the end of a file of `lines` entries, then
 * fdatasync — blocking the thread (`sync`), on libuv's I/O threads as a non-blocking writer must
 * (`async`), or none.
 */
async function floorAt(changes: readonly Change[], lines: number, sync: 'sync' | 'async' | 'none') {
  const { path, text } = prefilled(changes, lines, 'floor');
  const line = Buffer.from(`${text.at(-1)}\n`);
  const descriptor = openSync(path, 'r+');
  let position = Buffer.byteLength(`${text.join('\n')}\n`);
  const samples: number[] = [];
  for (let index = 0; index < WINDOW; index++) {
    const started = performance.now();
    writeSync(descriptor, line, 0, line.length, position);
    if (sync === 'sync') fdatasyncSync(descriptor);
    if (sync === 'async') {
      await new Promise<void>((resolve, reject) =>
        fdatasync(descriptor, (error) => (error ? reject(error) : resolve())),
      );
    }
    samples.push(performance.now() - started);
    position += line.length;
  }
  closeSync(descriptor);
  rmSync(path);
  return median(samples);
}

/** The whole-file rewrite per change on a file of `lines` entries (the replaced product's way). */
function rewriteAt(changes: readonly Change[], lines: number, sync: boolean) {
  const { path, clock, text } = prefilled(changes, lines, 'rewrite');
  const from = changes.findIndex((change) => change.line > lines);
  const samples: number[] = [];
  for (const change of changes.slice(from, from + WINDOW)) {
    const started = performance.now();
    const line = `[${clock().toTimeString().slice(0, 8)}] ${change.text}`;
    if (change.kind === 'append') text.push(line);
    else text[text.length - 1] = line;
    const descriptor = openSync(path, 'w');
    writeSync(descriptor, `${text.join('\n')}\n`);
    if (sync) fsyncSync(descriptor);
    closeSync(descriptor);
    samples.push(performance.now() - started);
  }
  rmSync(path);
  return median(samples);
}

/** Section 0, each figure the median of 5 rounds taken in turn (the disk is shared). */
async function lineCosts(replay: Awaited<ReturnType<typeof pipelineReplay>>) {
  const kinds = ['floorSync', 'floorAsync', 'floor', 'line', 'lineNoSync', 'rewriteSync'] as const;
  const rounds = new Map<string, number[]>();
  const add = (key: string, value: number) => rounds.set(key, [...(rounds.get(key) ?? []), value]);
  for (let round = 0; round < 5; round++) {
    for (const lines of [100, 10_000]) {
      add(`floorSync ${lines}`, await floorAt(replay.changes, lines, 'sync'));
      add(`floorAsync ${lines}`, await floorAt(replay.changes, lines, 'async'));
      add(`floor ${lines}`, await floorAt(replay.changes, lines, 'none'));
      add(`line ${lines}`, await lineCostAt(replay, lines, true));
      add(`lineNoSync ${lines}`, await lineCostAt(replay, lines, false));
      add(`rewriteSync ${lines}`, rewriteAt(replay.changes, lines, true));
    }
  }
  const at = (kind: (typeof kinds)[number], lines: number) =>
    median(rounds.get(`${kind} ${lines}`)!);
  return { at };
}

// Baseline: the product this one replaces rewrote the whole file on every change.
function rewriteBaseline(changes: readonly Change[], fsync: boolean) {
  const path = join(folder, `baseline-${fsync}.txt`);
  const clock = classClock();
  const lines: string[] = [];
  const samples: Sample[] = [];
  for (const change of changes) {
    const started = performance.now();
    const line = `[${clock().toTimeString().slice(0, 8)}] ${change.text}`;
    if (change.kind === 'append') lines.push(line);
    else lines[lines.length - 1] = line;
    const descriptor = openSync(path, 'w');
    writeSync(descriptor, `${lines.join('\n')}\n`);
    if (fsync) fsyncSync(descriptor);
    closeSync(descriptor);
    samples.push({ ms: performance.now() - started, line: change.line });
  }
  return samples;
}

function keywordMatching(count: number) {
  const keywords = makeKeywords(count, 2);
  const lines = events.map((event) => event.text);
  const exact = createKeywordMatcher(keywords);
  const homophones = createKeywordMatcher(keywords, { homophones: 'pinyin' });
  const texts = keywords.map((keyword) => keyword.text.toLowerCase());
  const perLine = (match: (line: string) => unknown) => {
    for (const line of lines.slice(0, 1000)) match(line); // warm-up
    const started = performance.now();
    for (const line of lines) match(line);
    return (performance.now() - started) / lines.length;
  };
  return {
    automaton: perLine((line) => exact.match(line)),
    homophones: perLine((line) => homophones.match(line)),
    // What the product this one replaces did: test every keyword against the line.
    scan: perLine((line) => {
      const lower = line.toLowerCase();
      return texts.filter((text) => lower.includes(text));
    }),
  };
}

try {
  const hours = (events.at(-1)!.endMs / 3_600_000).toFixed(1);
  const kinds = new Map<string, number>();
  for (const event of events) kinds.set(event.kind, (kinds.get(event.kind) ?? 0) + 1);
  console.log(`transcript-core benchmark — Node ${process.version}, files in ${folder}`);
  console.log(
    `synthetic class: ${events.length} recogniser segments over ${hours} h (${[...kinds].map(([kind, n]) => `${n} ${kind}`).join(', ')}); 500 keywords`,
  );

  await pipelineReplay({ fold: false, segments: 1500 }); // warm-up: JIT, page cache
  const plain = await pipelineReplay({ fold: false });
  const folding = await pipelineReplay({ fold: true });
  const { changes } = plain;
  const storeSync = await storeReplay(changes, true);
  const storeNoSync = await storeReplay(changes, false);
  const storeBySizeSync = await storeCostBySize(changes, true);
  const storeBySizeNoSync = await storeCostBySize(changes, false);
  const baselineSync = rewriteBaseline(changes, true);
  const baselineNoSync = rewriteBaseline(changes, false);

  const costs = await lineCosts(plain);
  const c = plain.counts;
  console.log(
    `pipeline: ${c.appended} lines appended, ${c.updated} merged into the previous line, ${c.dropped} dropped, ${c.alerts} alerts; ${changes.length} file changes; the file ends with ${changes.at(-1)!.line} lines (with folding: ${folding.folds} folds)`,
  );

  const sizes = [100, 10_000] as const;
  table(
    `0. One written line (a segment appended or merged into the last line), median of ~${WINDOW} lines on a file of 100 and of 10,000 lines, median of 5 rounds`,
    ['what', 'line 100', 'line 10,000', 'vs floor at 100', 'vs floor at 10,000'],
    [
      [
        'floor: write + fdatasync of one line',
        ...sizes.map((n) => us(costs.at('floorSync', n))),
        '1.00×',
        '1.00×',
      ],
      [
        'floor, fdatasync on the I/O threads (not blocking)',
        ...sizes.map((n) => us(costs.at('floorAsync', n))),
        ...sizes.map((n) => times(costs.at('floorAsync', n), costs.at('floorSync', n))),
      ],
      [
        'pipeline + store, fsync (as shipped)',
        ...sizes.map((n) => us(costs.at('line', n))),
        ...sizes.map((n) => times(costs.at('line', n), costs.at('floorSync', n))),
      ],
      [
        'baseline: rewrite the whole file, fsync',
        ...sizes.map((n) => us(costs.at('rewriteSync', n))),
        ...sizes.map((n) => times(costs.at('rewriteSync', n), costs.at('floorSync', n))),
      ],
      ['floor: write of one line, no fsync', ...sizes.map((n) => us(costs.at('floor', n))), '', ''],
      ['pipeline + store, no fsync', ...sizes.map((n) => us(costs.at('lineNoSync', n))), '', ''],
    ],
  );
  console.log(
    `   the whole-file rewrite costs ${sizes.map((n) => `${times(costs.at('rewriteSync', n), costs.at('line', n))} a shipped line at ${n} lines`).join(', ')}`,
  );

  const row = (name: string, samples: Sample[]) => {
    const at100 = near(samples, 100);
    const at10k = near(samples, 10_000);
    return [name, us(at100), us(at10k), times(at10k, at100)];
  };
  const sized = (name: string, cost: { at100: number; at10k: number }) => [
    name,
    us(cost.at100),
    us(cost.at10k),
    times(cost.at10k, cost.at100),
  ];
  table(
    `1. Time per change, median of ~${WINDOW} changes around line 100 and line 10,000 of the file (store rows: a fresh store on a file of that size, median of 5 alternating rounds)`,
    ['what', 'line 100', 'line 10,000', '10,000 / 100'],
    [
      sized('store: append / replaceLast, fsync', storeBySizeSync),
      sized('store: append / replaceLast, no fsync', storeBySizeNoSync),
      row('pipeline: filters + merge + 500 keywords + store, fsync', plain.samples),
      row('pipeline with folding at 50 (x = lines written), fsync', folding.samples),
      row('baseline: rewrite the whole file, fsync', baselineSync),
      row('baseline: rewrite the whole file, no fsync', baselineNoSync),
    ],
  );

  table(
    `2. The whole class: ${changes.length} file changes (${c.appended} appends, ${c.updated} last-line replacements)`,
    ['what', 'total', 'baseline / this'],
    [
      ['store, fsync', seconds(total(storeSync)), times(total(baselineSync), total(storeSync))],
      ['baseline: rewrite the whole file per change, fsync', seconds(total(baselineSync)), '1.00×'],
      [
        'store, no fsync',
        seconds(total(storeNoSync)),
        times(total(baselineNoSync), total(storeNoSync)),
      ],
      [
        'baseline: rewrite the whole file per change, no fsync',
        seconds(total(baselineNoSync)),
        '1.00×',
      ],
      [
        'whole pipeline, fsync (filters, merge, keywords)',
        seconds(total(plain.samples)),
        times(total(baselineSync), total(plain.samples)),
      ],
      [
        'whole pipeline with folding, fsync',
        seconds(total(folding.samples)),
        times(total(baselineSync), total(folding.samples)),
      ],
    ],
  );

  const ten = keywordMatching(10);
  const thousand = keywordMatching(1000);
  table(
    `3. Keyword matching per line (${events.length} lines: Chinese, English, mixed)`,
    ['matcher', '10 keywords', '1,000 keywords', '1,000 / 10'],
    [
      [
        'Aho–Corasick, NFKC, word boundaries',
        us(ten.automaton),
        us(thousand.automaton),
        times(thousand.automaton, ten.automaton),
      ],
      [
        '  + pinyin homophones',
        us(ten.homophones),
        us(thousand.homophones),
        times(thousand.homophones, ten.homophones),
      ],
      [
        'baseline: scan every keyword',
        us(ten.scan),
        us(thousand.scan),
        times(thousand.scan, ten.scan),
      ],
    ],
  );
} finally {
  rmSync(folder, { recursive: true, force: true });
}
