// Models of separate files fetched from several hosts in order, over real loopback sockets: a host
// that refuses connections, answers 503 or serves another file hands over to the next one (the
// switch is told in the progress, in Chinese and English), a half-downloaded file resumes on the
// next host, a file without a published checksum needs the student's explicit OK, and listing the
// catalogue (API and CLI) connects to nothing.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { LiveEvent } from '../src/events/event-hub.ts';
import { OFFICIAL_MODEL_CATALOGUE } from '../src/models/model-catalogue.ts';
import { createModelManager, type ModelEvent } from '../src/models/model-manager.ts';
import { MODEL_INFO_FILE } from '../src/models/model-store.ts';
import { runModelsCli } from '../src/models/models-cli.ts';
import { filesEntry, testSource } from './support/catalogue-entries.ts';
import { createHarness, type Harness, waitFor } from './support/harness.ts';
import { type ModelServer, startModelServer } from './support/model-server.ts';

const hosts: ModelServer[] = [];
const servers: Server[] = [];
const folders: string[] = [];
let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  for (const host of hosts.splice(0)) await host.close();
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
  for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
});

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');
const FOLDER = 'sherpa-onnx-test-zh-en';

/** Bytes that differ everywhere (a splice of two files cannot hash right by chance). */
function bytes(size: number, seed: number): Buffer {
  const out = Buffer.alloc(size);
  for (let index = 0; index < size; index += 32) {
    createHash('sha256').update(`${seed}:${index}`).digest().copy(out, index);
  }
  return out;
}

/** The files of a made-up sherpa-onnx model (tokens.txt beside an .onnx graph). */
const MODEL = {
  'model.int8.onnx': bytes(1_500_000, 1),
  'tokens.txt': Buffer.from('<blk> 0\n你 1\n好 2\n'),
};

async function dataFolder(): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), 'model-sources-'));
  folders.push(folder);
  return join(folder, 'data');
}

/** A host serving the model's files under `/<name>/resolve/rev/`. */
async function host(name: string, files: Record<string, Buffer> = MODEL): Promise<ModelServer> {
  const server = await startModelServer(`/${name}/resolve/rev`);
  hosts.push(server);
  for (const [file, content] of Object.entries(files)) server.put(file, content);
  return server;
}

/** A loopback port nothing listens on (connections are refused). */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A loopback server that only counts the connections made to it. */
async function countingServer(): Promise<{ port: number; connections: () => number }> {
  let count = 0;
  const server = createServer((socket) => {
    count++;
    socket.destroy();
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as { port: number }).port, connections: () => count };
}

const LABELS = {
  first: { zh: '官方源', en: 'the official host' },
  second: { zh: 'ModelScope', en: 'ModelScope' },
};

function entry(firstBase: string, secondBase: string, digests?: Record<string, string | null>) {
  return filesEntry(MODEL, {
    id: 'test-sherpa',
    name: FOLDER,
    sources: [
      testSource('official', firstBase, LABELS.first),
      testSource('modelscope', secondBase, LABELS.second),
    ],
    ...(digests ? { digests } : {}),
  });
}

async function expectInstalled(dataDir: string, source: string) {
  const folder = join(dataDir, 'models', FOLDER);
  for (const [file, content] of Object.entries(MODEL)) {
    expect(sha256(await readFile(join(folder, file)))).toBe(sha256(content));
  }
  const info = JSON.parse(await readFile(join(folder, MODEL_INFO_FILE), 'utf8'));
  expect(info).toMatchObject({ id: 'test-sherpa', engine: 'sherpa', source });
  // Nothing is left in the download area.
  expect(await readdir(join(dataDir, 'models', '.download'))).toEqual([]);
}

