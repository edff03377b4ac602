/**
 * Downloads one file into a `.part` file with resume: bytes already there are hashed again and
 * the rest is asked for with an HTTP `Range` request, so neither a dropped connection nor a
 * stopped backend starts a large model over. The SHA-256 (and MD5) are computed while the bytes
 * stream to disk; the caller compares them with the pinned values before anything is installed.
 */
import { createHash, type Hash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, stat, truncate } from 'node:fs/promises';
import { isServerError, ServerError } from '../errors.ts';

/** Options of {@link downloadFile}. */
export interface DownloadFileOptions {
  url: string;
  /** The `.part` file; its existing bytes are kept and resumed from. */
  destination: string;
  /** The exact size when known (catalogue entries): a server that disagrees is refused at once. */
  expectedSize?: number;
  /** Refuses a file larger than this when no size is known (default 8 GiB). */
  maxBytes?: number;
  signal?: AbortSignal;
  /** Called as bytes arrive (`total` undefined while unknown). */
  onProgress?: (received: number, total: number | undefined) => void;
  /** Called once the total size is known, before the body is read (the free-space check). */
  onTotal?: (total: number, alreadyReceived: number) => Promise<void> | void;
  /** Connection attempts in a row without a single new byte before giving up (default 5). */
  attempts?: number;
  /** Also compute the MD5 (for a catalogue entry that pins one; default false). */
  md5?: boolean;
  /** The fetch implementation (default: the global one). */
  fetch?: typeof fetch;
}

/** What was downloaded. */
export interface DownloadedFile {
  bytes: number;
  sha256: string;
  /** '' unless {@link DownloadFileOptions.md5} asked for it. */
  md5: string;
  /** How many requests it took (more than one after a resume). */
  requests: number;
}

/** Default of {@link DownloadFileOptions.maxBytes}. */
export const DEFAULT_DOWNLOAD_MAX_BYTES = 8 * 1024 ** 3;

const networkError = (url: string, reason: string, cause?: unknown) =>
  new ServerError(
    'MODEL_NETWORK_FAILED',
    502,
    `Could not download ${url}: ${reason}. Check the network (or MODELS_BASE_URL) and try again; what arrived so far is kept and the download resumes.`,
    {},
    cause === undefined ? undefined : { cause },
  );

const cancelled = (url: string) =>
  new ServerError('MODEL_DOWNLOAD_CANCELLED', 409, `The download of ${url} was cancelled.`);

async function hashExisting(path: string, sha256: Hash, md5: Hash | undefined): Promise<number> {
  const size = await stat(path).then(
    (info) => info.size,
    () => -1,
  );
  if (size <= 0) {
    if (size < 0) await (await open(path, 'w')).close();
    return 0;
  }
  for await (const chunk of createReadStream(path)) {
    sha256.update(chunk as Buffer);
    md5?.update(chunk as Buffer);
  }
  return size;
}

/** The total size of the file from a 200 or 206 answer, if the server says it. */
function totalFrom(response: Response, offset: number): number | undefined {
  if (response.status === 206) {
    const range = /\/(\d+)\s*$/.exec(response.headers.get('content-range') ?? '');
    if (range) return Number(range[1]);
  }
  const length = response.headers.get('content-length');
  if (length !== null && /^\d+$/.test(length)) {
    return Number(length) + (response.status === 206 ? offset : 0);
  }
  return undefined;
}

/**
 * Downloads `url` to `destination` (appending to what is there), with retries that resume.
 * Throws MODEL_NETWORK_FAILED (kept `.part`), MODEL_CHECKSUM_MISMATCH (a size that cannot be
 * the pinned file) or MODEL_DOWNLOAD_CANCELLED.
 *
 * @example
 * const file = await downloadFile({ url, destination: 'models/.download/a.zip.part' });
 */
