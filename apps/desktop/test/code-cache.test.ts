// The packaged backend's loader: a single executable whose main script compiles the bundle (an
// asset) with the code cache made by a real start (another asset). Built here with this Node, a
// small server as the bundle; a cache made for other source must be refused and the server must
// still start, as it must without any cache.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BACKEND_ASSETS,
  backendLoaderSource,
  CACHE_REJECTED,
  makeCodeCache,
} from '../src/release/code-cache.ts';
import { makeSea } from '../src/release/sea.ts';
import { hostTarget } from '../src/release/targets.ts';
import { freePort, killAll, start, waitFor } from './support/processes.ts';

// Answers every path (the cache is made by asking for the UI's first reads) with what it is.
const server = (name: string) => `'use strict';
const port = Number(process.argv[process.argv.indexOf('--port') + 1]);
require('node:http')
  .createServer((request, response) => response.end(${JSON.stringify(name)} + ' ' + request.url))
  .listen(port, '127.0.0.1');
`;

let work: string;
const executables: Record<'fitting' | 'foreign' | 'none', string> = {
  fitting: '',
  foreign: '',
  none: '',
};

beforeAll(async () => {
  if (!hostTarget()) return;
  work = await mkdtemp(join(tmpdir(), 'desktop-code-cache-'));
  const bundle = join(work, 'server.cjs');
  const other = join(work, 'other-server.cjs');
  await writeFile(bundle, server('the bundled server'));
  await writeFile(other, `${server('another server, longer source')}\n// padding\n`);
  const loader = join(work, 'loader.cjs');
  await writeFile(loader, backendLoaderSource());
  const caches = { fitting: join(work, 'fitting.cache'), foreign: join(work, 'foreign.cache') };
  const made = { settings: 'LOG_LEVEL=warn\n', uiDir: work, workDir: work };
  await makeCodeCache({ nodeBinary: process.execPath, bundle, output: caches.fitting, ...made });
  await makeCodeCache({
    nodeBinary: process.execPath,
    bundle: other,
    output: caches.foreign,
    ...made,
  });
  // One at a time: makeSea quiets postject's warnings on stderr while it injects.
  for (const kind of ['fitting', 'foreign', 'none'] as const) {
    executables[kind] = join(work, `backend-${kind}`);
    await makeSea({
      nodeBinary: process.execPath,
      script: loader,
      output: executables[kind],
      workDir: work,
      windows: false,
      useCodeCache: true,
      assets: {
        [BACKEND_ASSETS.script]: bundle,
        ...(kind === 'none' ? {} : { [BACKEND_ASSETS.cache]: caches[kind] }),
      },
    });
  }
}, 180_000);

afterAll(async () => {
  killAll();
  if (work) await rm(work, { recursive: true, force: true });
});

async function run(kind: keyof typeof executables): Promise<{ answer: string; output: string }> {
  const port = await freePort();
  const running = start(executables[kind], ['--port', String(port)]);
  const answer = await waitFor(
    () =>
      fetch(`http://127.0.0.1:${port}/api/health`).then(
        (response) => response.text(),
        () => undefined,
      ),
    `the ${kind} executable to answer`,
  );
  running.child.kill('SIGKILL');
  await running.exited;
  return { answer, output: running.output() };
}

describe.runIf(hostTarget() !== undefined)('the packaged backend loader', () => {
  it('runs the bundle with the code cache made by a start of that bundle, accepted by V8', async () => {
    const { answer, output } = await run('fitting');
    expect(answer).toBe('the bundled server /api/health');
    expect(output).not.toContain(CACHE_REJECTED);
  });

  it('refuses a cache made for other source, says so once and still runs the bundle', async () => {
    const { answer, output } = await run('foreign');
    expect(answer).toBe('the bundled server /api/health');
    expect(output.split(CACHE_REJECTED).length - 1).toBe(1);
  });

  it('runs the bundle when the executable has no cache (a target built elsewhere)', async () => {
    const { answer, output } = await run('none');
    expect(answer).toBe('the bundled server /api/health');
    expect(output).toBe('');
  });
});
