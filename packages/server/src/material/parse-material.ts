import { Worker } from 'node:worker_threads';
import { workerUrl } from '../assets.ts';
import { ServerError, type ServerErrorCode, type ServerErrorDetails } from '../errors.ts';
import { localized, type MessageText } from '../language.ts';
import type { ExtractedMaterial } from './extract-material.ts';
import { DEFAULT_ZIP_LIMITS, type ZipLimits } from './zip-guard.ts';

/** Limits of one parse in a worker. */
export interface ParseLimits {
  zip: ZipLimits;
  /** Heap cap of the worker in MiB. */
  heapMb: number;
  /** Longest a parse may take. */
  timeoutMs: number;
}

/** Defaults: a 300-page PDF needs well under a second and ~100 MiB. */
export const DEFAULT_PARSE_LIMITS: ParseLimits = {
  zip: DEFAULT_ZIP_LIMITS,
  heapMb: 1024,
  timeoutMs: 120_000,
};

type Reply =
  | { ok: true; result: ExtractedMaterial }
  | {
      ok: false;
      error: {
        code: ServerErrorCode;
        message: MessageText;
        details: ServerErrorDetails;
      };
    };

/**
 * Parses an uploaded file in a worker thread with a heap cap and a time limit: the main thread
 * stays responsive, and a file that explodes in memory or time is refused with a clear error.
 */
export function parseMaterialInWorker(
  filename: string,
  bytes: Uint8Array,
  limits: ParseLimits = DEFAULT_PARSE_LIMITS,
): Promise<ExtractedMaterial> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(workerUrl('material-worker'), {
      resourceLimits: { maxOldGenerationSizeMb: limits.heapMb },
    });
    let settled = false;
    const finish = (action: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      action();
      void worker.terminate();
    };
    const timer = setTimeout(
      () =>
        finish(() =>
          reject(
            new ServerError(
              'UPLOAD_CORRUPT',
              localized(
                `读取文件超过了 ${Math.round(limits.timeoutMs / 1000)} 秒，文件太复杂或已损坏。`,
                `Reading the file took longer than ${Math.round(limits.timeoutMs / 1000)} s; it is too complex or damaged.`,
              ),
            ),
          ),
        ),
      limits.timeoutMs,
    );
    worker.once('message', (reply: Reply) =>
      finish(() => {
        if (reply.ok) resolve(reply.result);
        else reject(new ServerError(reply.error.code, reply.error.message, reply.error.details));
      }),
    );
    worker.once('error', (error: Error & { code?: string }) =>
      finish(() =>
        reject(
          error.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? new ServerError(
                'UPLOAD_ARCHIVE_TOO_LARGE',
                localized(
                  `读取文件需要超过 ${limits.heapMb} MiB 内存，文件太大或是故意构造来耗尽内存的。`,
                  `Reading the file needed more than ${limits.heapMb} MiB of memory; it is too large or built to exhaust memory.`,
                ),
              )
            : new ServerError(
                'INTERNAL_ERROR',
                `The material reader failed: ${error.message}`,
                {},
                { cause: error },
              ),
        ),
      ),
    );
    worker.once('exit', (code) =>
      finish(() =>
        reject(
          new ServerError(
            'INTERNAL_ERROR',
            `The material reader stopped unexpectedly (exit code ${code}).`,
          ),
        ),
      ),
    );
    const copy = bytes.slice();
    worker.postMessage({ filename, bytes: copy, limits: limits.zip }, [copy.buffer]);
  });
}
