// The model manager over real sockets and files: a model host on a loopback port serves made-up
// model archives (the layout of a Vosk model, zipped here); downloads resume, checksums and
// hostile archives are refused with nothing installed, and the local mode uses what is installed.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { LiveEvent } from '../src/events/event-hub.ts';
import type { ModelCatalogueEntry } from '../src/models/model-catalogue.ts';
import { createModelManager } from '../src/models/model-manager.ts';
import { MODEL_INFO_FILE } from '../src/models/model-store.ts';
import { archiveEntry } from './support/catalogue-entries.ts';
import { createHarness, type Harness, waitFor } from './support/harness.ts';
import { type ModelServer, startModelServer } from './support/model-server.ts';
import { speechRecording } from './support/speech.ts';
import { buildZip, fakeVoskModel } from './support/zip-writer.ts';

let harness: Harness | undefined;
let host: ModelServer | undefined;
let mirror: ModelServer | undefined;
const folders: string[] = [];
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  await host?.close();
  host = undefined;
  await mirror?.close();
  mirror = undefined;
  for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
});

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');
const md5 = (data: Buffer) => createHash('md5').update(data).digest('hex');

/** A catalogue entry pinning `archive`, fetched from MODELS_BASE_URL only. */
function entryFor(archive: Buffer, overrides: { sha256?: string } = {}): ModelCatalogueEntry {
  return archiveEntry(archive, {
    id: 'test-small-zh',
    name: 'vosk-model-test-zh',
    file: 'vosk-model-test-zh.zip',
    md5: md5(archive),
    description: 'a made-up Chinese model',
    ...overrides,
  });
}

async function dataFolder(): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), 'models-test-'));
  folders.push(folder);
  return join(folder, 'data');
}

/** Everything in `<data>/models`, dot folders included. */
async function modelsFolderContent(dataDir: string): Promise<string[]> {
  const names = await readdir(join(dataDir, 'models'), { recursive: true }).catch(() => []);
  return names.map(String).sort();
}