export async function downloadFile(options: DownloadFileOptions): Promise<DownloadedFile> {
  const doFetch = options.fetch ?? fetch;
  const maxAttempts = options.attempts ?? 5;
  const maxBytes = options.expectedSize ?? options.maxBytes ?? DEFAULT_DOWNLOAD_MAX_BYTES;
  let sha256 = createHash('sha256');
  const newMd5 = () => (options.md5 ? createHash('md5') : undefined);
  let md5 = newMd5();
  let received = await hashExisting(options.destination, sha256, md5);
  let requests = 0;
  let failures = 0;
  let total = options.expectedSize;
  const restart = async () => {
    await truncate(options.destination, 0);
    sha256 = createHash('sha256');
    md5 = newMd5();
    received = 0;
  };
  if (received > maxBytes) await restart();

  while (total === undefined || received < total) {
    if (options.signal?.aborted) throw cancelled(options.url);
    requests++;
    let response: Response;
    try {
      response = await doFetch(options.url, {
        // identity: byte offsets (Range, Content-Length) must count the file's own bytes.
        headers: {
          'accept-encoding': 'identity',
          ...(received > 0 ? { range: `bytes=${received}-` } : {}),
        },
        ...(options.signal ? { signal: options.signal } : {}),
      });
    } catch (error) {
      if (options.signal?.aborted) throw cancelled(options.url);
      if (++failures >= maxAttempts) {
        const reason = (error as Error).cause ?? (error as Error).message;
        throw networkError(options.url, String((reason as Error).message ?? reason), error);
      }
      await pause(failures, options.signal);
      continue;
    }
    if (response.status === 416 && received > 0) {
      // Asked past the end (`Content-Range: bytes */TOTAL`): what is here is either the whole
      // file or something else entirely.
      await response.body?.cancel();
      const whole = /\/(\d+)\s*$/.exec(response.headers.get('content-range') ?? '')?.[1];
      if (Number(whole) === received) break;
      await restart();
      continue;
    }
    if (response.status !== 200 && response.status !== 206) {
      await response.body?.cancel();
      throw networkError(
        options.url,
        response.status === 404
          ? 'the server has no such file (HTTP 404)'
          : `the server answered HTTP ${response.status}`,
      );
    }
    if (response.status === 200 && received > 0) await restart();
    const announced = totalFrom(response, received);
    if (announced !== undefined) {
      if (options.expectedSize !== undefined && announced !== options.expectedSize) {
        await response.body?.cancel();
        await restart();
        throw new ServerError(
          'MODEL_CHECKSUM_MISMATCH',
          422,
          `${options.url} is ${announced} bytes, but the pinned file is ${options.expectedSize} bytes: it is not the model the catalogue names (a different file under the same name?). Nothing was installed.`,
        );
      }
      if (announced > maxBytes) {
        await response.body?.cancel();
        throw networkError(
          options.url,
          `the file is ${announced} bytes, more than the ${maxBytes} allowed`,
        );
      }
      total = announced;
      await options.onTotal?.(total, received);
    }
    options.onProgress?.(received, total);
    if (!response.body) throw networkError(options.url, 'the answer had no body');
    const before = received;
    const file = await open(options.destination, 'a');
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        if (received + chunk.byteLength > maxBytes) {
          throw networkError(options.url, `the file is larger than the ${maxBytes} bytes expected`);
        }
        await file.write(chunk);
        sha256.update(chunk);
        md5?.update(chunk);
        received += chunk.byteLength;
        options.onProgress?.(received, total);
      }
    } catch (error) {
      if (options.signal?.aborted) throw cancelled(options.url);
      if (isServerError(error)) throw error;
      // A dropped connection: the next attempt resumes from `received`.
      if (received > before) failures = 0;
      else if (++failures >= maxAttempts) {
        throw networkError(options.url, (error as Error).message, error);
      }
      await pause(failures, options.signal);
      continue;
    } finally {
      await file.close();
    }
    if (total === undefined) break;
    if (received < total) {
      // The body ended early without an error (a proxy that closes quietly): resume.
      if (received === before && ++failures >= maxAttempts) {
        throw networkError(options.url, `the connection ended after ${received} of ${total} bytes`);
      }
      if (received > before) failures = 0;
    }
  }
  if (total !== undefined && received > total) {
    await restart();
    throw networkError(options.url, `the server sent more than the ${total} bytes it announced`);
  }
  return { bytes: received, sha256: sha256.digest('hex'), md5: md5?.digest('hex') ?? '', requests };
}

function pause(failures: number, signal: AbortSignal | undefined): Promise<void> {
  const ms = Math.min(4000, 250 * 2 ** Math.max(0, failures - 1));
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
