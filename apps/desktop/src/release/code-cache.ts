// The packaged backend starts from a V8 code cache made after a real start.
//
// Node's own code cache for a single executable (`useCodeCache`) is made by compiling the script
// without running it, so it holds the top-level code only: every function the backend runs while
// it starts (fastify, zod, the routes) is still compiled at each start. A cache made after a run
// holds those functions too. So the executable's main script is a small loader: it compiles the
// bundle (an asset of the executable) with the cache (another asset) and runs it. The build
// makes the cache by running the same bundle through the same loader code with the target's Node
// — only for a target that runs on the building machine; without a cache the loader compiles as
// Node would. V8 refuses a cache made by another version or for other source, and then compiles
// normally: a stale cache costs time, never correctness.
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { freePort } from './free-port.ts';

/** Asset names of the bundle and its cache inside the backend executable. */
export const BACKEND_ASSETS = { script: 'backend.cjs', cache: 'backend.cache' } as const;

// The bundle is compiled as one function, the way Node wraps a CommonJS module. The cache is
// only accepted for the very same text, so both scripts below build it from these two parts.
const WRAPPER_START = '(function (exports, require, module, __filename, __dirname) {';
const WRAPPER_END = '\n})';

/** What the loader writes on stderr when V8 refuses the cache (the start is only slower). */
export const CACHE_REJECTED =
  'class-assistant-backend: the code cache does not fit this executable; compiling without it';

/** The main script of the backend executable. */
export function backendLoaderSource(): string {
  return `'use strict';
const { getAsset, getRawAsset } = require('node:sea');
const { Script } = require('node:vm');
let cachedData;
try {
  cachedData = new Uint8Array(getRawAsset(${JSON.stringify(BACKEND_ASSETS.cache)}));
} catch {
  // Built for another platform: no cache.
}
const script = new Script(
  ${JSON.stringify(WRAPPER_START)} + getAsset(${JSON.stringify(BACKEND_ASSETS.script)}, 'utf8') + ${JSON.stringify(WRAPPER_END)},
  { filename: ${JSON.stringify(BACKEND_ASSETS.script)}, cachedData },
);
if (cachedData !== undefined && script.cachedDataRejected) {
  process.stderr.write(${JSON.stringify(`${CACHE_REJECTED}
`)});
}
script.runInThisContext()(module.exports, require, module, __filename, __dirname);
`;
}

/**
 * The backend's main script where Node's own binary runs it (the macOS app: an injected binary
 * would lose its signature): the same loader, reading the bundle and its cache (when the build
 * made one) from the files beside it, and telling the backend where it is — its folder for its
 * files, itself for the processes it starts (the audio child, the sherpa engine).
 */
export function appBackendLoaderSource(): string {
  return `'use strict';
const { readFileSync } = require('node:fs');
const { join } = require('node:path');
const { Script } = require('node:vm');
process.env.CLASS_ASSISTANT_BACKEND_DIR = __dirname;
process.env.CLASS_ASSISTANT_BACKEND_SCRIPT = __filename;
let cachedData;
try {
  cachedData = readFileSync(join(__dirname, ${JSON.stringify(BACKEND_ASSETS.cache)}));
} catch {
  // Built on another platform: no cache.
}
const script = new Script(
  ${JSON.stringify(WRAPPER_START)} + readFileSync(join(__dirname, ${JSON.stringify(BACKEND_ASSETS.script)}), 'utf8') + ${JSON.stringify(WRAPPER_END)},
  { filename: ${JSON.stringify(BACKEND_ASSETS.script)}, cachedData },
);
if (cachedData !== undefined && script.cachedDataRejected) {
  process.stderr.write(${JSON.stringify(`${CACHE_REJECTED}
`)});
}
script.runInThisContext()(module.exports, require, module, __filename, __dirname);
`;
}

// Run by the build with the target's Node: <bundle> <cache to write> <base URL> <backend args>.
// Starts the backend as the loader does, asks for what a start asks for (health, the UI and
// what it reads first), then writes the code cache of everything compiled so far.
function trainingSource(paths: readonly string[]): string {
  return `'use strict';
const { readFileSync, writeFileSync } = require('node:fs');
const { Script } = require('node:vm');
const [bundle, output, base] = process.argv.splice(2, 3);
const script = new Script(
  ${JSON.stringify(WRAPPER_START)} + readFileSync(bundle, 'utf8') + ${JSON.stringify(WRAPPER_END)},
  { filename: ${JSON.stringify(BACKEND_ASSETS.script)} },
);
script.runInThisContext()(module.exports, require, module, __filename, __dirname);
(async () => {
  const started = Date.now();
  for (const path of ${JSON.stringify(paths)}) {
    for (;;) {
      const ok = await fetch(base + path).then((response) => response.arrayBuffer().then(() => response.ok), () => false);
      if (ok) break;
      if (Date.now() - started > 60000) throw new Error('the backend did not answer ' + path);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
  writeFileSync(output, script.createCachedData());
  process.exit(0);
})().catch((error) => {
  console.error(error);
  process.exit(1);
});
`;
}

/** What a start asks for: the health check, then the UI's page and first reads. */
const TRAINING_PATHS = [
  '/api/health',
  '/',
  '/api/monitor_status',
  '/api/settings',
  '/api/keywords',
];

/**
 * Makes the code cache of the backend bundle by running it with `nodeBinary` (the target's Node,
 * which must run here) on a free loopback port, with `settings` as its settings file and `uiDir`
 * as its UI, in a temporary data folder.
 */
export async function makeCodeCache(options: {
  nodeBinary: string;
  bundle: string;
  output: string;
  settings: string;
  uiDir: string;
  workDir: string;
}): Promise<void> {
  const folder = await mkdtemp(join(options.workDir, 'code-cache-'));
  try {
    const script = join(folder, 'train.cjs');
    await writeFile(script, trainingSource(TRAINING_PATHS));
    await writeFile(join(folder, '.env'), options.settings);
    const port = await freePort();
    const child = spawn(
      options.nodeBinary,
      [
        script,
        options.bundle,
        options.output,
        `http://127.0.0.1:${port}`,
        '--port',
        String(port),
        '--settings-file',
        join(folder, '.env'),
        '--data-dir',
        join(folder, 'data'),
      ],
      {
        env: { ...process.env, CLASS_ASSISTANT_UI_DIR: options.uiDir },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr = `${stderr}${chunk.toString('utf8')}`.slice(-4000);
    });
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('exit', resolve);
    });
    if (code !== 0) throw new Error(`making the backend's code cache failed (${code}):\n${stderr}`);
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}