describe('a model of separate files from several sources', () => {
  it('moves on from a host that refuses connections, says so in both languages, and installs', async () => {
    const live = await host('live');
    const dataDir = await dataFolder();
    const events: ModelEvent[] = [];
    const manager = createModelManager({
      dataDir,
      catalogue: [entry(`http://127.0.0.1:${await deadPort()}/dead/resolve/rev`, live.baseUrl)],
      onEvent: (event) => events.push(event),
    });
    await manager.prepare();
    expect(await manager.start({ id: 'test-sherpa' })).toMatchObject({ state: 'started' });
    await waitFor(() => events.find((event) => event.type === 'installed'));
    expect(events.find((event) => event.type === 'failed')).toBeUndefined();
    const switched = events.find((event) => event.type === 'progress' && event.notice);
    expect(switched).toMatchObject({
      source: { id: 'modelscope', label: LABELS.second },
      notice: {
        zh: '官方源无法连接，正在改用 ModelScope…',
        en: 'The official host cannot be reached; switching to ModelScope…',
      },
    });
    // The source that worked serves the remaining files too: each file asked for once.
    expect(live.requests.map((request) => request.path).sort()).toEqual([
      '/live/resolve/rev/model.int8.onnx',
      '/live/resolve/rev/tokens.txt',
    ]);
    await expectInstalled(dataDir, 'modelscope');
  });

  it('moves on from a host answering 503, and from one serving another file of the same size', async () => {
    for (const failure of ['503', 'wrong file'] as const) {
      const live = await host('live');
      const dataDir = await dataFolder();
      const events: ModelEvent[] = [];
      const broken =
        failure === '503'
          ? await unavailableBase()
          : (await host('first', { ...MODEL, 'model.int8.onnx': bytes(1_500_000, 2) })).baseUrl;
      const manager = createModelManager({
        dataDir,
        catalogue: [entry(broken, live.baseUrl)],
        onEvent: (event) => events.push(event),
      });
      await manager.prepare();
      await manager.start({ id: 'test-sherpa' });
      await waitFor(() => events.find((event) => event.type !== 'progress'));
      expect(events.at(-1)?.type).toBe('installed');
      const notice = events.find((event) => event.type === 'progress' && event.notice);
      expect(notice).toMatchObject({
        notice:
          failure === '503'
            ? {
                zh: '官方源返回了 HTTP 503，正在改用 ModelScope…',
                en: 'The official host answered HTTP 503; switching to ModelScope…',
              }
            : {
                zh: '官方源提供的文件与校验值不符（已删除），正在改用 ModelScope…',
                en: 'The official host served a file that does not match its pinned size or checksum (deleted); switching to ModelScope…',
              },
      });
      await expectInstalled(dataDir, 'modelscope');
      for (const server of hosts.splice(0)) await server.close();
    }
  });

  it('moves on from a host that goes silent, and from a name that does not resolve', async () => {
    const silent = await host('silent');
    silent.stallNext('model.int8.onnx', 1000, 10);
    const live = await host('live');
    const port = new URL(live.baseUrl).port;
    const resolved: string[] = [];
    const dataDir = await dataFolder();
    const notices: string[] = [];
    const manager = createModelManager({
      dataDir,
      catalogue: [
        filesEntry(MODEL, {
          id: 'test-sherpa',
          name: FOLDER,
          sources: [
            testSource('official', `http://models.unknown.test:${port}/x`, LABELS.first),
            testSource('hf-mirror', silent.baseUrl, { zh: 'hf-mirror', en: 'hf-mirror' }),
            testSource(
              'modelscope',
              `http://models.modelscope.test:${port}/live/resolve/rev`,
              LABELS.second,
            ),
          ],
        }),
      ],
      stallMs: 300,
      network: {
        // A resolver that knows one made-up name, and only ever answers loopback.
        async resolve(hostname) {
          resolved.push(hostname);
          if (hostname === 'models.modelscope.test') return ['127.0.0.1'];
          if (hostname === '127.0.0.1') return ['127.0.0.1'];
          throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), {
            code: 'ENOTFOUND',
          });
        },
      },
    });
    await manager.prepare();
    await manager.pull(
      { id: 'test-sherpa' },
      { onSource: (_source, notice) => notice && notices.push(notice.en) },
    );
    expect(notices).toEqual([
      'The official host cannot be reached; switching to hf-mirror…',
      'hf-mirror stalled; switching to ModelScope…',
    ]);
    expect(resolved).toContain('models.unknown.test');
    await expectInstalled(dataDir, 'modelscope');
  }, 30_000);

  it('fails with one error naming every source and why when all of them fail, installing nothing', async () => {
    const wrong = await host('wrong', { ...MODEL, 'model.int8.onnx': bytes(1_500_000, 3) });
    const deadBase = `http://127.0.0.1:${await deadPort()}/dead/resolve/rev`;
    const dataDir = await dataFolder();
    const manager = createModelManager({ dataDir, catalogue: [entry(deadBase, wrong.baseUrl)] });
    await manager.prepare();
    const error = await manager.pull({ id: 'test-sherpa' }).then(
      () => undefined,
      (failure: unknown) => failure as { code: string; message: string; localized: unknown },
    );
    expect(error?.code).toBe('MODEL_NETWORK_FAILED');
    // What to do in words; the addresses and what each answered behind "details".
    expect(error?.message).toBe(
      'model.int8.onnx could not be downloaded from any source (the official host cannot be reached; ModelScope served a file that does not match its pinned size or checksum (deleted)). Check the network and try again, or pick another source; what arrived is kept and the next try resumes it.',
    );
    expect(error?.localized).toMatchObject({
      zh: expect.stringContaining('官方源无法连接；ModelScope提供的文件与校验值不符'),
    });
    const technical = (error as unknown as { details: { technical: string } }).details.technical;
    expect(technical).toContain(`${deadBase}/model.int8.onnx: connect ECONNREFUSED`);
    expect(technical).toContain(`${wrong.baseUrl}/model.int8.onnx`);
    expect(existsSync(join(dataDir, 'models', FOLDER))).toBe(false);
    expect(await manager.installed()).toEqual([]);
    // The wrong file was deleted; nothing half-made is taken for a model.
    const staged = await readdir(join(dataDir, 'models', '.download', FOLDER)).catch(() => []);
    expect(staged).not.toContain('model.int8.onnx');
    expect(staged).not.toContain('model.int8.onnx.part');
  });

  it('tells the failure of every source in both languages in the model.failed event', async () => {
    const dead = `http://127.0.0.1:${await deadPort()}`;
    harness = await createHarness({
      env: ['ASR_MODE=local'],
      options: { modelCatalogue: [entry(`${dead}/a`, `${dead}/b`)] },
    });
    const events: LiveEvent[] = [];
    harness.app.classAssistant.hub.subscribe((event) => events.push(event));
    await harness.request({
      method: 'POST',
      url: '/api/models/download',
      payload: { id: 'test-sherpa' },
    });
    const failed = await waitFor(
      () => events.find((event) => event.name === 'model.failed'),
      30_000,
    );
    expect(failed.data).toMatchObject({
      code: 'MODEL_NETWORK_FAILED',
      messages: {
        zh: '无法连接模型下载站点：model.int8.onnx 没能从任何下载源取得（官方源无法连接；ModelScope无法连接）。请检查网络后重试，或换一个下载源；已下载的部分会保留，下次从这里续传。',
        en: 'Cannot reach the model download site: model.int8.onnx could not be downloaded from any source (the official host cannot be reached; ModelScope cannot be reached). Check the network and try again, or pick another source; what arrived is kept and the next try resumes it.',
      },
    });
    // The system's own words, for "details" only.
    const { technical } = failed.data as { technical: string };
    expect(technical).toMatch(new RegExp(`^${dead}/a/model.int8.onnx: .*ECONNREFUSED`, 'm'));
    expect(technical).toMatch(new RegExp(`^${dead}/b/model.int8.onnx: .*ECONNREFUSED`, 'm'));
  }, 40_000);

  it('tells the failure of a model with one source in Chinese too: a missing file, a refused connection', async () => {
    const empty = await host('empty', {});
    const dead = `http://127.0.0.1:${await deadPort()}`;
    const single = (id: string, base: string) =>
      filesEntry(MODEL, {
        id,
        name: `${FOLDER}-${id}`,
        sources: [testSource('official', base, LABELS.first)],
      });
    harness = await createHarness({
      env: ['ASR_MODE=local'],
      options: { modelCatalogue: [single('missing', empty.baseUrl), single('refused', dead)] },
    });
    const events: LiveEvent[] = [];
    harness.app.classAssistant.hub.subscribe((event) => events.push(event));
    const failure = async (id: string) => {
      await harness!.request({ method: 'POST', url: '/api/models/download', payload: { id } });
      const failed = await waitFor(
        () =>
          events.find(
            (event) => event.name === 'model.failed' && (event.data as { id: string }).id === id,
          ),
        30_000,
      );
      return failed.data as {
        code: string;
        messages: { zh: string; en: string } | null;
        technical: string | null;
      };
    };
    const missing = await failure('missing');
    expect(missing.code).toBe('MODEL_NETWORK_FAILED');
    expect(missing.messages?.zh).toBe(
      `没能下载 ${empty.baseUrl}/model.int8.onnx：服务器上没有这个文件（HTTP 404）。请检查网络（或 MODELS_BASE_URL）后重试；已下载的部分会保留并续传。`,
    );
    expect(missing.messages?.en).toContain('the server has no such file (HTTP 404)');
    const refused = await failure('refused');
    // A site that cannot be reached is said in words; the system's own behind "details".
    const site = new URL(dead).host;
    expect(refused.messages).toEqual({
      zh: `无法连接模型下载站点（${site}）。请检查网络后重试，或换一个下载源；已下载的部分会保留并续传。`,
      en: `Cannot reach the model download site (${site}). Check the network and try again, or pick another source; what arrived so far is kept and the download resumes.`,
    });
    expect(refused.technical).toMatch(new RegExp(`^${dead}/model.int8.onnx: .*ECONNREFUSED`));
  }, 60_000);

  it('resumes a file cut half-way by a host that then goes away on the next host, with a Range request', async () => {
    const first = await host('first');
    const live = await host('live');
    const half = 700_000;
    // The first host sends half of the graph, then stops answering altogether.
    first.cutNext('model.int8.onnx', half, 1, () => void first.close());
    const dataDir = await dataFolder();
    const manager = createModelManager({
      dataDir,
      catalogue: [entry(first.baseUrl, live.baseUrl)],
    });
    await manager.prepare();
    const sources: string[] = [];
    await manager.pull(
      { id: 'test-sherpa' },
      { onSource: (source, notice) => sources.push(`${source.id}:${notice?.en ?? ''}`) },
    );
    expect(sources).toEqual([
      'official:',
      'modelscope:The official host cannot be reached; switching to ModelScope…',
    ]);
    const resumed = live.requests.find((request) => request.path.endsWith('model.int8.onnx'));
    expect(resumed?.range).toBe(`bytes=${half}-`);
    await expectInstalled(dataDir, 'modelscope');
  });

  it('resumes a half-downloaded file on the next attempt with a Range request', async () => {
    const live = await host('live');
    live.throttle(1_000_000);
    const dataDir = await dataFolder();
    const manager = createModelManager({ dataDir, catalogue: [entry(live.baseUrl, live.baseUrl)] });
    await manager.prepare();
    const stop = new AbortController();
    await expect(
      manager.pull(
        { id: 'test-sherpa' },
        {
          signal: stop.signal,
          onProgress: (received) => {
            if (received >= 300_000) stop.abort();
          },
        },
      ),
    ).rejects.toMatchObject({ code: 'MODEL_DOWNLOAD_CANCELLED' });
    const kept = await readdir(join(dataDir, 'models', '.download', FOLDER));
    expect(kept).toContain('model.int8.onnx.part');
    live.throttle(0);
    const before = live.requests.length;
    await manager.pull({ id: 'test-sherpa' });
    const again = live.requests.slice(before);
    const graph = again.find((request) => request.path.endsWith('model.int8.onnx'));
    expect(graph?.range).toMatch(/^bytes=\d+-$/);
    expect(Number(/\d+/.exec(graph!.range!)![0])).toBeGreaterThanOrEqual(300_000);
    await expectInstalled(dataDir, 'official');
  });

  it('uses the source the student picks first', async () => {
    const first = await host('first');
    const live = await host('live');
    harness = await createHarness({
      env: ['ASR_MODE=local'],
      options: { modelCatalogue: [entry(first.baseUrl, live.baseUrl)] },
    });
    const events: LiveEvent[] = [];
    harness.app.classAssistant.hub.subscribe((event) => events.push(event));
    const unknown = await harness.request({
      method: 'POST',
      url: '/api/models/download',
      payload: { id: 'test-sherpa', source: 'elsewhere' },
    });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json()).toMatchObject({
      code: 'MODEL_SOURCE_UNKNOWN',
      message: 'test-sherpa 没有名为“elsewhere”的下载源；可选：official, modelscope。',
    });
    // Slow enough to look at the download while it runs.
    live.throttle(1_000_000);
    const started = await harness.request({
      method: 'POST',
      url: '/api/models/download',
      payload: { id: 'test-sherpa', source: 'modelscope' },
    });
    expect(started.json()).toMatchObject({ state: 'started' });
    const running = await waitFor(async () => {
      const list = (await harness!.request({ url: '/api/models' })).json();
      return list.items[0].downloading?.source ? list.items[0].downloading : undefined;
    });
    expect(running).toMatchObject({
      source: 'modelscope',
      source_label: LABELS.second,
      notice: null,
      total_bytes: MODEL['model.int8.onnx'].length + MODEL['tokens.txt'].length,
    });
    await waitFor(() => events.find((event) => event.name === 'model.installed'), 30_000);
    expect(first.requests).toEqual([]);
    expect(live.requests).toHaveLength(2);
    const progress = events.find((event) => event.name === 'model.progress');
    expect(progress?.data).toMatchObject({ source: 'modelscope', source_label: LABELS.second });
  });

  it('tries MODELS_BASE_URL first, as <base>/<folder>/<file>', async () => {
    const mirror = await startModelServer('/models');
    hosts.push(mirror);
    for (const [file, content] of Object.entries(MODEL)) mirror.put(`${FOLDER}/${file}`, content);
    const counting = await countingServer();
    const dataDir = await dataFolder();
    const base = `http://127.0.0.1:${counting.port}/hf/resolve/rev`;
    const manager = createModelManager({
      dataDir,
      catalogue: [entry(base, base)],
      baseUrl: () => mirror.baseUrl,
    });
    await manager.prepare();
    await manager.pull({ id: 'test-sherpa' });
    expect(mirror.requests.map((request) => request.path).sort()).toEqual([
      `/models/${FOLDER}/model.int8.onnx`,
      `/models/${FOLDER}/tokens.txt`,
    ]);
    expect(counting.connections()).toBe(0);
    await expectInstalled(dataDir, 'mirror');
  });
});

