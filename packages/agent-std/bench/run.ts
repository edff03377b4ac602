// pnpm --filter @class-assistant/agent-std bench
// Prints ratios against baselines measured in the same run; asserts nothing.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createToolbox, resolveToolPolicy, STD_TOOLS } from '../src/index.ts';

const context = { policy: resolveToolPolicy(), signal: new AbortController().signal };
const toolbox = createToolbox({ uses: ['std.text', 'std.math', 'std.regex'] });

/** Mean time per call in nanoseconds over `iterations` awaited calls, after a warm-up. */
async function perCall(iterations: number, run: () => Promise<unknown>): Promise<number> {
  for (let index = 0; index < Math.min(iterations, 20_000); index++) await run();
  const rounds: number[] = [];
  for (let round = 0; round < 5; round++) {
    const started = process.hrtime.bigint();
    for (let index = 0; index < iterations; index++) await run();
    rounds.push(Number(process.hrtime.bigint() - started) / iterations);
  }
  rounds.sort((a, b) => a - b);
  return rounds[2] as number; // median of five rounds
}

/** Time of one synchronous or asynchronous run in milliseconds (median of `times`). */
async function once(times: number, run: () => unknown): Promise<number> {
  const samples: number[] = [];
  for (let index = 0; index < times; index++) {
    const started = performance.now();
    await run();
    samples.push(performance.now() - started);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)] as number;
}

const rows: Array<[string, string, string]> = [];
const ns = (value: number) => `${value.toFixed(0)} ns`;
const ms = (value: number) =>
  value < 1 ? `${(value * 1000).toFixed(0)} µs` : `${value.toFixed(1)} ms`;

// 1. Per-call overhead of the toolbox (lookup, `uses` check, zod validation, dispatch).
const upperDirect = await perCall(200_000, () =>
  STD_TOOLS.text_upper.execute({ text: 'hello world' }, context),
);
const upperToolbox = await perCall(200_000, () =>
  toolbox.call('text_upper', { text: 'hello world' }),
);
const upperModel = await perCall(200_000, () =>
  toolbox.callForModel('text_upper', '{"text":"hello world"}'),
);
rows.push(['text_upper: handler called directly', ns(upperDirect), '1.00x (baseline)']);
rows.push([
  'text_upper: toolbox.call',
  ns(upperToolbox),
  `${(upperToolbox / upperDirect).toFixed(2)}x`,
]);
rows.push([
  'text_upper: toolbox.callForModel (JSON string)',
  ns(upperModel),
  `${(upperModel / upperDirect).toFixed(2)}x`,
]);
const calcDirect = await perCall(100_000, () =>
  STD_TOOLS.math_calc.execute({ expression: '(1.5 + 2) * 4 / -3' }, context),
);
const calcToolbox = await perCall(100_000, () =>
  toolbox.call('math_calc', { expression: '(1.5 + 2) * 4 / -3' }),
);
rows.push(['math_calc: handler called directly', ns(calcDirect), '1.00x (baseline)']);
rows.push([
  'math_calc: toolbox.call',
  ns(calcToolbox),
  `${(calcToolbox / calcDirect).toFixed(2)}x`,
]);
rows.push([
  'toolbox overhead per call (validation + dispatch)',
  ns(upperToolbox - upperDirect),
  '',
]);

// 2. The regex tool on a catastrophic pattern vs a native RegExp on a safe input of the same length.
const length = 100_000;
const catastrophic = `${'a'.repeat(length - 1)}b`;
const safe = 'a'.repeat(length);
const nativeSafe = await once(21, () => /(a+)+$/.test(safe));
const toolCatastrophic = await once(5, () =>
  toolbox.call('regex_match', { pattern: '(a+)+$', text: catastrophic }),
);
const toolSafe = await once(5, () =>
  toolbox.call('regex_match', { pattern: '(a+)+$', text: safe }),
);
rows.push([
  `native RegExp /(a+)+$/, safe input (${length} chars)`,
  ms(nativeSafe),
  '1.00x (baseline)',
]);
rows.push([
  `regex_match (a+)+$, safe input (${length} chars)`,
  ms(toolSafe),
  `${(toolSafe / nativeSafe).toFixed(1)}x`,
]);
rows.push([
  `regex_match (a+)+$, catastrophic input (${length} chars)`,
  ms(toolCatastrophic),
  `${(toolCatastrophic / nativeSafe).toFixed(1)}x`,
]);
// What a backtracking engine does with the catastrophic input: exponential in its length.
for (const small of [20, 22, 24]) {
  const input = `${'a'.repeat(small)}b`;
  const native = await once(1, () => /(a+)+$/.test(input));
  const tool = await once(3, () => toolbox.call('regex_match', { pattern: '(a+)+$', text: input }));
  rows.push([`native RegExp /(a+)+$/, catastrophic input (${small + 1} chars)`, ms(native), '']);
  rows.push([`regex_match (a+)+$, catastrophic input (${small + 1} chars)`, ms(tool), '']);
}

