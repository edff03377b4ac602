// pnpm --filter @class-assistant/agent-std bench:import
// What importing the library costs an npm user: each case imports a module in a fresh Node
// process (as `node -e 'await import(…)'` would) and reports the time of that import, median of
// many runs, the cases interleaved (in a rotating order) so that a busy machine slows them
// alike. The library is measured as published: built to JavaScript (tsup, without type
// declarations) first.
// Prints ratios against importing zod alone (the library's one required dependency); asserts
// nothing.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const packageFolder = fileURLToPath(new URL('..', import.meta.url));
// Inside the package, so that `zod`, `openai`, … resolve from its node_modules as for a user.
const work = mkdtempSync(join(packageFolder, 'node_modules', '.bench-import-'));
const RUNS = Number(process.env.BENCH_RUNS ?? 25);

try {
  execFileSync(
    'pnpm',
    ['exec', 'tsup', '--no-dts', '--no-sourcemap', '--silent', '--out-dir', join(work, 'dist')],
    { cwd: packageFolder, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const probe = join(work, 'probe.mjs');
  writeFileSync(
    probe,
    [
      'const started = performance.now();',
      'await import(process.argv[2]);',
      'process.stdout.write(String(performance.now() - started));',
      '',
    ].join('\n'),
  );
  const dist = (file: string) => new URL(`file://${join(work, 'dist', file)}`).href;
  const cases: Array<[string, string]> = [
    ['zod', 'zod'],
    ['createToolbox (the main entry)', dist('index.js')],
    ['toOpenAITools (./openai)', dist('index-openai.js')],
    ['createMcpServer (./mcp)', dist('index-mcp.js')],
    ['defineAgent (./agent)', dist('index-agent.js')],
    ['the OpenAI SDK alone', 'openai'],
  ];
  const samples = new Map(cases.map(([name]) => [name, [] as number[]]));
  for (let run = 0; run < RUNS; run++) {
    // Each round starts with the next case, so that no case always runs first.
    const round = [...cases.slice(run % cases.length), ...cases.slice(0, run % cases.length)];
    for (const [name, specifier] of round) {
      const output = execFileSync(process.execPath, [probe, specifier], { encoding: 'utf8' });
      samples.get(name)?.push(Number(output));
    }
  }
  const median = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)] as number;
  };
  const baseline = median(samples.get('zod') ?? []);
  console.log(`import in a fresh process, median of ${RUNS} runs (Node ${process.versions.node})`);
  console.log(`${'case'.padEnd(34)}${'time'.padStart(10)}${'ratio'.padStart(20)}`);
  for (const [name] of cases) {
    const time = median(samples.get(name) ?? []);
    const ratio = name === 'zod' ? '1.00x (baseline)' : `${(time / baseline).toFixed(2)}x`;
    console.log(`${name.padEnd(34)}${`${time.toFixed(1)} ms`.padStart(10)}${ratio.padStart(20)}`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