describe('a file without a published checksum', () => {
  it('is refused without the explicit OK (nothing connected) and installs with it', async () => {
    const live = await host('live');
    harness = await createHarness({
      env: ['ASR_MODE=local'],
      options: {
        modelCatalogue: [entry(live.baseUrl, live.baseUrl, { 'model.int8.onnx': null })],
      },
    });
    const listed = (await harness.request({ url: '/api/models' })).json();
    expect(listed.items[0]).toMatchObject({
      unchecked: true,
      files: [
        { name: 'model.int8.onnx', sha256: null, null_why: 'no published value (a test model)' },
        { name: 'tokens.txt', sha256: sha256(MODEL['tokens.txt']) },
      ],
    });
    const refused = await harness.request({
      method: 'POST',
      url: '/api/models/download',
      headers: { 'accept-language': 'en' },
      payload: { id: 'test-sherpa' },
    });
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({
      code: 'MODEL_UNCHECKED',
      field: 'allow_unchecked',
      message: expect.stringContaining(
        'test-sherpa has files without a published SHA-256 (model.int8.onnx: no published value (a test model))',
      ),
    });
    expect(live.requests).toEqual([]);
    const events: LiveEvent[] = [];
    harness.app.classAssistant.hub.subscribe((event) => events.push(event));
    const started = await harness.request({
      method: 'POST',
      url: '/api/models/download',
      payload: { id: 'test-sherpa', allow_unchecked: true },
    });
    expect(started.json()).toMatchObject({ state: 'started' });
    await waitFor(() => events.find((event) => event.name === 'model.installed'));
    const info = JSON.parse(
      await readFile(join(harness.dataDir, 'models', FOLDER, MODEL_INFO_FILE), 'utf8'),
    );
    // What arrived is recorded, and that it was not checked against a published value.
    expect(info.files).toEqual([
      {
        name: 'model.int8.onnx',
        sha256: sha256(MODEL['model.int8.onnx']),
        checked: false,
        url: `${live.baseUrl}/model.int8.onnx`,
      },
      {
        name: 'tokens.txt',
        sha256: sha256(MODEL['tokens.txt']),
        checked: true,
        url: `${live.baseUrl}/tokens.txt`,
      },
    ]);
  });
});

