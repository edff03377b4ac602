/**
 * The backend's one outgoing HTTP client: a `fetch` over `node:http` / `node:https`, used for
 * model downloads, the LLM and the cloud recognizers (handed to the `openai` SDK as its `fetch`).
 *
 * Why not the global `fetch`: the HTTP/1 client bundled with Node.js 24 (undici 7.x) throws an
 * uncatchable `AssertionError: assert(!this.paused)` when a server closes the connection while
 * the response body is held back by backpressure — a download over a flaky network could take
 * the whole backend (and the class it runs) down. undici fixed it in 8.8, which needs a newer
 * Node.js than this package supports; Node's own `http` module has no such bug.
 *
 * What it does like `fetch`: method, headers, any body a `Request` accepts (strings, bytes,
 * `FormData`, streams), `signal`, `redirect` ('follow' up to 20 hops, 'manual', 'error'), gzip /
 * deflate / br answers decoded, network failures as `TypeError('fetch failed', { cause })` and an
 * abort as the signal's reason. What it adds: {@link HttpFetchOptions.checkHop}, which sees every
 * hop's resolved addresses before anything is connected, and connects to the address it checked.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import type { IncomingMessage, RequestOptions } from 'node:http';
import { isIP, type LookupFunction } from 'node:net';
import type { Readable } from 'node:stream';

/** One request of a fetch: the URL and, when resolved (see `checkHop`), its addresses. */
export interface HttpHop {
  url: URL;
  addresses: readonly string[];
}

/** Options of {@link createHttpFetch}. */
export interface HttpFetchOptions {
  /**
   * Called before each hop (the first request and every redirect) is connected, with the
   * addresses its host resolves to and the hop before (undefined for the first); throws to
   * refuse, and then nothing is connected. When given, every host is resolved here and the
   * connection goes to the first address that was checked (a second DNS answer is never used).
   */
  checkHop?: (hop: HttpHop, previous: HttpHop | undefined) => void;
  /** Resolves a host name for `checkHop` (default: the system resolver, every address). */
  resolve?: (hostname: string) => Promise<readonly string[]>;
  /** Opens the connection of a request instead of Node's agent (tests watch connections). */
  createConnection?: RequestOptions['createConnection'];
  /** Redirects followed before giving up (default 20, as `fetch`). */
  maxRedirects?: number;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const NO_BODY = new Set([101, 204, 205, 304]);

const failed = (cause: unknown) => new TypeError('fetch failed', { cause });

async function systemResolve(hostname: string): Promise<readonly string[]> {
  return (await dnsLookup(hostname, { all: true, order: 'verbatim' })).map(
    (entry) => entry.address,
  );
}

/** A `lookup` that answers every query with one address. */
function pinnedLookup(address: string): LookupFunction {
  const family = isIP(address) === 6 ? 6 : 4;
  return (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
}

/** The response's headers, in order (a value `Headers` refuses is left out). */
function headersOf(incoming: IncomingMessage): Headers {
  const headers = new Headers();
  const raw = incoming.rawHeaders;
  for (let index = 0; index + 1 < raw.length; index += 2) {
    try {
      headers.append(raw[index]!, raw[index + 1]!);
    } catch {
      // A header value fetch could not represent either.
    }
  }
  return headers;
}

/** Bytes held for a reader before the connection is paused (backpressure). */
const BODY_BUFFER_BYTES = 1024 * 1024;

/**
 * A Node stream as a web stream that hands over the bytes that arrived before an error: when a
 * server closes the connection early, the reader still gets what came (up to the little Node held
 * back once this buffer was full), then the error. Node drops the unread buffer of a destroyed
 * stream, so the bytes are taken off it as they arrive.
 */
function webStreamOf(stream: Readable, aborted: AbortSignal): ReadableStream<Uint8Array> {
  const queue: Uint8Array[] = [];
  let queued = 0;
  let ended = false;
  let failure: unknown;
  let wake: (() => void) | undefined;
  const signal = () => {
    const waiting = wake;
    wake = undefined;
    waiting?.();
  };
  stream.on('data', (chunk: Buffer) => {
    queue.push(chunk);
    queued += chunk.byteLength;
    if (queued >= BODY_BUFFER_BYTES) stream.pause();
    signal();
  });
  stream.once('end', () => {
    ended = true;
    signal();
  });
  stream.on('error', (error) => {
    // An abort reads as the caller's reason, as with fetch.
    failure ??= aborted.aborted ? aborted.reason : error;
    signal();
  });
  stream.once('close', () => {
    if (!ended) {
      failure ??= aborted.aborted
        ? aborted.reason
        : new Error('the connection closed before the answer was complete');
    }
    signal();
  });
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        while (queue.length === 0 && !ended && failure === undefined) {
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
        }
        const chunk = queue.shift();
        if (chunk) {
          queued -= chunk.byteLength;
          if (queued < BODY_BUFFER_BYTES && stream.isPaused()) stream.resume();
          controller.enqueue(chunk);
        } else if (ended) controller.close();
        else controller.error(failure);
      },
      cancel() {
        stream.destroy();
      },
    },
    { highWaterMark: 0 },
  );
}

