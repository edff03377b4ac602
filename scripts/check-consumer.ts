// What a user of the published packages gets, checked end to end before a release. Packs the
// server, its three libraries and this machine's libvosk package with pnpm (as `pnpm publish`
// would: prepack builds dist/, workspace versions are written out), then, on each Node.js the
// packages claim — the oldest their `engines` allow and the workspace's own — installs the
// tarballs with plain npm into a project made by `npm init -y` outside the workspace and, from
// there, runs every example of every package, the CLIs, the backend until /api/health
// answers, and its check-native (koffi, libvosk and sherpa-onnx load from the npm install).
//
//   pnpm check:consumer [--keep]     (--keep leaves the temporary folder for a look)
//
// Each check is one named step: SETUP_STEPS run once, NODE_STEPS once per Node.js. A failed step
// does not stop the others, except a prerequisite (packing, installing, starting the backend).
// Add a step to check more of the installed packages; the summary at the end lists every step
// with its outcome and time for each Node.js.
//
// Both Node.js versions come from the `node` npm package (the workspace pins its own the same
// way), installed once into node_modules/.cache/check-consumer/. Everything in a consumer project
// runs with that Node.js first on PATH — so npm installs with it and node-gyp builds addons
// (naudiodon) against its headers — with none of the workspace's node_modules on PATH or
// NODE_PATH, no npm/pnpm variables of the calling script, and no service keys
// (scripts/run-example.ts: examples take their offline path).
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import {
  type ExampleExpectations,
  expectationParts,
  missingOutput,
  offlineEnvironment,
  runExample,
} from './run-example.ts';

const exec = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '..');
/** The published packages, each with examples/ and test/example-output.ts. */
const PACKAGES = ['transcript-core', 'asr-protocol', 'agent-std', 'server'] as const;
/** Output of npm and of the installed programs can be long (npm's build logs). */
const MAX_BUFFER = 64 * 1024 * 1024;

/** The libvosk package npm should install on this machine (see packages/libvosk-*). */
function hostLibvosk(): string {
  if (process.platform === 'darwin') return 'libvosk-darwin-universal';
  return `libvosk-${process.platform}-${process.arch}`;
}

/** One Node.js the installed packages are checked on. */
interface NodeUnderTest {
  /** `22.18.0` */
  version: string;
  /** Why this one is checked, for the log. */
  why: string;
  /** Its `node` binary. */
  binary: string;
  /** The folder whose include/node holds its headers (node-gyp's nodedir), when shipped. */
  headers: string | undefined;
}

/** What the steps that run once share. */
interface Run {
  /** The temporary folder: tarballs/ and one consumer project per Node.js. */
  root: string;
  tarballs: string[];
  nodes: NodeUnderTest[];
}

/** What the steps of one Node.js share. */
interface Install {
  node: NodeUnderTest;
  /** The npm project (`npm init -y`) the tarballs are installed into. */
  app: string;
  /** The settings file and data folder of the backend. */
  backendDir: string;
  /** The environment of everything run in `app`. */
  environment: NodeJS.ProcessEnv;
  tarballs: string[];
  /** The running backend, once started. */
  backend?: { child: ChildProcess; base: string; output: () => string };
}

interface Step<Context> {
  name: string;
  /** The steps after this one need it: when it fails, they do not run (the others still do). */
  prerequisite?: true;
  /** Checks; returns a line or two of detail for the log, or throws what went wrong. */
  run(context: Context): Promise<string | undefined>;
}

function manifest(name: string): {
  engines?: { node?: string };
  peerDependencies?: Record<string, string>;
} {
  const require = createRequire(import.meta.url);
  return require(join(ROOT, 'packages', name, 'package.json'));
}

/** The oldest Node.js every package's `engines.node` allows (`>=22.18` → `22.18.0`). */
function claimedNodeFloor(): { claim: string; version: string } {
  const claims = new Set(PACKAGES.map((name) => manifest(name).engines?.node ?? 'nothing'));
  const [claim] = claims;
  const match = /^>=\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(claim ?? '');
  if (claims.size !== 1 || !match) {
    throw new Error(
      `the packages' engines.node should be one ">=X.Y" for all of them, got ${[...claims].join(', ')}`,
    );
  }
  return { claim: claim!, version: `${match[1]}.${match[2] ?? 0}.${match[3] ?? 0}` };
}