describe('models pull --source', () => {
  it('names the sources of the model when the one asked for is not among them, connecting to nothing', async () => {
    const dataDir = await dataFolder();
    let stderr = '';
    const code = await runModelsCli(
      ['pull', 'sense-voice-small', '--source', 'nowhere', '--data-dir', dataDir],
      {},
      { stdout: { write: () => true }, stderr: { write: (text: string) => (stderr += text) } },
    );
    expect(code).toBe(1);
    expect(stderr).toBe(
      'class-assistant-backend models: sense-voice-small has no source "nowhere"; its sources are huggingface, hf-mirror, modelscope.\n',
    );
  });
});

describe('listing the catalogue', () => {
  it('GET /api/models describes every shipped model in Chinese too, keeping the English field', async () => {
    harness = await createHarness({ env: ['ASR_MODE=local'] });
    const list = (await harness.request({ url: '/api/models' })).json() as {
      items: Array<{ id: string; description: string; descriptions: { zh: string; en: string } }>;
    };
    expect(list.items.map((item) => item.id)).toEqual(
      OFFICIAL_MODEL_CATALOGUE.map((entry) => entry.id),
    );
    for (const item of list.items) {
      expect(item.descriptions.en).toBe(item.description);
      expect(item.descriptions.zh).toMatch(/[\u4e00-\u9fff]/);
      expect(item.descriptions.zh).not.toBe(item.description);
    }
    expect(list.items.find((item) => item.id === 'sense-voice-small')?.descriptions.zh).toBe(
      'SenseVoice-Small（sherpa-onnx）：中文夹英文，带标点，一句一行；推荐',
    );
  });

  it('GET /api/models shows files and sources without connecting to any of them', async () => {
    const counting = await countingServer();
    const base = `http://127.0.0.1:${counting.port}`;
    harness = await createHarness({
      env: ['ASR_MODE=local', `MODELS_BASE_URL=${base}/mirror`],
      options: { modelCatalogue: [entry(`${base}/a/resolve/rev`, `${base}/b/resolve/rev`)] },
    });
    const list = (await harness.request({ url: '/api/models' })).json();
    expect(list.items[0]).toMatchObject({
      id: 'test-sherpa',
      engine: 'sherpa',
      streaming: false,
      recommended: false,
      licence: 'Apache-2.0',
      languages: ['zh', 'en'],
      files: [
        {
          name: 'model.int8.onnx',
          size_bytes: MODEL['model.int8.onnx'].length,
          sha256: sha256(MODEL['model.int8.onnx']),
        },
        { name: 'tokens.txt', size_bytes: MODEL['tokens.txt'].length },
      ],
      sources: [
        {
          id: 'mirror',
          urls: [`${base}/mirror/${FOLDER}/model.int8.onnx`, `${base}/mirror/${FOLDER}/tokens.txt`],
        },
        {
          id: 'official',
          label: LABELS.first,
          urls: [`${base}/a/resolve/rev/model.int8.onnx`, `${base}/a/resolve/rev/tokens.txt`],
        },
        { id: 'modelscope', label: LABELS.second },
      ],
    });
    expect(counting.connections()).toBe(0);
  });

  it('`models list --json` shows the shipped catalogue: SenseVoice recommended, every file pinned, four sources', async () => {
    const counting = await countingServer();
    const dataDir = await dataFolder();
    const settings = join(dataDir, '..', 'settings.env');
    await writeFile(settings, `MODELS_BASE_URL=http://127.0.0.1:${counting.port}/models\n`);
    let stdout = '';
    const code = await runModelsCli(
      ['list', '--json', '--data-dir', dataDir, '--settings-file', settings],
      {},
      { stdout: { write: (text: string) => (stdout += text) }, stderr: { write: () => true } },
    );
    expect(code).toBe(0);
    const listed = JSON.parse(stdout) as {
      items: Array<{
        id: string;
        role: string;
        recommended: boolean;
        streaming: boolean;
        files: Array<{ name: string; size_bytes: number; sha256: string | null }>;
        sources: Array<{ id: string; urls: string[] }>;
      }>;
    };
    expect(listed.items.map((item) => item.id)).toEqual(
      OFFICIAL_MODEL_CATALOGUE.map((item) => item.id),
    );
    const senseVoice = listed.items.find((item) => item.id === 'sense-voice-small')!;
    expect(senseVoice).toMatchObject({ recommended: true, streaming: false });
    expect(senseVoice.files).toEqual([
      {
        name: 'model.int8.onnx',
        size_bytes: 239_233_841,
        sha256: 'c71f0ce00bec95b07744e116345e33d8cbbe08cef896382cf907bf4b51a2cd51',
        sha256_source: expect.stringContaining('2365baeacb507f821a0c8120fcee3d484dba7a07'),
      },
      expect.objectContaining({ name: 'tokens.txt', size_bytes: 315_894 }),
    ]);
    expect(senseVoice.sources.map((source) => source.id)).toEqual([
      'mirror',
      'huggingface',
      'hf-mirror',
      'modelscope',
    ]);
    expect(senseVoice.sources.map((source) => source.urls[0])).toEqual([
      `http://127.0.0.1:${counting.port}/models/sherpa-onnx-sense-voice-zh-en-ja-ko-yue-2024-07-17/model.int8.onnx`,
      'https://huggingface.co/csukuangfj/sherpa-onnx-sense-voice-zh-en-ja-ko-yue-2024-07-17/resolve/2365baeacb507f821a0c8120fcee3d484dba7a07/model.int8.onnx',
      'https://hf-mirror.com/csukuangfj/sherpa-onnx-sense-voice-zh-en-ja-ko-yue-2024-07-17/resolve/2365baeacb507f821a0c8120fcee3d484dba7a07/model.int8.onnx',
      'https://modelscope.cn/models/k2-fsa/sherpa-onnx-sense-voice-zh-en-ja-ko-yue-2024-07-17/resolve/master/model.int8.onnx',
    ]);
    const streaming = listed.items.find((item) => item.id === 'streaming-zipformer-zh-en')!;
    expect(streaming.streaming).toBe(true);
    expect(streaming.files.map((file) => file.name)).toEqual([
      'encoder-epoch-99-avg-1.int8.onnx',
      'decoder-epoch-99-avg-1.onnx',
      'joiner-epoch-99-avg-1.int8.onnx',
      'tokens.txt',
      'bpe.vocab',
    ]);
    const punctuation = listed.items.find((item) => item.id === 'punct-ct-transformer-zh-en')!;
    expect(punctuation).toMatchObject({ role: 'punctuation', streaming: false });
    expect(punctuation.files).toEqual([
      {
        name: 'model.onnx',
        size_bytes: 294_372_519,
        sha256: 'e93593a6dbd69a07f8734ef269dbe861a379755f8d1c8354719432116f2c44bd',
        sha256_source: expect.stringContaining('432aeba669265e7aeb06b9359753419683b38597'),
      },
    ]);
    expect(punctuation.sources.map((source) => source.urls[0])).toEqual([
      `http://127.0.0.1:${counting.port}/models/sherpa-onnx-punct-ct-transformer-zh-en-vocab272727-2024-04-12/model.onnx`,
      'https://huggingface.co/csukuangfj/sherpa-onnx-punct-ct-transformer-zh-en-vocab272727-2024-04-12/resolve/432aeba669265e7aeb06b9359753419683b38597/model.onnx',
      'https://hf-mirror.com/csukuangfj/sherpa-onnx-punct-ct-transformer-zh-en-vocab272727-2024-04-12/resolve/432aeba669265e7aeb06b9359753419683b38597/model.onnx',
      'https://modelscope.cn/models/csukuangfj/sherpa-onnx-punct-ct-transformer-zh-en-vocab272727-2024-04-12/resolve/master/model.onnx',
    ]);
    expect(
      listed.items.filter((item) => item.role !== 'recognizer').map((item) => item.id),
    ).toEqual(['punct-ct-transformer-zh-en']);
    for (const item of listed.items) {
      for (const file of item.files) expect(file.sha256).toMatch(/^[0-9a-f]{64}$/);
    }
    const vosk = listed.items.find((item) => item.id === 'vosk-small-cn')!;
    expect(vosk.sources.map((source) => source.urls)).toEqual([
      [`http://127.0.0.1:${counting.port}/models/vosk-model-small-cn-0.22.zip`],
      ['https://alphacephei.com/vosk/models/vosk-model-small-cn-0.22.zip'],
    ]);
    expect(counting.connections()).toBe(0);
  });
});

