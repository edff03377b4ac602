// `pnpm bench` (bench/soak.ts): a long mock class, with and without an LLM. The backend runs as
// the bin runs it (bench/soak-backend.ts, a child with --expose-gc) on a scripted lecture looping
// every MOCK_INTERVAL_MS; the LLM is the fake OpenAI-compatible server of agent-std on a loopback
// port, answering each history fold at once. For each class it prints the CPU time per line of
// the last 1,000 lines against the first 1,000, the resident memory after a full collection at
// the last line against line 1,000, and what the class added to the log.
//   BENCH_SOAK_LINES=3000 BENCH_SOAK_INTERVAL_MS=2 pnpm --filter @class-assistant/server exec node bench/soak.ts
import { fork } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createFakeOpenAIServer, type FakeOpenAIServer } from '@class-assistant/agent-std/testing';
import { freePort } from '../test/support/ports.ts';
import type { SoakMessage, SoakSample } from './soak-backend.ts';
import { printTable } from './table.ts';

const LINES = Number(process.env.BENCH_SOAK_LINES ?? 10_000);
const INTERVAL_MS = Number(process.env.BENCH_SOAK_INTERVAL_MS ?? 2);
const WINDOW = 1000;
if (!Number.isInteger(LINES) || LINES < 2 * WINDOW || LINES % WINDOW !== 0) {
  throw new Error(`BENCH_SOAK_LINES must be a multiple of ${WINDOW} of at least ${2 * WINDOW}`);
}
const CHILD = fileURLToPath(new URL('./soak-backend.ts', import.meta.url));

interface SoakResult {
  samples: SoakSample[];
  folds: number;
  foldRequests: number;
}

/** Runs one class of LINES lines on a fresh data folder; `llm` answers its folds when given. */
async function soak(llm: FakeOpenAIServer | undefined): Promise<SoakResult> {
  const root = await mkdtemp(join(tmpdir(), 'class-assistant-soak-'));
  const settingsFile = join(root, '.env');
  const before = llm?.chatRequests.length ?? 0;
  await writeFile(
    settingsFile,
    [
      'ASR_MODE=mock',
      `MOCK_INTERVAL_MS=${INTERVAL_MS}`,
      'MOCK_LOOP=true',
      ...(llm
        ? [`LLM_BASE_URL=${llm.baseURL}`, 'LLM_API_KEY=sk-soak-000000000000', 'LLM_MODEL=soak']
        : ['LLM_API_KEY=']),
      '',
    ].join('\n'),
  );
  const port = await freePort();
  const child = fork(
    CHILD,
    [String(port), settingsFile, join(root, 'data'), String(LINES), String(WINDOW)],
    { execArgv: ['--expose-gc'], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] },
  );
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    const next = <Type extends SoakMessage['type']>(type: Type) =>
      new Promise<Extract<SoakMessage, { type: Type }>>((resolve, reject) => {
        const onMessage = (message: SoakMessage) => {
          if (message.type !== type) return;
          child.off('exit', onExit);
          child.off('message', onMessage);
          resolve(message as Extract<SoakMessage, { type: Type }>);
        };
        const onExit = (code: number | null) =>
          reject(new Error(`the soak backend exited (${code}) before "${type}"`));
        child.on('message', onMessage);
        child.once('exit', onExit);
      });
    const ready = await next('ready');
    const done = next('done');
    const started = await fetch(`${ready.url}/api/start_monitor`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"course_name":"soak"}',
    });
    const answer = (await started.json()) as { status: string };
    if (answer.status !== 'started') throw new Error(`the class did not start: ${answer.status}`);
    const { samples, folds } = await done;
    await fetch(`${ready.url}/api/stop_monitor?with_summary=false`, { method: 'POST' });
    child.send({ type: 'stop' });
    await exited;
    return { samples, folds, foldRequests: (llm?.chatRequests.length ?? 0) - before };
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
    await rm(root, { recursive: true, force: true });
  }
}

const sampleAt = (result: SoakResult, lines: number) => {
  const sample = result.samples.find((candidate) => candidate.lines === lines);
  if (!sample) throw new Error(`no sample at line ${lines}`);
  return sample;
};
/** CPU µs per line of the WINDOW lines ending at `lines`. */
const perLine = (result: SoakResult, lines: number) =>
  (sampleAt(result, lines).cpuMicros - sampleAt(result, lines - WINDOW).cpuMicros) / WINDOW;
const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
const kib = (bytes: number) => (bytes / 1024).toFixed(1);
const ratio = (value: number) => `${value.toFixed(2)}x`;

async function main() {
  const llm = await createFakeOpenAIServer({
    chat: (request) => ({
      type: 'text',
      content: `前面讲了 ${String(request.body.messages?.at(-1)?.content ?? '').split('\n').length} 行内容：链表、栈和队列的基本操作。`,
    }),
  });
  const classes: Array<[string, SoakResult]> = [];
  try {
    classes.push(['no LLM configured', await soak(undefined)]);
    classes.push(['fake LLM on loopback (every fold answered)', await soak(llm)]);
  } finally {
    await llm.close();
  }
  const last = LINES.toLocaleString('en-US');
  const rows: string[][] = [
    [
      'class',
      'CPU µs/line 1-1,000',
      `last 1,000`,
      'last / first',
      'RSS MiB after GC at 1,000',
      `at ${last}`,
      `${last} / 1,000`,
      'log KiB: 2,000 lines',
      `${last} lines`,
      'folds',
    ],
  ];
  for (const [name, result] of classes) {
    const first = perLine(result, WINDOW);
    const end = perLine(result, LINES);
    const start = sampleAt(result, 0).logBytes;
    rows.push([
      name,
      first.toFixed(0),
      end.toFixed(0),
      ratio(end / first),
      mib(sampleAt(result, WINDOW).rssAfterGc),
      mib(sampleAt(result, LINES).rssAfterGc),
      ratio(sampleAt(result, LINES).rssAfterGc / sampleAt(result, WINDOW).rssAfterGc),
      kib(sampleAt(result, 2 * WINDOW).logBytes - start),
      kib(sampleAt(result, LINES).logBytes - start),
      `${result.folds} (${result.foldRequests} asked)`,
    ]);
  }
  printTable(
    `@class-assistant/server soak (node ${process.version}): a mock class of ${last} lines, one every ${INTERVAL_MS} ms, backend CPU and memory`,
    rows,
  );
}

await main();
