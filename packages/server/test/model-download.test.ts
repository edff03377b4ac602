// Model downloads over real loopback sockets and real files, against a model host that cuts
// connections, goes silent, or changes the file between two tries.
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import type { ClientRequestArgs } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type DownloadNetwork, downloadFile } from '../src/models/download-file.ts';
import type { ModelCatalogueEntry } from '../src/models/model-catalogue.ts';
import { createModelManager } from '../src/models/model-manager.ts';
import { archiveEntry } from './support/catalogue-entries.ts';
import { type ModelServer, startModelServer } from './support/model-server.ts';

let host: ModelServer | undefined;
const folders: string[] = [];
afterEach(async () => {
  await host?.close();
  host = undefined;
  for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
});

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

async function folder(): Promise<string> {
  const path = await mkdtemp(join(tmpdir(), 'model-download-'));
  folders.push(path);
  return path;
}

/** Bytes that differ everywhere (a splice of two versions cannot hash right by chance). */
function archiveBytes(size: number, seed: number): Buffer {
  const bytes = Buffer.alloc(size);
  for (let index = 0; index < size; index += 32) {
    createHash('sha256').update(`${seed}:${index}`).digest().copy(bytes, index);
  }
  return bytes;
}

describe('a connection cut in the middle of the body', () => {
  it('resumes 50 cut downloads in a row without taking the process down', async () => {
    const archive = archiveBytes(4 * 1024 * 1024, 1);
    host = await startModelServer();
    host.put('model.zip', archive);
    const where = await folder();
    for (let round = 0; round < 50; round++) {
      host.cutNext('model.zip', archive.length / 2);
      const file = await downloadFile({
        url: `${host.baseUrl}/model.zip`,
        destination: join(where, `model-${round}.zip.part`),
      });
      expect(file).toMatchObject({ bytes: archive.length, sha256: sha256(archive), requests: 2 });
      await rm(join(where, `model-${round}.zip.part`));
    }
    expect(await readdir(where)).toEqual([]);
  }, 120_000);
});

describe('a host that goes silent', () => {
  it('gives a try up as stalled after stallMs and resumes it where the bytes stopped', async () => {
    const archive = archiveBytes(300_000, 2);
    host = await startModelServer();
    host.put('model.zip', archive);
    host.stallNext('model.zip', 10);
    const where = await folder();
    const file = await downloadFile({
      url: `${host.baseUrl}/model.zip`,
      destination: join(where, 'model.zip.part'),
      stallMs: 300,
    });
    expect(file).toMatchObject({ bytes: archive.length, sha256: sha256(archive), requests: 2 });
    expect(host.requests.map((request) => request.range)).toEqual([undefined, 'bytes=10-']);
  }, 30_000);

  it('fails `models pull --url` with a "stalled" error after two stalled tries, keeping what came', async () => {
    const archive = archiveBytes(300_000, 3);
    host = await startModelServer();
    host.put('model.zip', archive);
    host.stallNext('model.zip', 10, 10);
    const dataDir = join(await folder(), 'data');
    const manager = createModelManager({ dataDir, stallMs: 300 });
    await manager.prepare();
    await expect(
      manager.pull({ url: `${host.baseUrl}/model.zip`, sha256: sha256(archive), name: 'silent' }),
    ).rejects.toMatchObject({
      code: 'MODEL_NETWORK_FAILED',
      message: expect.stringMatching(/stalled: 2 times no data arrived for 0\.3 s/),
    });
    expect(host.requests).toHaveLength(2);
    expect(await readdir(join(dataDir, 'models', '.download'))).toEqual([
      'silent.zip.part',
      'silent.zip.part.validator',
    ]);
  }, 30_000);
});

