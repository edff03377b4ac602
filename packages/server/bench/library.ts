// `pnpm bench` (library part): a generated term of classes — 1,000 classes x 3,000 lines of
// Chinese lectures with English terms, notes for every fifth class, material for each — written
// as class folders, then:
//   1. the backend (the bin, as a process) started on them builds its index from nothing: time,
//      lines per second, database size against the text, the backend's memory afterwards;
//   2. search latency (p50/p99) of 2-, 3- and 6-character Chinese queries and English words
//      sampled from the term, through the index in process and through GET /api/search,
//      against `grep -rF` over the same folders in the same run.
//   3. what keeping classes adds to writing lines: nothing per line; one append and fdatasync of
//      the class folder per history fold (30 lines with the default settings), against the live
//      transcript's append and fdatasync of every line.
// BENCH_CLASSES and BENCH_LINES make the term smaller (e.g. for a quick look).
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatClockTime, TranscriptStore } from '@class-assistant/transcript-core';
import {
  appendClassEntries,
  newClassId,
  writeClassTranscript,
} from '../src/library/class-folder.ts';
import { LibraryIndex } from '../src/library/library-index.ts';
import { parseQuery } from '../src/library/search-terms.ts';
import { freePort } from '../test/support/ports.ts';
import { printTable } from './table.ts';

const BIN = fileURLToPath(new URL('../bin/class-assistant-backend.js', import.meta.url));
const CLASSES = Number(process.env.BENCH_CLASSES ?? 1000);
const LINES = Number(process.env.BENCH_LINES ?? 3000);
const QUERIES = Number(process.env.BENCH_QUERIES ?? 40);

// ------------------------------------------------------------------ the generated term

