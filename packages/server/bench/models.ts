// `pnpm bench` (models part): what the model manager costs against the plainest way to do the same.
//   1. download throughput of downloadFile (resumable .part file, SHA-256 and MD5 on the fly)
//      against a plain `fetch` of the same file streamed to disk, from the same loopback server;
//   2. unpack time of unpackArchive (yauzl, entry checks, size caps) against the `unzip` command
//      on the same archive (a made-up model of 200 MB in 200 files).
// Each is the best of 3 runs; the ratios are what to read (the machine is shared).
import { execFile } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import { downloadFile } from '../src/models/download-file.ts';
import { unpackArchive } from '../src/models/unpack-archive.ts';
import { startModelServer } from '../test/support/model-server.ts';
import { buildZip, fakeVoskModel } from '../test/support/zip-writer.ts';
import { printTable } from './table.ts';

const run = promisify(execFile);

async function best(runs: number, work: () => Promise<void>): Promise<number> {
  let fastest = Number.POSITIVE_INFINITY;
  for (let index = 0; index < runs; index++) {
    const started = performance.now();
    await work();
    fastest = Math.min(fastest, performance.now() - started);
  }
  return fastest / 1000;
}

const folder = await mkdtemp(join(tmpdir(), 'bench-models-'));
const server = await startModelServer();
try {
  // Incompressible data, stored, as a Kaldi model's large files nearly are.
  const archive = buildZip(fakeVoskModel('bench-model', { fill: 200 * 1024 * 1024, files: 200 }));
  const megabytes = archive.length / (1024 * 1024);
  server.put('bench.zip', archive);
  const url = `${server.baseUrl}/bench.zip`;
  const target = join(folder, 'download.part');

  const plain = await best(3, async () => {
    const response = await fetch(url);
    await pipeline(
      Readable.fromWeb(response.body as import('node:stream/web').ReadableStream),
      createWriteStream(target),
    );
    await rm(target);
  });
  const managed = (md5: boolean) =>
    best(3, async () => {
      const file = await downloadFile({
        url,
        destination: target,
        expectedSize: archive.length,
        md5,
      });
      if (file.bytes !== archive.length) throw new Error('short download');
      await rm(target);
    });
  const sha256Only = await managed(false);
  const withMd5 = await managed(true);

  const zip = join(folder, 'bench.zip');
  await writeFile(zip, archive);
  const unzipTime = await best(3, async () => {
    const out = join(folder, 'unzip');
    await run('unzip', ['-q', '-o', zip, '-d', out]);
    await rm(out, { recursive: true });
  });
  const yauzlTime = await best(3, async () => {
    const out = join(folder, 'yauzl');
    await unpackArchive(zip, out);
    await rm(out, { recursive: true });
  });

  const row = (label: string, seconds: number, baseline: number) => [
    label,
    seconds.toFixed(2),
    `${(megabytes / seconds).toFixed(0)} MB/s`,
    `${(seconds / baseline).toFixed(2)}x`,
  ];
  printTable(
    `@class-assistant/server models benchmark (node ${process.version}, ${megabytes.toFixed(0)} MB archive)`,
    [
      ['', 'seconds', 'throughput', 'time vs baseline'],
      row('download: plain fetch to disk (baseline)', plain, plain),
      row('download: downloadFile (.part, SHA-256)', sha256Only, plain),
      row('download: downloadFile (.part, SHA-256 + MD5)', withMd5, plain),
      ['', '', '', ''],
      row('unpack: unzip -q (baseline)', unzipTime, unzipTime),
      row('unpack: unpackArchive (yauzl, checked)', yauzlTime, unzipTime),
    ],
  );
} finally {
  await server.close();
  await rm(folder, { recursive: true, force: true });
}
