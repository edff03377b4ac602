// What the backend loads is what it needs: a started backend has not loaded the API
// documentation (Swagger), the pinyin dictionaries, the recognizers' protocol clients, the
// material parsers, the model unpacker or fastify's default JSON-schema compilers; each loads
// when its feature is first used. Module loading is most of the start-up time and idle memory.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { type BinProcess, spawnBin } from './support/bin-process.ts';
import { waitFor } from './support/harness.ts';
import { buildPptx, lectureSlides } from './support/office-builders.ts';
import { freePort } from './support/ports.ts';

const MODULE_LOG = fileURLToPath(new URL('./support/module-log.ts', import.meta.url));
let started: BinProcess | undefined;
let folder: string | undefined;
afterEach(async () => {
  if (started?.child.exitCode === null) started.child.kill('SIGKILL');
  if (folder) await rm(folder, { recursive: true, force: true });
  started = undefined;
  folder = undefined;
});

/** Packages (or workspace sources) that a backend must not load before they are needed. */
const ON_DEMAND: Record<string, RegExp> = {
  'API documentation': /\/@fastify\/swagger|\/yaml\//,
  'JSON-schema compilers': /\/ajv\/|\/fast-json-stringify\/index\.js|\/@fastify\/ajv-compiler\//,
  'pinyin dictionaries': /\/pinyin-pro\//,
  'recognizer clients':
    /\/asr-protocol\/|\/(stream|dashscope|cloud)-recognizer\.ts|dashscope-client/,
  'material parsers': /\/(unpdf|mammoth|jszip|saxes)\/|extract-(pdf|docx|pptx)/,
  'model unpacker': /\/yauzl\//,
  'LLM client': /\/openai\//,
  'static-file plugin': /\/@fastify\/static\/|\/glob\//,
  'MCP SDK': /\/@modelcontextprotocol\/sdk\//,
  'agent library': /\/agent-std\//,
  'recording decoders': /\/@audio\/decode/,
};

function loadedGroups(urls: readonly string[]): string[] {
  return Object.entries(ON_DEMAND)
    .filter(([, pattern]) => urls.some((url) => pattern.test(url)))
    .map(([name]) => name);
}

describe('modules load on first need', () => {
  it('a started backend loads none of the on-demand features; /docs and a class load theirs', async () => {
    folder = await mkdtemp(join(tmpdir(), 'class-assistant-lazy-'));
    const log = join(folder, 'modules.log');
    // The shipped defaults but the demo mode: homophone matching (pinyin) is on.
    await writeFile(join(folder, '.env'), 'ASR_MODE=mock\nMOCK_INTERVAL_MS=100000\n');
    const port = await freePort();
    started = spawnBin(
      [
        '--port',
        String(port),
        '--env-file',
        join(folder, '.env'),
        '--data-dir',
        join(folder, 'data'),
      ],
      { NODE_OPTIONS: `--import=${MODULE_LOG}`, MODULE_LOG_FILE: log },
    );
    const base = `http://127.0.0.1:${port}`;
    await waitFor(
      () =>
        fetch(`${base}/api/health`).then(
          (response) => response.ok,
          () => false,
        ),
      30_000,
      'the backend to answer',
    );
    const loaded = async () => (await readFile(log, 'utf8')).split('\n').filter(Boolean);
    const atStart = await loaded();
    expect(atStart.some((url) => url.includes('fastify'))).toBe(true);
    expect(loadedGroups(atStart)).toEqual([]);

    expect((await fetch(`${base}/docs`)).status).toBe(200);
    // Swagger UI serves its own assets through the static-file plugin.
    const docs = ['API documentation', 'static-file plugin'];
    expect(loadedGroups(await loaded())).toEqual(docs);

    const start = await fetch(`${base}/api/start_monitor`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ course_name: 'lazy' }),
    });
    expect(((await start.json()) as { status: string }).status).toBe('started');
    const inClass = [...docs, 'pinyin dictionaries'];
    expect(loadedGroups(await loaded()).sort()).toEqual(inClass.sort());

    // The parsers load in the upload's worker thread.
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(await buildPptx(lectureSlides(2)))]), 'l.pptx');
    expect((await fetch(`${base}/api/upload_ppt`, { method: 'POST', body: form })).status).toBe(
      200,
    );
    const withParsers = [...inClass, 'material parsers'];
    expect(loadedGroups(await loaded()).sort()).toEqual(withParsers.sort());

    // The settings panel's MCP group asks for the class tools: agent-std loads, the SDK not yet.
    expect((await fetch(`${base}/api/mcp/connection`)).status).toBe(200);
    expect(loadedGroups(await loaded()).sort()).toEqual([...withParsers, 'agent library'].sort());
  }, 60_000);
});