/** The folder inside a `node` npm package that holds include/node (the platform package). */
async function nodeHeaders(nodePackage: string): Promise<string | undefined> {
  const folder = join(nodePackage, 'node_modules');
  const entries = existsSync(folder) ? await readdir(folder) : [];
  return entries
    .map((entry) => join(folder, entry))
    .find((entry) => existsSync(join(entry, 'include', 'node', 'node_api.h')));
}

async function nodeVersion(binary: string): Promise<string> {
  return (await exec(binary, ['--version'])).stdout.trim().replace(/^v/, '');
}

/** The environment of programs run for a consumer on `node`: see the top of this file. */
function consumerEnvironment(node: NodeUnderTest): NodeJS.ProcessEnv {
  const path = (process.env.PATH ?? '')
    .split(delimiter)
    .filter(
      (entry) =>
        isAbsolute(entry) && !entry.startsWith(ROOT) && !entry.includes(`${sep}node_modules`),
    );
  const inherited = Object.entries(process.env).filter(
    // pnpm passes its own configuration as npm_config_* (its node-gyp, node_version 24, …) and
    // NODE (the machine's node); npm reads the user's configuration files itself.
    ([name]) => !/^(npm_|pnpm_|NODE$|NODE_PATH$|INIT_CWD$)/i.test(name),
  );
  return offlineEnvironment({
    ...Object.fromEntries(inherited),
    PATH: [dirname(node.binary), ...path].join(delimiter),
    // node-gyp builds addons (naudiodon) against this Node's headers, not whatever the machine's
    // npm configuration names.
    ...(node.headers ? { npm_config_nodedir: node.headers } : {}),
  });
}

/** `node@VERSION` from the npm registry, installed once into node_modules/.cache. */
async function registryNode(version: string): Promise<{ folder: string; cached: boolean }> {
  const folder = join(ROOT, 'node_modules', '.cache', 'check-consumer', `node-${version}`);
  const binary = join(folder, 'node_modules', 'node', 'bin', 'node');
  if (existsSync(binary) && (await nodeVersion(binary)) === version) {
    return { folder, cached: true };
  }
  await rm(folder, { recursive: true, force: true });
  await mkdir(folder, { recursive: true });
  await writeFile(join(folder, 'package.json'), '{ "private": true }\n');
  // npm runs on the Node.js running this script.
  const running = { version: process.versions.node, why: '', binary: process.execPath };
  await exec('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', `node@${version}`], {
    cwd: folder,
    env: consumerEnvironment({ ...running, headers: undefined }),
    maxBuffer: MAX_BUFFER,
    timeout: 600_000,
  });
  const installed = await nodeVersion(binary);
  if (installed !== version) throw new Error(`node@${version} installed Node.js ${installed}`);
  return { folder, cached: false };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  await new Promise((done) => server.close(done));
  return port;
}