describe('downloading a model', () => {
  it('resumes a download cut half-way with a Range request and installs the whole model', async () => {
    const archive = buildZip(fakeVoskModel('vosk-model-test-zh', { fill: 2_000_000, files: 4 }));
    host = await startModelServer();
    host.put('vosk-model-test-zh.zip', archive);
    host.cutNext('vosk-model-test-zh.zip', Math.floor(archive.length / 2));
    const dataDir = await dataFolder();
    const manager = createModelManager({
      dataDir,
      catalogue: [entryFor(archive)],
      baseUrl: () => host!.baseUrl,
    });
    await manager.prepare();
    const progress: number[] = [];
    const model = await manager.pull(
      { id: 'test-small-zh' },
      { onProgress: (got) => progress.push(got) },
    );

    const asked = host.requests.filter((request) => request.path.endsWith('.zip'));
    expect(asked).toHaveLength(2);
    expect(asked[0]!.range).toBeUndefined();
    const resumedFrom = Number(/^bytes=(\d+)-$/.exec(asked[1]!.range ?? '')?.[1]);
    expect(resumedFrom).toBeGreaterThan(0);
    expect(resumedFrom).toBeLessThanOrEqual(Math.floor(archive.length / 2));
    expect(progress.at(-1)).toBe(archive.length);

    expect(model).toMatchObject({
      name: 'vosk-model-test-zh',
      engine: 'vosk',
      language: 'zh',
      id: 'test-small-zh',
      path: join(dataDir, 'models', 'vosk-model-test-zh'),
    });
    expect(await readFile(join(model.path, 'am', 'final.mdl'), 'utf8')).toBe('not a kaldi model\n');
    expect((await readFile(join(model.path, 'graph', 'part-3.bin'))).length).toBe(500_000);
    const info = JSON.parse(await readFile(join(model.path, MODEL_INFO_FILE), 'utf8'));
    expect(info).toMatchObject({ sha256: sha256(archive), id: 'test-small-zh', engine: 'vosk' });
    // Nothing but the model is left: no .part, no lock, no temporary folder.
    expect((await readdir(join(dataDir, 'models'))).sort()).toEqual([
      '.download',
      'vosk-model-test-zh',
    ]);
    expect(await readdir(join(dataDir, 'models', '.download'))).toEqual([]);
  });

  it('refuses a file whose checksum is wrong, installing and keeping nothing', async () => {
    const archive = buildZip(fakeVoskModel('vosk-model-test-zh'));
    host = await startModelServer();
    host.put('vosk-model-test-zh.zip', archive);
    const dataDir = await dataFolder();
    const manager = createModelManager({
      dataDir,
      catalogue: [entryFor(archive, { sha256: sha256(Buffer.from('another file')) })],
      baseUrl: () => host!.baseUrl,
    });
    await manager.prepare();
    await expect(manager.pull({ id: 'test-small-zh' })).rejects.toMatchObject({
      code: 'MODEL_CHECKSUM_MISMATCH',
      message: expect.stringContaining(`SHA-256 ${sha256(archive)} instead of`),
    });
    expect(await modelsFolderContent(dataDir)).toEqual(['.download']);
    expect(await manager.installed()).toEqual([]);
  });

  it('refuses an archive with a ../ entry or a link, writing nothing outside and installing nothing', async () => {
    host = await startModelServer();
    const dataDir = await dataFolder();
    const manager = createModelManager({ dataDir, baseUrl: () => host!.baseUrl });
    await manager.prepare();
    const escaping = buildZip([
      ...fakeVoskModel('escape'),
      { name: 'escape/../../../escaped.txt', data: Buffer.from('outside!') },
    ]);
    const link = buildZip([
      ...fakeVoskModel('linked'),
      { name: 'linked/am/passwords', data: Buffer.from('/etc/passwd'), mode: 0o120777 },
    ]);
    host.put('escape.zip', escaping);
    host.put('linked.zip', link);
    for (const [name, archive, reason] of [
      ['escape', escaping, /escaped\.txt|invalid relative path/],
      ['linked', link, /link or a special file/],
    ] as const) {
      await expect(
        manager.pull({ url: `${host.baseUrl}/${name}.zip`, sha256: sha256(archive), name }),
      ).rejects.toMatchObject({
        code: 'MODEL_ARCHIVE_INVALID',
        message: expect.stringMatching(reason),
      });
    }
    const root = join(dataDir, '..');
    expect(existsSync(join(root, 'escaped.txt'))).toBe(false);
    expect(existsSync(join(dataDir, 'escaped.txt'))).toBe(false);
    expect(existsSync(join(dataDir, 'models', 'escaped.txt'))).toBe(false);
    expect(await modelsFolderContent(dataDir)).toEqual(['.download']);
  });

  it("refuses a mirror's look-alike file by the catalogue's pinned checksum (MODELS_BASE_URL)", async () => {
    const archive = buildZip(fakeVoskModel('vosk-model-test-zh'));
    // Same name, same size, same layout — different bytes.
    const lookAlike = buildZip(fakeVoskModel('vosk-model-test-zh')).fill(0x20, 40, 44);
    expect(lookAlike.length).toBe(archive.length);
    mirror = await startModelServer('/mirror/vosk');
    mirror.put('vosk-model-test-zh.zip', lookAlike);
    harness = await createHarness({
      env: ['ASR_MODE=local', `MODELS_BASE_URL=${mirror.baseUrl}`],
      options: { modelCatalogue: [entryFor(archive)] },
    });
    const events: LiveEvent[] = [];
    harness.app.classAssistant.hub.subscribe((event) => events.push(event));
    const started = await harness.request({
      method: 'POST',
      url: '/api/models/download',
      payload: { id: 'test-small-zh' },
    });
    expect(started.json()).toEqual({
      status: 'success',
      id: 'test-small-zh',
      name: 'vosk-model-test-zh',
      state: 'started',
    });
    const failed = await waitFor(() => events.find((event) => event.name === 'model.failed'));
    expect(failed.data).toMatchObject({
      id: 'test-small-zh',
      code: 'MODEL_CHECKSUM_MISMATCH',
      message: expect.stringContaining(`${mirror.baseUrl}/vosk-model-test-zh.zip`),
    });
    // The class panel shows it in the student's language.
    expect((failed.data as { messages: { zh: string } | null }).messages?.zh).toContain(
      `从 ${mirror.baseUrl}/vosk-model-test-zh.zip 下载的文件不是预期的模型`,
    );
    expect(mirror.requests.map((request) => request.path)).toEqual([
      '/mirror/vosk/vosk-model-test-zh.zip',
    ]);
    const list = (await harness.request({ url: '/api/models' })).json();
    expect(list).toMatchObject({
      base_url: mirror.baseUrl,
      items: [{ id: 'test-small-zh', installed: false, size_bytes: archive.length }],
    });
    expect(await modelsFolderContent(harness.dataDir)).toEqual(['.download']);
  });

  it('checks the free disk space first, and cancels a running download on DELETE', async () => {
    const archive = buildZip(fakeVoskModel('vosk-model-test-zh', { fill: 3_000_000 }));
    host = await startModelServer();
    host.put('vosk-model-test-zh.zip', archive);
    let free = 1024 * 1024;
    harness = await createHarness({
      env: ['ASR_MODE=local', `MODELS_BASE_URL=${host.baseUrl}`],
      options: { modelCatalogue: [entryFor(archive)], modelFreeSpace: async () => free },
    });
    const events: LiveEvent[] = [];
    harness.app.classAssistant.hub.subscribe((event) => events.push(event));
    const download = () =>
      harness!.request({
        method: 'POST',
        url: '/api/models/download',
        payload: { id: 'test-small-zh' },
      });
    await download();
    const full = await waitFor(() => events.find((event) => event.name === 'model.failed'));
    expect(full.data).toMatchObject({
      code: 'MODEL_DISK_SPACE',
      message: expect.stringMatching(/needs about \d+ MB .* and 1 MB are free/),
      messages: { zh: expect.stringMatching(/^磁盘空间不够放这个模型：.*只剩 1 MB/) },
    });
    expect(host.requests).toEqual([]);

    free = 1024 ** 4;
    events.length = 0;
    host.throttle(1_000_000);
    await download();
    const progress = await waitFor(() => events.find((event) => event.name === 'model.progress'));
    expect(progress.data).toMatchObject({ id: 'test-small-zh', total_bytes: archive.length });
    const listed = (await harness.request({ url: '/api/models' })).json();
    expect(listed.items[0]).toMatchObject({
      installed: false,
      downloading: { total_bytes: archive.length },
    });
    const removed = await harness.request({ method: 'DELETE', url: '/api/models/test-small-zh' });
    expect(removed.json()).toEqual({
      status: 'success',
      name: 'test-small-zh',
      removed: false,
      cancelled: true,
    });
    expect(events.find((event) => event.name === 'model.failed')?.data).toMatchObject({
      code: 'MODEL_DOWNLOAD_CANCELLED',
      messages: { zh: `${host.baseUrl}/vosk-model-test-zh.zip 的下载已取消。` },
    });
    expect(await modelsFolderContent(harness.dataDir)).toEqual(['.download']);
    const again = await harness.request({ method: 'DELETE', url: '/api/models/test-small-zh' });
    expect(again.statusCode).toBe(404);
    expect(again.json()).toMatchObject({ code: 'MODEL_NOT_FOUND' });
  });
});