/** A seeded generator (mulberry32): the same term every run. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SPOKEN =
  `我们 这个 就是 那么 然后 大家 注意 问题 同学 今天 看一下 这里 所以 因为 如果 可以 一个 什么 怎么
为什么 其实 应该 需要 已经 还是 但是 时候 比如 例子 考试 作业 下课 上节课 复习 重点 结论 方法 过程 结果 定义 性质
证明 公式 计算 分析 理解 解释 情况 条件 部分 关系 影响 作用 内容 第一 第二 最后 首先 接下来 总结 回顾 一样 不同
重要 简单 复杂 基本 主要 具体 一般 特别 非常 比较 可能 一定 直接 通过 进行 得到 表示 包括 发现 提出 认为 知道
觉得 希望 开始 继续 完成 实现 使用 选择 讨论 回答 提问 黑板 课本 这一页 上面 下面 左边 右边 同样 另外 而且
或者 并且 虽然 不过 只要 只有 除了 关于 对于 根据 按照 由于 随着 之前 之后 现在 刚才 马上 一下 一点 很多 所有
每个 任何 自己 别人 老师 学生 教室 实验 报告 数据 模型 系统 结构 设计 原理`.split(/\s+/);

const COURSES = [
  [
    '线性代数',
    '矩阵 行列式 特征值 特征向量 秩 线性无关 基底 维数 向量空间 正交 对角化 二次型 逆矩阵 转置 线性变换 子空间 零空间 方程组 高斯消元 内积',
    'matrix determinant eigenvalue eigenvector rank basis dimension orthogonal transpose kernel',
  ],
  [
    '数据结构',
    '链表 栈 队列 二叉树 哈希表 堆 图 排序 查找 递归 指针 节点 数组 遍历 平衡树 红黑树 最短路径 邻接表 时间复杂度 空间复杂度',
    'linked stack queue binary tree hash heap graph pointer recursion',
  ],
  [
    '微观经济学',
    '需求 供给 均衡 价格 弹性 边际 效用 成本 利润 垄断 竞争 市场 消费者 生产者 机会成本 外部性 公共物品 博弈 纳什均衡 福利',
    'demand supply equilibrium elasticity marginal utility monopoly market welfare cost',
  ],
  [
    '大学物理',
    '力学 动量 能量 守恒 加速度 速度 质量 电场 磁场 电磁感应 波动 干涉 衍射 热力学 熵 温度 压强 量子 光子 相对论',
    'momentum energy velocity acceleration field wave entropy quantum photon relativity',
  ],
  [
    '有机化学',
    '烷烃 烯烃 炔烃 芳香烃 官能团 取代反应 加成反应 消去反应 醇 醛 酮 羧酸 酯 同分异构 手性 催化剂 氧化 还原 键能 共振',
    'alkane alkene benzene ester catalyst oxidation reduction chirality isomer resonance',
  ],
  [
    '操作系统',
    '进程 线程 调度 死锁 信号量 互斥 内存管理 分页 虚拟内存 文件系统 中断 系统调用 缓存 上下文切换 同步 页表 磁盘 内核 用户态 进程间通信',
    'process thread scheduler deadlock semaphore mutex paging kernel interrupt cache',
  ],
].map(([name, chinese, english]) => ({
  name: name!,
  chinese: chinese!.split(' '),
  english: english!.split(' '),
}));
const PUNCTUATION = ['，', '。', '？', '！', '、'];
const ENGLISH_WORDS = [...new Set(COURSES.flatMap((course) => course.english))];

function lectureLine(random: () => number, course: (typeof COURSES)[number]): string {
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
  let text = '';
  for (let words = 6 + Math.floor(random() * 14); words > 0; words -= 1) {
    const roll = random();
    if (roll < 0.68) text += pick(SPOKEN);
    else if (roll < 0.9) text += pick(course.chinese);
    else text += ` ${pick(course.english)} `;
    if (random() < 0.12) text += pick(PUNCTUATION);
  }
  return `${text.replace(/\s+/g, ' ').trim()}。`;
}

/** Writes the term's class folders; returns the text size and sample lines for queries. */
async function writeTerm(classesDir: string): Promise<{ bytes: number; samples: string[] }> {
  const random = seeded(2026);
  const samples: string[] = [];
  let bytes = 0;
  const termStart = new Date(2026, 1, 23, 8, 0, 0);
  for (let index = 0; index < CLASSES; index += 1) {
    const course = COURSES[index % COURSES.length]!;
    const day = Math.floor(index / 8);
    const started = new Date(termStart.getTime() + day * 86_400_000 + (index % 8) * 5_400_000);
    const id = newClassId(started, () => index.toString(36).padStart(4, '0'));
    const folder = join(classesDir, id);
    await mkdir(folder, { recursive: true });
    const pad = (value: number) => String(value).padStart(2, '0');
    const header = `=== 课堂记录 开始于 ${started.getFullYear()}-${pad(started.getMonth() + 1)}-${pad(started.getDate())} ${formatClockTime(started)} ===\n课程：${course.name}\n\n`;
    const parts = [header];
    for (let line = 0; line < LINES; line += 1) {
      const text = lectureLine(random, course);
      if (random() < 2000 / (CLASSES * LINES)) samples.push(text);
      parts.push(`[${formatClockTime(new Date(started.getTime() + line * 1800))}] ${text}\n`);
    }
    const transcript = parts.join('');
    bytes += Buffer.byteLength(transcript);
    await writeFile(join(folder, 'transcript.txt'), transcript);
    const material = Array.from({ length: 40 }, () => lectureLine(random, course)).join('\n');
    bytes += Buffer.byteLength(material);
    await writeFile(join(folder, 'material.txt'), material);
    const hasNotes = index % 5 === 0;
    if (hasNotes) {
      const notes = `# ${course.name}课堂笔记\n\n${Array.from({ length: 30 }, () => `- ${lectureLine(random, course)}`).join('\n')}\n`;
      bytes += Buffer.byteLength(notes);
      await writeFile(join(folder, 'notes.md'), notes);
    }
    await writeFile(
      join(folder, 'class.json'),
      JSON.stringify({
        id,
        course_name: course.name,
        material_name: `${course.name}.pptx`,
        started_at: started.toISOString(),
        ended_at: new Date(started.getTime() + LINES * 1800).toISOString(),
        line_count: LINES,
        alerts: [],
        notes_file: hasNotes ? 'notes.md' : null,
        material_file: 'material.txt',
      }),
    );
  }
  return { bytes, samples };
}