/** The body as a web stream, decoded when the server compressed it. */
async function bodyOf(
  incoming: IncomingMessage,
  signal: AbortSignal,
): Promise<ReadableStream<Uint8Array>> {
  const encoding = String(incoming.headers['content-encoding'] ?? '')
    .trim()
    .toLowerCase();
  let stream: Readable = incoming;
  if (['gzip', 'x-gzip', 'deflate', 'br'].includes(encoding)) {
    const zlib = await import('node:zlib');
    const decoder =
      encoding === 'br'
        ? zlib.createBrotliDecompress()
        : encoding === 'deflate'
          ? zlib.createInflate()
          : zlib.createGunzip();
    incoming.on('error', (error) => decoder.destroy(error));
    incoming.on('aborted', () => decoder.destroy(new Error('the connection was cut')));
    stream = incoming.pipe(decoder);
  }
  return webStreamOf(stream, signal);
}

/** Sends one request and resolves with the response head; the body is still unread. */
async function sendOnce(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: Buffer | undefined,
  address: string | undefined,
  signal: AbortSignal,
  options: HttpFetchOptions,
): Promise<IncomingMessage> {
  const { request: send } =
    url.protocol === 'https:' ? await import('node:https') : await import('node:http');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolve, reject) => {
    const request = send({
      protocol: url.protocol,
      hostname: host,
      ...(url.port ? { port: url.port } : {}),
      path: `${url.pathname}${url.search}`,
      method,
      headers: body ? { ...headers, 'content-length': String(body.byteLength) } : headers,
      signal,
      ...(url.username || url.password
        ? { auth: `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}` }
        : {}),
      ...(address !== undefined && isIP(host) === 0 ? { lookup: pinnedLookup(address) } : {}),
      // A checked request opens its own connection: a pooled one may lead elsewhere. (Node
      // uses `createConnection` only when no agent is given at all.)
      ...(options.createConnection
        ? { createConnection: options.createConnection }
        : address !== undefined
          ? { agent: false }
          : {}),
    });
    request.once('response', resolve);
    // Kept for the request's life: a socket error after the answer came is reported here too
    // (the body's reader sees it on the answer).
    request.on('error', reject);
    request.end(body);
  });
}

/**
 * Creates a `fetch` over `node:http` / `node:https` (see the file's comment for why).
 *
 * @example
 * const fetch = createHttpFetch();
 * const answer = await fetch('http://127.0.0.1:8080/health');
 */
export function createHttpFetch(options: HttpFetchOptions = {}): typeof fetch {
  const maxRedirects = options.maxRedirects ?? 20;
  const resolve = options.resolve ?? systemResolve;

  const hopOf = async (url: URL): Promise<HttpHop> => {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host) !== 0) return { url, addresses: [host] };
    let addresses: readonly string[];
    try {
      addresses = await resolve(host);
    } catch (error) {
      throw failed(error);
    }
    if (addresses.length === 0 || addresses.some((address) => isIP(address) === 0)) {
      throw failed(new Error(`could not resolve ${host}`));
    }
    return { url, addresses };
  };

  const httpFetch = async (
    input: string | URL | Request,
    init?: RequestInit,
  ): Promise<Response> => {
    const request = new Request(input, init);
    const signal = request.signal;
    signal.throwIfAborted();
    let url = new URL(request.url);
    let method = request.method;
    let body = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => {
      headers[name] = value;
    });
    headers['accept-encoding'] ??= 'gzip, deflate, br';
    let previous: HttpHop | undefined;
    for (let hop = 0; ; hop++) {
      signal.throwIfAborted();
      let checked: HttpHop | undefined;
      if (options.checkHop) {
        checked = await hopOf(url);
        options.checkHop(checked, previous);
        signal.throwIfAborted();
      }
      let incoming: IncomingMessage;
      try {
        incoming = await sendOnce(
          url,
          method,
          headers,
          body,
          checked?.addresses[0],
          signal,
          options,
        );
      } catch (error) {
        signal.throwIfAborted();
        throw failed(error);
      }
      const status = incoming.statusCode ?? 0;
      const location = incoming.headers.location;
      if (REDIRECTS.has(status) && typeof location === 'string' && request.redirect !== 'manual') {
        incoming.destroy();
        if (request.redirect === 'error') throw failed(new Error(`redirected to ${location}`));
        if (hop >= maxRedirects) throw failed(new Error('redirect count exceeded'));
        let next: URL;
        try {
          next = new URL(location, url);
        } catch (error) {
          throw failed(error);
        }
        if (next.protocol !== 'http:' && next.protocol !== 'https:') {
          throw failed(new Error(`redirected to a ${next.protocol} URL`));
        }
        if (status === 303 || ((status === 301 || status === 302) && method === 'POST')) {
          if (method !== 'HEAD') method = 'GET';
          body = undefined;
          for (const name of ['content-type', 'content-encoding', 'content-language']) {
            delete headers[name];
          }
        }
        if (next.origin !== url.origin) {
          // Credentials meant for one origin are never handed to another.
          delete headers.authorization;
          delete headers.cookie;
          delete headers['proxy-authorization'];
        }
        previous = checked ?? { url, addresses: [] };
        url = next;
        continue;
      }
      if (status < 200 || status > 599) {
        incoming.destroy();
        throw failed(new Error(`unexpected HTTP status ${status}`));
      }
      const stream =
        method === 'HEAD' || NO_BODY.has(status) ? null : await bodyOf(incoming, signal);
      if (stream === null) incoming.resume();
      const response = new Response(stream, {
        status,
        statusText: incoming.statusMessage ?? '',
        headers: headersOf(incoming),
      });
      Object.defineProperty(response, 'url', { value: url.href });
      Object.defineProperty(response, 'redirected', { value: hop > 0 });
      return response;
    }
  };
  return httpFetch as typeof fetch;
}

/** The shared client without address checks: the LLM and the cloud recognizers use it. */
export const httpFetch: typeof fetch = createHttpFetch();