describe('the local mode and installed models', () => {
  it('offers the download when nothing is installed, then uses the model — libvosk refusing a made-up one names its folder', async () => {
    const archive = buildZip(fakeVoskModel('vosk-model-test-zh'));
    host = await startModelServer();
    host.put('vosk-model-test-zh.zip', archive);
    const lecture = await speechRecording([{ text: 'good morning everyone', pauseAfterMs: 1000 }]);
    harness = await createHarness({
      env: [
        'ASR_MODE=local',
        `MODELS_BASE_URL=${host.baseUrl}`,
        `AUDIO_INPUT=file:${lecture.path}`,
      ],
      options: { modelCatalogue: [entryFor(archive)] },
    });
    const before = (await harness.request({ url: '/api/health' })).json();
    expect(before.asr).toMatchObject({
      available: false,
      settings: ['LOCAL_ASR_LANGUAGE', 'VOSK_MODEL_PATH'],
      message: expect.stringContaining('models pull test-small-zh'),
    });
    const events: LiveEvent[] = [];
    harness.app.classAssistant.hub.subscribe((event) => events.push(event));
    await harness.request({
      method: 'POST',
      url: '/api/models/download',
      payload: { id: 'test-small-zh' },
    });
    const installed = await waitFor(() => events.find((event) => event.name === 'model.installed'));
    const folder = join(harness.dataDir, 'models', 'vosk-model-test-zh');
    expect(installed.data).toEqual({
      id: 'test-small-zh',
      name: 'vosk-model-test-zh',
      path: folder,
    });
    expect(events.filter((event) => event.name === 'model.progress').at(-1)?.data).toMatchObject({
      received_bytes: archive.length,
      total_bytes: archive.length,
    });

    const after = (await harness.request({ url: '/api/health' })).json();
    expect(after.asr).toMatchObject({ available: true, message: expect.stringContaining(folder) });
    const refused = await harness.startMonitor();
    expect(refused.statusCode).toBe(503);
    expect(refused.body).toMatchObject({
      code: 'ASR_MODEL_MISSING',
      message: expect.stringContaining(`Vosk could not load the model in ${folder}`),
    });
    expect(refused.body.message).toContain('models remove');
    expect(harness.app.classAssistant.monitor.status().is_monitoring).toBe(false);

    // VOSK_MODEL_PATH still wins over the installed model.
    const own = join(harness.root, 'my-model');
    await mkdir(join(own, 'am'), { recursive: true });
    await writeFile(join(own, 'am', 'final.mdl'), 'mine');
    await harness.request({
      method: 'POST',
      url: '/api/settings',
      payload: { fields: { VOSK_MODEL_PATH: own } },
    });
    expect((await harness.startMonitor()).body).toMatchObject({
      field: 'VOSK_MODEL_PATH',
      message: expect.stringContaining(`Vosk could not load the model in ${own}`),
    });

    // Removing it leaves the local mode without a model again.
    await harness.request({
      method: 'POST',
      url: '/api/settings',
      payload: { fields: { VOSK_MODEL_PATH: '' } },
    });
    const removed = await harness.request({
      method: 'DELETE',
      url: '/api/models/vosk-model-test-zh',
    });
    expect(removed.json()).toMatchObject({ removed: true, cancelled: false });
    expect(existsSync(folder)).toBe(false);
    expect((await harness.request({ url: '/api/health' })).json().asr.available).toBe(false);
  });
});