describe('resuming a file that changed in between', () => {
  for (const validators of ['etag', 'last-modified'] as const) {
    it(`sends If-Range with the ${validators === 'etag' ? 'ETag' : 'Last-Modified date'} and starts over when the file changed`, async () => {
      const first = archiveBytes(400_000, 4);
      const second = archiveBytes(400_000, 5);
      host = await startModelServer();
      host.validators(validators);
      host.put('model.zip', first);
      host.cutNext('model.zip', 200_000, 1, () => host!.put('model.zip', second));
      const where = await folder();
      const file = await downloadFile({
        url: `${host.baseUrl}/model.zip`,
        destination: join(where, 'model.zip.part'),
      });
      expect(file).toMatchObject({ bytes: second.length, sha256: sha256(second), requests: 2 });
      const [, resumed] = host.requests;
      expect(host.requests).toHaveLength(2);
      expect(resumed?.range).toMatch(/^bytes=\d+-$/);
      expect(resumed?.ifRange).toBe(
        validators === 'etag'
          ? `"v1-${first.length}"`
          : new Date(Date.UTC(2026, 0, 1, 0, 0, 1)).toUTCString(),
      );
      expect(await readdir(where)).toEqual(['model.zip.part']);
    });
  }

  it('sends a plain Range when the server gave no validator', async () => {
    const archive = archiveBytes(400_000, 6);
    host = await startModelServer();
    host.validators('none');
    host.put('model.zip', archive);
    host.cutNext('model.zip', 200_000);
    const where = await folder();
    const file = await downloadFile({
      url: `${host.baseUrl}/model.zip`,
      destination: join(where, 'model.zip.part'),
    });
    expect(file).toMatchObject({ sha256: sha256(archive), requests: 2 });
    expect(host.requests[1]).toMatchObject({ range: expect.stringMatching(/^bytes=\d+-$/) });
    expect(host.requests[1]?.ifRange).toBeUndefined();
  });

  it('remembers the validator across runs: a part left by a stopped download is not spliced', async () => {
    const first = archiveBytes(400_000, 7);
    const second = archiveBytes(400_000, 8);
    host = await startModelServer();
    host.put('model.zip', first);
    host.throttle(400_000);
    const where = await folder();
    const destination = join(where, 'model.zip.part');
    const stop = new AbortController();
    await expect(
      downloadFile({
        url: `${host.baseUrl}/model.zip`,
        destination,
        signal: stop.signal,
        onProgress: (received) => {
          if (received >= 100_000) stop.abort();
        },
      }),
    ).rejects.toMatchObject({ code: 'MODEL_DOWNLOAD_CANCELLED' });
    host.throttle(0);
    host.put('model.zip', second);
    const file = await downloadFile({ url: `${host.baseUrl}/model.zip`, destination });
    expect(file).toMatchObject({ bytes: second.length, sha256: sha256(second) });
    expect(host.requests[1]?.ifRange).toBe(`"v1-${first.length}"`);
  });
});

describe('a try that gets no byte', () => {
  it('leaves no empty .part file behind', async () => {
    host = await startModelServer();
    host.put('model.zip', archiveBytes(1000, 9));
    host.stallNext('model.zip', 0, 2);
    const where = await folder();
    await expect(
      downloadFile({
        url: `${host.baseUrl}/missing.zip`,
        destination: join(where, 'missing.zip.part'),
      }),
    ).rejects.toMatchObject({
      code: 'MODEL_NETWORK_FAILED',
      message: expect.stringContaining('HTTP 404'),
    });
    await expect(
      downloadFile({
        url: `${host.baseUrl}/model.zip`,
        destination: join(where, 'model.zip.part'),
        stallMs: 300,
      }),
    ).rejects.toMatchObject({ message: expect.stringContaining('stalled') });
    expect(await readdir(where)).toEqual([]);
  }, 30_000);
});

/** A resolver of made-up names and a connector that records every connection and opens it on loopback only. */
function fakeNetwork(names: Record<string, string[]>) {
  const resolved: string[] = [];
  const connections: string[] = [];
  const network: DownloadNetwork = {
    async resolve(hostname) {
      resolved.push(hostname);
      const addresses = names[hostname];
      if (!addresses) throw new Error(`no such test host ${hostname}`);
      return addresses;
    },
    createConnection(options: ClientRequestArgs) {
      connections.push(`${options.host}:${options.port}`);
      // Whatever the address, the connection stays on this machine.
      return connect({ host: '127.0.0.1', port: Number(options.port) });
    },
  };
  return { network, resolved, connections };
}