async function health(base: string): Promise<Record<string, unknown> | undefined> {
  try {
    const response = await fetch(`${base}/api/health`);
    return response.ok ? ((await response.json()) as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Runs `npx ARGS` in the consumer project, never installing a missing package (`--yes=false`). */
async function npx(install: Install, args: string[]): Promise<string> {
  const { stdout } = await exec('npx', ['--yes=false', ...args], {
    cwd: install.app,
    env: install.environment,
    maxBuffer: MAX_BUFFER,
    timeout: 120_000,
  });
  return stdout;
}

const seconds = (started: number) => `${((Date.now() - started) / 1000).toFixed(1)} s`;

const SETUP_STEPS: Step<Run>[] = [
  {
    name: 'pack the server, its libraries and the libvosk package of this machine (pnpm pack)',
    prerequisite: true,
    async run(run) {
      const folder = join(run.root, 'tarballs');
      const packages = [...PACKAGES, hostLibvosk()];
      // Side by side: each pack's build (prepack) waits on its own files more than on a core.
      await Promise.all(
        packages.map((name) =>
          exec('pnpm', ['pack', '--pack-destination', folder], {
            cwd: join(ROOT, 'packages', name),
            maxBuffer: MAX_BUFFER,
          }),
        ),
      );
      run.tarballs = (await readdir(folder))
        .filter((file) => file.endsWith('.tgz'))
        .map((file) => join(folder, file));
      if (run.tarballs.length !== packages.length) {
        throw new Error(`expected ${packages.length} tarballs, got ${run.tarballs.join(', ')}`);
      }
      return run.tarballs.map((file) => file.slice(folder.length + 1)).join(', ');
    },
  },
  {
    name: 'the Node.js versions: the oldest the packages claim and the workspace’s, from the `node` npm package',
    prerequisite: true,
    async run(run) {
      const floor = claimedNodeFloor();
      const pinned = (
        JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as {
          devDependencies: Record<string, string>;
        }
      ).devDependencies.node;
      if (!pinned || !/^\d+\.\d+\.\d+$/.test(pinned)) {
        throw new Error(`the root package.json should pin "node" to a version, not ${pinned}`);
      }
      const wanted = [
        { version: floor.version, why: `the oldest engines.node allows (${floor.claim})` },
        { version: pinned, why: 'the workspace’s (the `node` devDependency)' },
      ].filter(
        (node, index, all) => all.findIndex((other) => other.version === node.version) === index,
      );
      for (const { version, why } of wanted) {
        const { folder, cached } = await registryNode(version);
        const nodePackage = join(folder, 'node_modules', 'node');
        run.nodes.push({
          version,
          why: `${why}; node@${version} ${cached ? 'cached in' : 'installed into'} ${relative(ROOT, folder)}`,
          binary: join(nodePackage, 'bin', 'node'),
          headers: await nodeHeaders(nodePackage),
        });
      }
      return run.nodes.map((node) => `Node.js ${node.version}: ${node.why}`).join('\n    ');
    },
  },
];

/** Runs the examples the installed package ships, copied out as its README says. */
function examplesStep(name: (typeof PACKAGES)[number]): Step<Install> {
  return {
    name: `${name}: every example, copied out of node_modules as the README says, prints what test/example-output.ts lists`,
    async run(install) {
      const installed = join(install.app, 'node_modules', '@class-assistant', name);
      const readme = await readFile(join(installed, 'README.md'), 'utf8');
      const copy = new RegExp(
        `^cp -r node_modules/@class-assistant/${name}/examples ([\\w.-]+)$`,
        'm',
      ).exec(readme);
      if (!copy) {
        throw new Error(
          `the installed README does not say how to copy the examples out of node_modules (\`cp -r node_modules/@class-assistant/${name}/examples FOLDER\`)`,
        );
      }
      const folder = copy[1]!;
      await cp(join(installed, 'examples'), join(install.app, folder), { recursive: true });
      const { EXAMPLE_OUTPUT } = (await import(
        pathToFileURL(join(ROOT, 'packages', name, 'test', 'example-output.ts')).href
      )) as { EXAMPLE_OUTPUT: ExampleExpectations };
      const shipped = (await readdir(join(install.app, folder)))
        .filter((file) => /\.[cm]?[jt]s$/.test(file))
        .sort();
      const listed = Object.keys(EXAMPLE_OUTPUT).sort();
      if (shipped.join() !== listed.join()) {
        throw new Error(
          `the package ships the examples ${shipped.join(', ')}; test/example-output.ts lists ${listed.join(', ')}`,
        );
      }
      const problems: string[] = [];
      const times: string[] = [];
      for (const [file, expectation] of Object.entries(EXAMPLE_OUTPUT)) {
        const { stdin, stdout } = expectationParts(expectation);
        const started = Date.now();
        const result = await runExample(install.app, join(folder, file), {
          node: install.node.binary,
          environment: install.environment,
          stdin,
        });
        times.push(`${file} ${seconds(started)}`);
        const command = `node ${folder}/${file}`;
        if (result.code !== 0) {
          problems.push(
            `${command} exited with ${result.code ?? result.signal}:\n${result.stderr}`,
          );
          continue;
        }
        const missing = missingOutput(result.stdout, stdout);
        if (missing.length > 0) {
          problems.push(
            `${command} did not print:\n  ${missing.join('\n  ')}\nIt printed:\n${result.stdout}`,
          );
        }
      }
      if (problems.length > 0) throw new Error(problems.join('\n'));
      return `${folder}/: ${times.join(', ')}`;
    },
  };
}

const NODE_STEPS: Step<Install>[] = [
  {
    name: 'npm init -y, then npm install the tarballs and the optional peers the READMEs name',
    prerequisite: true,
    async run(install) {
      await mkdir(install.app, { recursive: true });
      const options = {
        cwd: install.app,
        env: install.environment,
        maxBuffer: MAX_BUFFER,
        timeout: 600_000,
      };
      const node = (await exec('node', ['--version'], options)).stdout.trim();
      if (node !== `v${install.node.version}`) {
        throw new Error(`"node" in the consumer project is ${node}, not v${install.node.version}`);
      }
      const npm = (await exec('npm', ['--version'], options)).stdout.trim();
      await exec('npm', ['init', '-y'], options);
      const peers = PACKAGES.flatMap((name) =>
        Object.entries(manifest(name).peerDependencies ?? {}).map(
          ([peer, range]) => `${peer}@${range}`,
        ),
      );
      await exec(
        'npm',
        ['install', '--no-audit', '--no-fund', '--loglevel=error', ...install.tarballs, ...peers],
        options,
      );
      const installed = await readdir(join(install.app, 'node_modules', '@class-assistant'));
      if (!installed.includes(hostLibvosk())) {
        throw new Error(
          `npm did not install @class-assistant/${hostLibvosk()} (got ${installed.join(', ')})`,
        );
      }
      const naudiodon = existsSync(
        join(install.app, 'node_modules', 'naudiodon', 'build', 'Release', 'naudiodon.node'),
      );
      return [
        `npm ${npm} on Node.js ${node}, node-gyp headers: ${install.node.headers ?? "npm's default"}`,
        `node_modules/@class-assistant: ${installed.join(', ')}; peers: ${peers.join(', ')}`,
        `naudiodon (optional, built by node-gyp): ${naudiodon ? 'built' : 'not built'}`,
      ].join('\n    ');
    },
  },
  ...PACKAGES.map(examplesStep),
  {
    name: 'npx class-asr --help',
    async run(install) {
      const help = await npx(install, ['class-asr', '--help']);
      if (!/^Usage: class-asr /m.test(help)) throw new Error(`no usage line in:\n${help}`);
      return help.split('\n')[0];
    },
  },
  {
    name: 'npx class-agent --help',
    async run(install) {
      const help = await npx(install, ['class-agent', '--help']);
      if (!/^Usage:\n {2}class-agent run /m.test(help)) {
        throw new Error(`no usage of class-agent run in:\n${help}`);
      }
      return help.split('\n')[0];
    },
  },
  {
    name: 'npx class-agent check on the agent script of the installed README (research.agent)',
    async run(install) {
      const readme = await readFile(
        join(install.app, 'node_modules', '@class-assistant', 'agent-std', 'README.md'),
        'utf8',
      );
      const script = /^```\n(# research\.agent\n[\s\S]*?)^```$/m.exec(readme)?.[1];
      if (script === undefined) {
        throw new Error('no code block starting with "# research.agent" in the README');
      }
      await writeFile(join(install.app, 'research.agent'), script);
      const report = (await npx(install, ['class-agent', 'check', 'research.agent'])).trim();
      if (!report.startsWith('research.agent: ok')) throw new Error(`check said: ${report}`);
      return report;
    },
  },
  {
    name: 'start the installed class-assistant-backend on a free port',
    prerequisite: true,
    async run(install) {
      const port = await freePort();
      const base = `http://127.0.0.1:${port}`;
      const settings = join(install.backendDir, '.env');
      await mkdir(install.backendDir, { recursive: true });
      await writeFile(settings, 'ASR_MODE=mock\n');
      let output = '';
      const child = spawn(
        join(install.app, 'node_modules', '.bin', 'class-assistant-backend'),
        [
          '--port',
          String(port),
          '--settings-file',
          settings,
          '--data-dir',
          join(install.backendDir, 'data'),
        ],
        { cwd: install.app, env: install.environment, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      const collect = (chunk: Buffer) => {
        output += chunk.toString();
      };
      child.stdout.on('data', collect);
      child.stderr.on('data', collect);
      install.backend = { child, base, output: () => output };
      const started = Date.now();
      while (!(await health(base))) {
        if (child.exitCode !== null) {
          throw new Error(`the backend exited (${child.exitCode}):\n${output}`);
        }
        if (Date.now() - started > 30_000) {
          throw new Error(`no answer from ${base} in 30 s:\n${output}`);
        }
        await new Promise((done) => setTimeout(done, 200));
      }
      // Its start-up log line names the Node.js it runs on (node=v… pretty, "node":"v…" as JSON).
      const version = install.node.version.replaceAll('.', '\\.');
      if (!new RegExp(`(node=|"node":")v${version}\\b`).test(output)) {
        throw new Error(`the backend did not log that it runs on Node.js ${install.node.version}:
${output}`);
      }
      return `${base}, on Node.js ${install.node.version}`;
    },
  },
  {
    name: '/api/health reports libvosk (vosk) available from the npm install',
    async run(install) {
      if (!install.backend) throw new Error('no backend was started');
      const body = (await health(install.backend.base)) as {
        audio: { native_modules: Array<{ name: string; available: boolean; detail: string }> };
      };
      const modules = body.audio.native_modules;
      const find = (name: string) => modules.find((module) => module.name === name);
      const vosk = find('vosk');
      const koffi = find('koffi');
      if (!vosk?.available) throw new Error(`vosk is not available: ${vosk?.detail}`);
      if (!koffi?.available) throw new Error(`koffi is not available: ${koffi?.detail}`);
      const expected = join(install.app, 'node_modules', '@class-assistant', hostLibvosk());
      if (!vosk.detail.startsWith(expected)) {
        throw new Error(`libvosk was found outside the installed ${hostLibvosk()}: ${vosk.detail}`);
      }
      const naudiodon = find('naudiodon');
      return [
        `vosk: ${vosk.detail}`,
        `naudiodon: ${naudiodon?.available ? naudiodon.detail : `not available (${naudiodon?.detail})`}`,
      ].join('\n    ');
    },
  },
  {
    name: 'npx class-assistant-backend check-native: sherpa-onnx-node and its platform package, installed by npm, load (Silero VAD)',
    async run(install) {
      const platformPackage = `sherpa-onnx-${process.platform === 'win32' ? 'win' : process.platform}-${process.arch}`;
      const modules = join(install.app, 'node_modules');
      for (const name of ['sherpa-onnx-node', platformPackage]) {
        if (!existsSync(join(modules, name, 'package.json'))) {
          throw new Error(`npm did not install ${name} into ${modules}`);
        }
      }
      // Loaded by the installed server's own loader (loadSherpaOnnx), which then runs the Silero
      // VAD the package ships in assets/ over a second of silence.
      let output: string;
      try {
        output = await npx(install, ['class-assistant-backend', 'check-native']);
      } catch (error) {
        // Exit code 1 when one piece does not load: its lines still say which.
        output = (error as { stdout?: string }).stdout ?? '';
        if (!output) throw error;
      }
      const sherpa = output.split('\n').find((line) => line.startsWith('ok   sherpa-onnx: '));
      if (!sherpa) throw new Error(`sherpa-onnx did not load:\n${output}`);
      if (!sherpa.includes(join(modules, platformPackage, 'sherpa-onnx.node'))) {
        throw new Error(`sherpa-onnx was loaded from elsewhere than ${modules}: ${sherpa}`);
      }
      return sherpa.slice('ok   '.length);
    },
  },
];

/** Stops the backend a step started: SIGTERM, then SIGKILL after 10 s. */
async function stopBackend(install: Install): Promise<void> {
  const child = install.backend?.child;
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((done) => child.once('exit', done));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

/** One row of the summary: a step, and its outcome once or per Node.js. */
interface Outcome {
  step: string;
  /** By Node.js version, or under '' for a step that runs once. */
  results: Map<string, string>;
}

async function runSteps<Context>(
  steps: Step<Context>[],
  context: Context,
  label: string,
  outcomes: Outcome[],
): Promise<boolean> {
  let failed = false;
  let blocked = false;
  for (const step of steps) {
    let outcome = outcomes.find((row) => row.step === step.name);
    if (!outcome) {
      outcome = { step: step.name, results: new Map() };
      outcomes.push(outcome);
    }
    if (blocked) {
      outcome.results.set(label, 'not run');
      continue;
    }
    const started = Date.now();
    const prefix = label ? `[Node.js ${label}] ` : '';
    try {
      const detail = await step.run(context);
      outcome.results.set(label, `✓ ${seconds(started)}`);
      process.stdout.write(
        `✓ ${prefix}${step.name} (${seconds(started)})${detail ? `\n    ${detail}` : ''}\n`,
      );
    } catch (error) {
      failed = true;
      blocked = step.prerequisite === true;
      outcome.results.set(label, `✗ ${seconds(started)}`);
      const reason = error as Error & { stderr?: string };
      process.stdout.write(
        `✗ ${prefix}${step.name}\n    ${reason.message}${reason.stderr ? `\n${reason.stderr}` : ''}\n`,
      );
    }
  }
  return !failed;
}

/** The outcomes as a table: the steps run once, then a column per Node.js. */
function summary(outcomes: Outcome[], labels: string[], started: number): string {
  const table = (header: string[], rows: string[][]) => {
    const widths = header.map((_, column) =>
      Math.max(...[header, ...rows].map((row) => row[column]!.length)),
    );
    // The step's name, the widest cell, comes last.
    return [header, ...rows].map((row) =>
      row
        .map((cell, column) => (column < row.length - 1 ? cell.padEnd(widths[column]!) : cell))
        .join('  '),
    );
  };
  const once = outcomes.filter((outcome) => outcome.results.has(''));
  const perNode = outcomes.filter((outcome) => !outcome.results.has(''));
  return [
    '',
    'summary',
    ...table(
      ['once', 'step'],
      once.map((outcome) => [outcome.results.get('')!, outcome.step]),
    ),
    '',
    ...(perNode.length > 0
      ? table(
          [...labels.map((label) => `Node.js ${label}`), 'step'],
          perNode.map((outcome) => [
            ...labels.map((label) => outcome.results.get(label) ?? 'not run'),
            outcome.step,
          ]),
        )
      : []),
    `total ${seconds(started)}`,
    '',
  ].join('\n');
}

async function main(): Promise<number> {
  const started = Date.now();
  const keep = process.argv.includes('--keep');
  const root = await mkdtemp(join(tmpdir(), 'class-assistant-consumer-'));
  const run: Run = { root, tarballs: [], nodes: [] };
  const outcomes: Outcome[] = [];
  let passed = await runSteps(SETUP_STEPS, run, '', outcomes);
  try {
    // Each Node.js in its own folders, on its own free port: the two run side by side (npm's
    // downloads and node-gyp's build of one overlap the other's), each step's line labelled.
    const results = await Promise.all(
      (passed ? run.nodes : []).map(async (node) => {
        const install: Install = {
          node,
          app: join(root, `consumer-node-${node.version}`),
          backendDir: join(root, `backend-node-${node.version}`),
          environment: consumerEnvironment(node),
          tarballs: run.tarballs,
        };
        try {
          return await runSteps(NODE_STEPS, install, node.version, outcomes);
        } finally {
          await stopBackend(install);
        }
      }),
    );
    passed = passed && results.every(Boolean);
  } finally {
    if (keep) process.stdout.write(`kept ${root}\n`);
    else await rm(root, { recursive: true, force: true });
  }
  process.stdout.write(
    summary(
      outcomes,
      run.nodes.map((node) => node.version),
      started,
    ),
  );
  process.stdout.write(passed ? 'check:consumer passed\n' : 'check:consumer failed\n');
  return passed ? 0 : 1;
}

process.exitCode = await main();