// 3. The JSON tools on a document of many numbers, and math_calc on small and big integers.
const numbers = JSON.stringify(
  Array.from({ length: 20_000 }, (_, index) => ({ id: index, price: index / 7, big: 2 ** 60 })),
);
const jsonToolbox = createToolbox({ uses: ['std.json'] });
const nativeJson = await once(21, () => JSON.stringify(JSON.parse(numbers), null, 2));
const toolJson = await once(21, () => jsonToolbox.call('json_parse', { text: numbers }));
rows.push([
  `JSON.parse + JSON.stringify (${(numbers.length / 1024).toFixed(0)} KiB, 60000 numbers)`,
  ms(nativeJson),
  '1.00x (baseline)',
]);
rows.push(['json_parse, same text', ms(toolJson), `${(toolJson / nativeJson).toFixed(2)}x`]);
const bigProduct = Array(200).fill('99999999999999999999').join(' * ');
const bigOutcome = await toolbox.call('math_calc', { expression: bigProduct }).then(
  () => '',
  (error: unknown) => (error instanceof Error ? error.message : String(error)),
);
const calcBig = await once(21, () =>
  toolbox.call('math_calc', { expression: bigProduct }).catch(() => undefined),
);
rows.push(['math_calc: 200 factors of 20 digits', ms(calcBig), bigOutcome]);

// 4. shell_exec: one short command, in the sandbox (when one is available) and without it.
const shellRoot = await mkdtemp(join(tmpdir(), 'agent-std-bench-'));
try {
  const shellToolbox = (unsandboxed: boolean) =>
    createToolbox({
      uses: ['std.shell'],
      policy: { fs: { root: shellRoot }, shell: { enabled: true, unsandboxed } },
    });
  const plain = shellToolbox(true);
  const shellPlain = await once(31, () => plain.call('shell_exec', { command: 'echo hi' }));
  rows.push(['shell_exec "echo hi", unsandboxed', ms(shellPlain), '1.00x (baseline)']);
  const sandboxed = shellToolbox(false);
  const available = await sandboxed.call('shell_exec', { command: 'true' }).then(
    () => true,
    (error: unknown) => error,
  );
  if (available === true) {
    const shellSandboxed = await once(31, () =>
      sandboxed.call('shell_exec', { command: 'echo hi' }),
    );
    rows.push([
      'shell_exec "echo hi", in the sandbox',
      ms(shellSandboxed),
      `${(shellSandboxed / shellPlain).toFixed(2)}x`,
    ]);
  } else {
    rows.push(['shell_exec in the sandbox: not available here', '', String(available)]);
  }
} finally {
  await rm(shellRoot, { recursive: true, force: true });
}

const widths = [0, 1, 2].map((column) =>
  Math.max(
    ...rows.map((row) => row[column]?.length ?? 0),
    ['case', 'time', 'ratio'][column]?.length ?? 0,
  ),
);
const line = (cells: string[]) =>
  cells
    .map((cell, column) =>
      column === 0 ? cell.padEnd(widths[0] ?? 0) : cell.padStart(widths[column] ?? 0),
    )
    .join('  ');
console.log(
  `agent-std benchmarks (Node ${process.version}, ${process.platform}/${process.arch})\n`,
);
console.log(line(['case', 'time', 'ratio']));
console.log(line(widths.map((width) => '-'.repeat(width))));
for (const row of rows) console.log(line(row));