describe('the punctuation model', () => {
  it('installs from a loopback host (one model.onnx, no tokens.txt) and is listed as punctuation, in the CLI too', async () => {
    const graph = await readFile(
      join(import.meta.dirname, 'fixtures', 'sherpa', 'punct', 'model.onnx'),
    );
    const name = 'sherpa-onnx-punct-test';
    const live = await host(name, { 'model.onnx': graph });
    const dataDir = await dataFolder();
    const catalogue = [
      {
        ...filesEntry(
          { 'model.onnx': graph },
          {
            id: 'test-punct',
            name,
            sources: [testSource('huggingface', live.baseUrl)],
          },
        ),
        role: 'punctuation' as const,
      },
    ];
    const events: ModelEvent[] = [];
    const manager = createModelManager({
      dataDir,
      catalogue,
      onEvent: (event) => events.push(event),
    });
    await manager.prepare();
    await manager.start({ id: 'test-punct' });
    await waitFor(() => events.find((event) => event.type !== 'progress'));
    expect(events.at(-1)?.type).toBe('installed');
    expect(await readdir(join(dataDir, 'models', name))).toContain('model.onnx');
    expect(await manager.list()).toMatchObject([
      { id: 'test-punct', engine: 'sherpa', role: 'punctuation', installed: true },
    ]);
    await manager.remove(name);
    let stdout = '';
    const code = await runModelsCli(
      ['list', '--data-dir', dataDir, '--settings-file', join(dataDir, '..', 'none.env')],
      {},
      { stdout: { write: (text: string) => (stdout += text) }, stderr: { write: () => true } },
    );
    expect(code).toBe(0);
    expect(stdout).toMatch(/punct-ct-transformer-zh-en .*punctuation \(not a recognizer\)/);
  });
});

/** A loopback host answering 503 to everything. */
async function unavailableBase(): Promise<string> {
  const { createServer: createHttpServer } = await import('node:http');
  const server = createHttpServer((_request, response) => {
    response.writeHead(503, { 'content-type': 'text/plain' }).end('down for maintenance');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  hosts.push({
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  } as ModelServer);
  return `http://127.0.0.1:${(server.address() as { port: number }).port}/down/resolve/rev`;
}
