// Model downloads over real loopback sockets and real files, against a model host that cuts
// connections, goes silent, or changes the file between two tries.
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { downloadFile } from '../src/models/download-file.ts';
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