function catalogueEntry(archive: Buffer): ModelCatalogueEntry {
  return archiveEntry(archive, {
    id: 'test-model',
    name: 'vosk-model-test',
    file: 'model.zip',
    language: 'en',
  });
}

describe('addresses a download may not reach', () => {
  it('refuses a MODELS_BASE_URL whose name resolves to a link-local address, before connecting', async () => {
    const archive = archiveBytes(1000, 10);
    host = await startModelServer();
    host.put('model.zip', archive);
    const port = new URL(host.baseUrl).port;
    const fake = fakeNetwork({ 'models.school.test': ['169.254.169.254'] });
    const dataDir = join(await folder(), 'data');
    const manager = createModelManager({
      dataDir,
      catalogue: [catalogueEntry(archive)],
      baseUrl: () => `http://models.school.test:${port}/vosk/models`,
      network: fake.network,
    });
    await manager.prepare();
    await expect(manager.pull({ id: 'test-model' })).rejects.toMatchObject({
      code: 'MODEL_ADDRESS_REFUSED',
      message: expect.stringContaining('link-local or cloud-metadata'),
    });
    expect(fake.resolved).toEqual(['models.school.test']);
    expect(fake.connections).toEqual([]);
    expect(host.requests).toEqual([]);
    expect(await readdir(join(dataDir, 'models', '.download'))).toEqual([]);
  });

  it('refuses a metadata address written in MODELS_BASE_URL at once, and keeps a mirror on this machine', async () => {
    const archive = archiveBytes(1000, 11);
    host = await startModelServer();
    host.put('model.zip', archive);
    let base = 'http://metadata.google.internal/vosk/models';
    const fake = fakeNetwork({});
    const manager = createModelManager({
      dataDir: join(await folder(), 'data'),
      catalogue: [catalogueEntry(archive)],
      baseUrl: () => base,
      network: fake.network,
    });
    await manager.prepare();
    await expect(manager.start({ id: 'test-model' })).rejects.toMatchObject({
      code: 'MODEL_ADDRESS_REFUSED',
      details: { field: 'MODELS_BASE_URL' },
    });
    expect(fake.resolved).toEqual([]);
    expect(fake.connections).toEqual([]);
    // A loopback (or private-network) mirror the user typed is fine; unpacking these bytes is not.
    base = host.baseUrl;
    await expect(manager.pull({ id: 'test-model' })).rejects.toMatchObject({
      code: 'MODEL_ARCHIVE_INVALID',
    });
    expect(fake.connections).toEqual([`127.0.0.1:${new URL(host.baseUrl).port}`]);
  });

  it('refuses a redirect to a link-local address without connecting to it', async () => {
    const archive = archiveBytes(1000, 12);
    host = await startModelServer();
    const port = new URL(host.baseUrl).port;
    host.redirectNext('model.zip', `http://instance-data.test:${port}/latest/meta-data`);
    const fake = fakeNetwork({ 'instance-data.test': ['169.254.169.254'] });
    const where = await folder();
    await expect(
      downloadFile({
        url: `${host.baseUrl}/model.zip`,
        destination: join(where, 'model.zip.part'),
        network: fake.network,
        expectedSize: archive.length,
      }),
    ).rejects.toMatchObject({
      code: 'MODEL_ADDRESS_REFUSED',
      message: expect.stringContaining('instance-data.test → 169.254.169.254'),
    });
    expect(fake.connections).toEqual([`127.0.0.1:${port}`]);
    expect(host.requests.map((request) => request.path)).toEqual(['/vosk/models/model.zip']);
    expect(await readdir(where)).toEqual([]);
  });
});