/** Queries sampled from the term: Chinese substrings of `length` characters, English words. */
function sampleQueries(samples: readonly string[], random: () => number) {
  const chinese = (length: number) => {
    const out: string[] = [];
    for (let attempt = 0; out.length < QUERIES && attempt < 100_000; attempt += 1) {
      const runs = samples[Math.floor(random() * samples.length)]!.match(/\p{Script=Han}+/gu) ?? [];
      const run = runs[Math.floor(random() * runs.length)] ?? '';
      if (run.length < length) continue;
      const start = Math.floor(random() * (run.length - length + 1));
      out.push(run.slice(start, start + length));
    }
    return out;
  };
  return [
    { label: '2-character Chinese', queries: chinese(2) },
    { label: '3-character Chinese', queries: chinese(3) },
    { label: '6-character Chinese', queries: chinese(6) },
    {
      label: 'English word',
      queries: Array.from(
        { length: QUERIES },
        () => ENGLISH_WORDS[Math.floor(random() * ENGLISH_WORDS.length)]!,
      ),
    },
  ];
}

// ------------------------------------------------------------------ measuring

/** Each query is timed this many times; its median counts (a shared machine has hiccups). */
const RUNS = 3;

async function medianOf(runs: number, measure: () => Promise<number> | number): Promise<number> {
  const times: number[] = [];
  for (let run = 0; run < runs; run += 1) times.push(await measure());
  return times.sort((a, b) => a - b)[Math.floor(runs / 2)]!;
}

const percentile = (values: readonly number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]!;
};

/** Milliseconds of `grep -rF -- query folder`, its output read through a pipe as a user would. */
function grep(query: string, folder: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const begin = performance.now();
    const child = spawn('grep', ['-rF', '--', query, folder], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    child.stdout.on('data', () => undefined);
    child.once('error', reject);
    child.once('close', () => resolve(performance.now() - begin));
  });
}

async function memoryOf(pid: number): Promise<{ rssMb: number; peakMb: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const kib = (name: string) =>
    Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? Number.NaN);
  return { rssMb: kib('VmRSS') / 1024, peakMb: kib('VmHWM') / 1024 };
}

/** Milliseconds per line of the live transcript's durable append, and per fold of the library's. */
async function lineWriteCosts(folder: string): Promise<{ perLine: number; perFold: number }> {
  const lines = 300;
  const foldLines = 30;
  const store = await TranscriptStore.open(join(folder, 'class_transcript.txt'));
  const random = seeded(11);
  const texts = Array.from({ length: lines }, () => lectureLine(random, COURSES[0]!));
  let begin = performance.now();
  for (const text of texts) await store.append(text);
  const perLine = (performance.now() - begin) / lines;
  const entries = (await store.read()).entries;
  await store.close();
  const classFolder = join(folder, 'class');
  await mkdir(classFolder);
  await writeClassTranscript(classFolder, { headerLines: [], summary: '', entries: [] });
  begin = performance.now();
  for (let start = 0; start < lines; start += foldLines) {
    await appendClassEntries(classFolder, entries.slice(start, start + foldLines));
  }
  const perFold = (performance.now() - begin) / (lines / foldLines);
  return { perLine, perFold };
}

/**
 * Starts the backend on a data folder and waits until its library lists `classes` classes with
 * the index up to date: milliseconds to the first answer and to that.
 */
async function startBackend(
  dataDir: string,
  settingsFile: string,
  classes: number,
): Promise<{ child: ChildProcess; base: string; healthyMs: number; readyMs: number }> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const began = performance.now();
  const child = spawn(
    process.execPath,
    [BIN, '--port', String(port), '--data-dir', dataDir, '--settings-file', settingsFile],
    { stdio: 'ignore' },
  );
  let healthyMs = 0;
  for (;;) {
    const answer = await fetch(`${base}/api/classes?limit=1`)
      .then((response) => response.json() as Promise<{ total: number; indexing: unknown }>)
      .catch(() => undefined);
    if (answer && healthyMs === 0) healthyMs = performance.now() - began;
    if (answer?.total === classes && answer.indexing === null) break;
    if (performance.now() - began > 3_600_000) throw new Error('the index was never built');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { child, base, healthyMs, readyMs: performance.now() - began };
}

