/**
 * Downloads one file into a `.part` file with resume: bytes already there are hashed again and
 * the rest is asked for with an HTTP `Range` request, so neither a dropped connection nor a
 * stopped backend starts a large model over. The SHA-256 (and MD5) are computed while the bytes
 * stream to disk; the caller compares them with the pinned values before anything is installed.
 *
 * - A resume sends `If-Range` with the validator the server gave for the file (its `ETag`, else
 *   its `Last-Modified`, kept beside the part in `<part>.validator`): a file changed in between
 *   comes back whole (HTTP 200) and the download starts over instead of splicing two files.
 * - A try that gets no byte for `stallMs` (30 s) is abandoned as stalled and resumed; after
 *   `stalledTries` (2) stalled tries the download fails with a "stalled" error.
 * - Every hop (the URL and each redirect) is checked before it is connected
 *   (../security/download-address.ts), through the backend's own HTTP client
 *   (../network/http-fetch.ts).
 * - A failed try that got no byte leaves no (empty) `.part` behind.
 */
import { createHash, type Hash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { type FileHandle, open, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { isServerError, ServerError } from '../errors.ts';
import { type Localized, localized } from '../language.ts';
import { createHttpFetch, type HttpFetchOptions } from '../network/http-fetch.ts';
import { downloadHopRefusal } from '../security/download-address.ts';

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
  /** Milliseconds without a byte (of the answer or its body) before a try is stalled (default 30 000). */
  stallMs?: number;
  /** Stalled tries before the download fails with the "stalled" error (default 2). */
  stalledTries?: number;
  /** How host names are resolved and connections opened (default: the system's). */
  network?: DownloadNetwork;
}

/** The network under a download: replaced in tests by a fake resolver and a watching connector. */
export type DownloadNetwork = Pick<HttpFetchOptions, 'resolve' | 'createConnection'>;

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

/** Default of {@link DownloadFileOptions.stallMs}. */
export const DEFAULT_DOWNLOAD_STALL_MS = 30_000;

/** The host of a download address, for a message ('' when it is not an address). */
const hostOf = (url: string) => {
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
};

/** Why a download failed, in both languages; the address and its answer go to `technical`. */
const networkError = (url: string, reason: Localized, cause?: unknown) =>
  new ServerError(
    'MODEL_NETWORK_FAILED',
    localized(
      `没能下载 ${url}：${reason.zh}。请检查网络（或 MODELS_BASE_URL）后重试；已下载的部分会保留并续传。`,
      `Could not download ${url}: ${reason.en}. Check the network (or MODELS_BASE_URL) and try again; what arrived so far is kept and the download resumes.`,
    ),
    { technical: `${url}: ${reason.en}` },
    cause === undefined ? undefined : { cause },
  );

/**
 * A download site that could not be reached: said in words, the system's own (e.g. `getaddrinfo
 * ENOTFOUND …`, `connect ECONNREFUSED …`) in `technical`.
 */
const unreachable = (url: string, detail: string, cause: unknown) => {
  const host = hostOf(url);
  return new ServerError(
    'MODEL_NETWORK_FAILED',
    localized(
      `无法连接模型下载站点${host ? `（${host}）` : ''}。请检查网络后重试，或换一个下载源；已下载的部分会保留并续传。`,
      `Cannot reach the model download site${host ? ` (${host})` : ''}. Check the network and try again, or pick another source; what arrived so far is kept and the download resumes.`,
    ),
    { technical: `${url}: ${detail}` },
    { cause },
  );
};

const cancelled = (url: string) =>
  new ServerError(
    'MODEL_DOWNLOAD_CANCELLED',
    localized(`${url} 的下载已取消。`, `The download of ${url} was cancelled.`),
  );

const stalledError = (url: string, stallMs: number, tries: number) =>
  new ServerError(
    'MODEL_NETWORK_FAILED',
    localized(
      `下载 ${url} 停滞了：连续 ${tries} 次在 ${stallMs / 1000} 秒内没有收到任何数据。请检查网络（或 MODELS_BASE_URL）后重试；已下载的部分会保留并续传。`,
      `The download of ${url} stalled: ${tries} times no data arrived for ${stallMs / 1000} s. Check the network (or MODELS_BASE_URL) and try again; what arrived so far is kept and the download resumes.`,
    ),
  );

/** What identifies the version of the file the `.part` holds, as its server gave it. */
interface Validator {
  etag?: string;
  lastModified?: string;
}

const validatorPath = (destination: string) => `${destination}.validator`;

async function readValidator(destination: string): Promise<Validator> {
  try {
    const saved = JSON.parse(await readFile(validatorPath(destination), 'utf8')) as Validator;
    return {
      ...(typeof saved.etag === 'string' ? { etag: saved.etag } : {}),
      ...(typeof saved.lastModified === 'string' ? { lastModified: saved.lastModified } : {}),
    };
  } catch {
    return {};
  }
}

/** The validator of an answer, if it has one. */
function validatorOf(response: Response): Validator {
  const etag = response.headers.get('etag') ?? undefined;
  const lastModified = response.headers.get('last-modified') ?? undefined;
  return { ...(etag ? { etag } : {}), ...(lastModified ? { lastModified } : {}) };
}

/**
 * The `If-Range` value for a validator: a strong ETag, else the Last-Modified date (a weak ETag
 * may not be used there), else none (a plain `Range`).
 */
function ifRangeOf(validator: Validator): string | undefined {
  if (validator.etag && !validator.etag.startsWith('W/')) return validator.etag;
  return validator.lastModified;
}

async function hashExisting(path: string, sha256: Hash, md5: Hash | undefined): Promise<number> {
  const size = await stat(path).then(
    (info) => info.size,
    () => -1,
  );
  if (size <= 0) return 0;
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
  const doFetch = createHttpFetch({
    ...options.network,
    checkHop(hop, previous) {
      const refusal = downloadHopRefusal(hop, previous);
      if (refusal) {
        throw new ServerError(
          'MODEL_ADDRESS_REFUSED',
          localized(
            `没有下载 ${options.url}：${refusal.zh}。`,
            `Did not download ${options.url}: ${refusal.en}.`,
          ),
          { field: 'url' },
        );
      }
    },
  });
  const maxAttempts = options.attempts ?? 5;
  const stallMs = options.stallMs ?? DEFAULT_DOWNLOAD_STALL_MS;
  const maxStalled = options.stalledTries ?? 2;
  const maxBytes = options.expectedSize ?? options.maxBytes ?? DEFAULT_DOWNLOAD_MAX_BYTES;
  let sha256 = createHash('sha256');
  const newMd5 = () => (options.md5 ? createHash('md5') : undefined);
  let md5 = newMd5();
  let received = await hashExisting(options.destination, sha256, md5);
  let validator = received > 0 ? await readValidator(options.destination) : {};
  let requests = 0;
  let failures = 0;
  let stalled = 0;
  let total = options.expectedSize;
  const restart = async () => {
    await rm(options.destination, { force: true });
    await rm(validatorPath(options.destination), { force: true });
    sha256 = createHash('sha256');
    md5 = newMd5();
    received = 0;
    validator = {};
  };
  if (received > maxBytes) await restart();

  try {
    while (total === undefined || received < total) {
      if (options.signal?.aborted) throw cancelled(options.url);
      requests++;
      // One try: given up when no byte came for `stallMs` (armed again by every chunk).
      const attempt = new AbortController();
      const signal = options.signal
        ? AbortSignal.any([options.signal, attempt.signal])
        : attempt.signal;
      let stallTimer: NodeJS.Timeout | undefined;
      const armStall = () => {
        clearTimeout(stallTimer);
        stallTimer = setTimeout(() => attempt.abort(new Error('stalled')), stallMs);
      };
      const stallHappened = async (): Promise<void> => {
        if (!attempt.signal.aborted || options.signal?.aborted) return;
        if (++stalled >= maxStalled) throw stalledError(options.url, stallMs, stalled);
      };
      armStall();
      let file: FileHandle | undefined;
      try {
        let response: Response;
        const ifRange = received > 0 ? ifRangeOf(validator) : undefined;
        try {
          response = await doFetch(options.url, {
            // identity: byte offsets (Range, Content-Length) must count the file's own bytes.
            headers: {
              'accept-encoding': 'identity',
              ...(received > 0 ? { range: `bytes=${received}-` } : {}),
              ...(ifRange !== undefined ? { 'if-range': ifRange } : {}),
            },
            signal,
          });
        } catch (error) {
          if (options.signal?.aborted) throw cancelled(options.url);
          if (isServerError(error)) throw error;
          await stallHappened();
          if (attempt.signal.aborted) continue;
          if (++failures >= maxAttempts) {
            const reason = (error as Error).cause ?? (error as Error).message;
            throw unreachable(options.url, String((reason as Error).message ?? reason), error);
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
              ? localized(
                  '服务器上没有这个文件（HTTP 404）',
                  'the server has no such file (HTTP 404)',
                )
              : localized(
                  `服务器返回了 HTTP ${response.status}`,
                  `the server answered HTTP ${response.status}`,
                ),
          );
        }
        const answered = validatorOf(response);
        if (
          response.status === 206 &&
          validator.etag !== undefined &&
          answered.etag !== undefined &&
          answered.etag !== validator.etag
        ) {
          // A part of another version of the file (a server that ignored If-Range): start over.
          await response.body?.cancel();
          await restart();
          continue;
        }
        if (response.status === 200) {
          // The whole file, from its first byte: a fresh start, or the file changed since.
          if (received > 0) await restart();
          validator = answered;
          if (answered.etag !== undefined || answered.lastModified !== undefined) {
            await writeFile(validatorPath(options.destination), JSON.stringify(answered));
          }
        }
        const announced = totalFrom(response, received);
        if (announced !== undefined) {
          if (options.expectedSize !== undefined && announced !== options.expectedSize) {
            await response.body?.cancel();
            await restart();
            throw new ServerError(
              'MODEL_CHECKSUM_MISMATCH',
              localized(
                `${options.url} 有 ${announced} 字节，但目录记录的文件是 ${options.expectedSize} 字节：这不是目录所指的模型（同名的另一个文件？）。没有安装任何东西。`,
                `${options.url} is ${announced} bytes, but the pinned file is ${options.expectedSize} bytes: it is not the model the catalogue names (a different file under the same name?). Nothing was installed.`,
              ),
            );
          }
          if (announced > maxBytes) {
            await response.body?.cancel();
            throw networkError(
              options.url,
              localized(
                `文件有 ${announced} 字节，超过了允许的 ${maxBytes} 字节`,
                `the file is ${announced} bytes, more than the ${maxBytes} allowed`,
              ),
            );
          }
          total = announced;
          await options.onTotal?.(total, received);
        }
        options.onProgress?.(received, total);
        if (!response.body) {
          throw networkError(options.url, localized('回答里没有内容', 'the answer had no body'));
        }
        const before = received;
        try {
          armStall();
          for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
            armStall();
            if (received + chunk.byteLength > maxBytes) {
              throw networkError(
                options.url,
                localized(
                  `文件超过了预期的 ${maxBytes} 字节`,
                  `the file is larger than the ${maxBytes} bytes expected`,
                ),
              );
            }
            // Opened at the first byte: a try that gets none leaves no empty file.
            file ??= await open(options.destination, 'a');
            await file.write(chunk);
            sha256.update(chunk);
            md5?.update(chunk);
            received += chunk.byteLength;
            options.onProgress?.(received, total);
          }
        } catch (error) {
          if (options.signal?.aborted) throw cancelled(options.url);
          if (isServerError(error)) throw error;
          await stallHappened();
          if (attempt.signal.aborted) continue;
          // A dropped connection: the next attempt resumes from `received`.
          if (received > before) failures = 0;
          else if (++failures >= maxAttempts) {
            throw unreachable(options.url, (error as Error).message, error);
          }
          await pause(failures, options.signal);
          continue;
        }
        if (total === undefined) break;
        if (received < total) {
          // The body ended early without an error (a proxy that closes quietly): resume.
          if (received === before && ++failures >= maxAttempts) {
            throw networkError(
              options.url,
              localized(
                `连接在收到 ${total} 字节中的 ${received} 字节后断开了`,
                `the connection ended after ${received} of ${total} bytes`,
              ),
            );
          }
          if (received > before) failures = 0;
        }
      } finally {
        clearTimeout(stallTimer);
        await file?.close();
      }
    }
    if (total !== undefined && received > total) {
      await restart();
      throw networkError(
        options.url,
        localized(
          `服务器发来的数据超过了它声明的 ${total} 字节`,
          `the server sent more than the ${total} bytes it announced`,
        ),
      );
    }
  } catch (error) {
    // Nothing arrived: no empty part (and no validator of it) is left behind.
    if (received === 0) await restart();
    throw error;
  }
  // The file is whole: nothing is resumed any more.
  await rm(validatorPath(options.destination), { force: true });
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
