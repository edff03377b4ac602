// Worker entry: parses one uploaded material file off the main thread, so a 300-page PDF never
// stalls the API, the live events or a running class, and a hostile file runs into the worker's
// memory cap instead of the server's.
import { parentPort } from 'node:worker_threads';
import { isServerError } from './errors.ts';
import { localized } from './language.ts';
import { extractMaterial } from './material/extract-material.ts';
import type { ZipLimits } from './material/zip-guard.ts';

interface Job {
  filename: string;
  bytes: Uint8Array;
  limits: ZipLimits;
}

parentPort?.once('message', async (job: Job) => {
  try {
    const result = await extractMaterial(job.filename, job.bytes, job.limits);
    parentPort?.postMessage({ ok: true, result });
  } catch (error) {
    parentPort?.postMessage(
      isServerError(error)
        ? {
            ok: false,
            error: {
              code: error.code,
              message: error.localized ?? error.message,
              details: error.details,
            },
          }
        : {
            ok: false,
            error: {
              code: 'UPLOAD_CORRUPT',
              message: localized(
                `无法读取这个文件：${(error as Error)?.message ?? String(error)}。`,
                `The file could not be read: ${(error as Error)?.message ?? String(error)}.`,
              ),
              details: {},
            },
          },
    );
  }
});