async function stopBackend(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

async function main(): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), 'class-assistant-library-bench-'));
  const dataDir = join(root, 'data');
  const classesDir = join(dataDir, 'classes');
  let backend: ChildProcess | undefined;
  const rows: string[][] = [];
  try {
    await mkdir(join(root, 'line-costs'), { recursive: true });
    const writes = await lineWriteCosts(join(root, 'line-costs'));
    const generated = performance.now();
    const term = await writeTerm(classesDir);
    const generateS = (performance.now() - generated) / 1000;
    await writeFile(join(root, '.env'), 'ASR_MODE=mock\nLOG_LEVEL=warn\nHISTORY_FOLD_ENTRIES=0\n');

    // The backend's memory with an empty library, for comparison.
    const empty = await startBackend(join(root, 'empty-data'), join(root, '.env'), 0);
    const emptyMemory = await memoryOf(empty.child.pid!);
    await stopBackend(empty.child);

    // 1. The backend builds its index from the class folders; then starts again on it.
    const built = await startBackend(dataDir, join(root, '.env'), CLASSES);
    backend = built.child;
    const base = built.base;
    const buildS = built.readyMs / 1000;
    const healthyMs = built.healthyMs;
    const memory = await memoryOf(backend.pid!);
    const database = join(dataDir, 'library.db');
    const databaseBytes =
      (await stat(database)).size + ((await stat(`${database}-wal`).catch(() => null))?.size ?? 0);

    // 2. Search: through the API while the backend runs, then in process, then grep.
    const sets = sampleQueries(term.samples, seeded(7));
    const http = new Map<string, number[]>();
    for (const set of sets) {
      // Warm, as for the index in process below: the first run of a query reads its pages.
      for (const query of set.queries) {
        await (await fetch(`${base}/api/search?q=${encodeURIComponent(query)}&limit=20`)).json();
      }
      const times: number[] = [];
      for (const query of set.queries) {
        times.push(
          await medianOf(RUNS, async () => {
            const begin = performance.now();
            const response = await fetch(
              `${base}/api/search?q=${encodeURIComponent(query)}&limit=20`,
            );
            await response.json();
            if (response.status !== 200) throw new Error(`search ${query}: ${response.status}`);
            return performance.now() - begin;
          }),
        );
      }
      http.set(set.label, times);
    }
    await stopBackend(backend);
    backend = undefined;
    const restarted = await startBackend(dataDir, join(root, '.env'), CLASSES);
    backend = restarted.child;
    const restartedMemory = await memoryOf(backend.pid!);
    await stopBackend(backend);
    backend = undefined;

    const { index } = LibraryIndex.open(database);
    const engine = new Map<string, { times: number[]; hits: number[] }>();
    for (const set of sets) {
      for (const query of set.queries) index.search(parseQuery(query), { limit: 20 }); // warm
      const times: number[] = [];
      const hits: number[] = [];
      for (const query of set.queries) {
        hits.push(index.search(parseQuery(query), { limit: 20 }).length);
        times.push(
          await medianOf(RUNS, () => {
            const begin = performance.now();
            index.search(parseQuery(query), { limit: 20 });
            return performance.now() - begin;
          }),
        );
      }
      engine.set(set.label, { times, hits });
    }
    index.close();
    await grep('预热', classesDir); // the page cache holds the folders, as for the index
    const grepTimes = new Map<string, number[]>();
    for (const set of sets) {
      const times: number[] = [];
      for (const query of set.queries)
        times.push(await medianOf(RUNS, () => grep(query, classesDir)));
      grepTimes.set(set.label, times);
    }

    const fixed = (value: number, digits = 1) => value.toFixed(digits);
    const lines = CLASSES * LINES;
    rows.push(['Index build (backend process, from class folders)', 'value', '', '', '', '']);
    rows.push([
      `term: ${CLASSES} classes x ${LINES} lines, notes for every 5th class`,
      `${fixed(term.bytes / 1048576, 0)} MiB text`,
      '',
      '',
      '',
      '',
    ]);
    rows.push(['start to first answer', `${fixed(healthyMs / 1000, 2)} s`, '', '', '', '']);
    rows.push(['start to index complete', `${fixed(buildS, 1)} s`, '', '', '', '']);
    rows.push(['lines indexed per second', fixed(lines / buildS, 0), '', '', '', '']);
    rows.push([
      'library.db size / text size',
      `${fixed(databaseBytes / 1048576, 0)} MiB / ${fixed(databaseBytes / term.bytes, 2)}x`,
      '',
      '',
      '',
      '',
    ]);
    rows.push([
      'backend RSS after the build (peak)',
      `${fixed(memory.rssMb, 0)} MiB (${fixed(memory.peakMb, 0)})`,
      '',
      '',
      '',
      '',
    ]);
    rows.push([
      'backend RSS with an empty library (baseline)',
      `${fixed(emptyMemory.rssMb, 0)} MiB`,
      '',
      '',
      '',
      '',
    ]);
    rows.push([
      'restart on the built index: start to index checked',
      `${fixed(restarted.readyMs / 1000, 2)} s`,
      '',
      '',
      '',
      '',
    ]);
    rows.push([
      'backend RSS after that restart',
      `${fixed(restartedMemory.rssMb, 0)} MiB`,
      '',
      '',
      '',
      '',
    ]);
    rows.push(['', '', '', '', '', '']);
    rows.push([
      `Search, ${QUERIES} queries each, median of ${RUNS} runs (ms)`,
      'index p50/p99',
      'API p50/p99',
      'grep -rF p50/p99',
      'vs grep p50/p99',
      'hits p50',
    ]);
    for (const set of sets) {
      const ours = engine.get(set.label)!;
      const api = http.get(set.label)!;
      const baseline = grepTimes.get(set.label)!;
      rows.push([
        `${set.label} (e.g. ${set.queries.slice(0, 2).join(', ')})`,
        `${fixed(percentile(ours.times, 0.5), 2)} / ${fixed(percentile(ours.times, 0.99), 2)}`,
        `${fixed(percentile(api, 0.5), 2)} / ${fixed(percentile(api, 0.99), 2)}`,
        `${fixed(percentile(baseline, 0.5), 0)} / ${fixed(percentile(baseline, 0.99), 0)}`,
        `${fixed(percentile(baseline, 0.5) / percentile(ours.times, 0.5), 0)}x / ${fixed(percentile(baseline, 0.99) / percentile(ours.times, 0.99), 0)}x`,
        String(percentile(ours.hits, 0.5)),
      ]);
    }
    rows.push(['', '', '', '', '', '']);
    const row = (...cells: string[]) => rows.push([...cells, '', '', '', ''].slice(0, 6));
    row('Line writes (ms)', 'value', 'vs live line');
    row('live transcript: append + fdatasync, per line', fixed(writes.perLine, 3), '1.00x');
    row('library, in the line path, per line', '0', '0.00x');
    row('library: append + fdatasync per fold of 30 lines', fixed(writes.perFold, 3));
    row(
      '  the same per line (in the background, before the fold)',
      fixed(writes.perFold / 30, 3),
      `${fixed(writes.perFold / 30 / writes.perLine, 2)}x`,
    );
    rows.push(['', '', '', '', '', '']);
    rows.push([
      `(generating the term's folders took ${fixed(generateS, 0)} s; not measured above)`,
      '',
      '',
      '',
      '',
      '',
    ]);
  } finally {
    if (backend && backend.exitCode === null) backend.kill('SIGKILL');
    await rm(root, { recursive: true, force: true });
  }
  printTable(`@class-assistant/server library benchmark (node ${process.version})`, rows);
}

await main();
