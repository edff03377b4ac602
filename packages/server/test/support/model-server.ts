// A model host on a loopback port, as the official one or a mirror behaves: files by name, HTTP
// Range requests (206 with Content-Range) honouring If-Range against the file's ETag or
// Last-Modified, and on demand a connection cut half-way, a line that goes silent or a slow
// line, so downloads are tested over real sockets.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the server saw. */
interface ModelServerRequest {
  path: string;
  range: string | undefined;
  ifRange: string | undefined;
}

/** Which validators the server sends with a file (and honours in If-Range). */
type ModelServerValidators = 'etag' | 'last-modified' | 'none';

/** A running model host. */
export interface ModelServer {
  /** Base URL, e.g. http://127.0.0.1:PORT/vosk/models (no trailing slash). */
  baseUrl: string;
  requests: ModelServerRequest[];
  /** Serves `content` as `name` (a new version: new ETag, later Last-Modified). */
  put(name: string, content: Buffer): void;
  /**
   * Cuts the next `times` answers for `name` after `bytes` bytes of body (`Connection: close`,
   * then the socket is destroyed); `onCut` runs just before each cut.
   */
  cutNext(name: string, bytes: number, times?: number, onCut?: () => void): void;
  /** The next `times` answers for `name` send `bytes` bytes of body, then nothing, open. */
  stallNext(name: string, bytes: number, times?: number): void;
  /** Answers the next request for `name` with a 302 to `location`. */
  redirectNext(name: string, location: string): void;
  /** The validators sent from now on (default: both ETag and Last-Modified). */
  validators(which: ModelServerValidators | 'both'): void;
  /** Sends at most this many bytes a second (0: as fast as possible). */
  throttle(bytesPerSecond: number): void;
  close(): Promise<void>;
}

/** Starts a model host on 127.0.0.1 and a free port. */
export async function startModelServer(prefix = '/vosk/models'): Promise<ModelServer> {
  const files = new Map<string, { content: Buffer; etag: string; lastModified: string }>();
  const cuts = new Map<
    string,
    { bytes: number; times: number; onCut?: (() => void) | undefined }
  >();
  const stalls = new Map<string, { bytes: number; times: number }>();
  const redirects = new Map<string, string>();
  const requests: ModelServerRequest[] = [];
  let rate = 0;
  let versions = 0;
  let sent: ModelServerValidators | 'both' = 'both';
  const server: Server = createServer((request, response) => {
    const path = decodeURIComponent((request.url ?? '/').split('?')[0]!);
    const range = request.headers.range;
    const ifRange = request.headers['if-range'] as string | undefined;
    requests.push({ path, range, ifRange });
    const name = path.startsWith(`${prefix}/`) ? path.slice(prefix.length + 1) : undefined;
    const redirect = name === undefined ? undefined : redirects.get(name);
    if (redirect !== undefined && name !== undefined) {
      redirects.delete(name);
      response.writeHead(302, { location: redirect, 'content-length': 0 }).end();
      return;
    }
    const file = name === undefined ? undefined : files.get(name);
    if (!file || name === undefined) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    const { content } = file;
    const validators = {
      ...(sent === 'etag' || sent === 'both' ? { etag: file.etag } : {}),
      ...(sent === 'last-modified' || sent === 'both'
        ? { 'last-modified': file.lastModified }
        : {}),
    };
    // If-Range: the range only while the file is still the version the client names.
    const current =
      ifRange === undefined ||
      (ifRange.startsWith('"')
        ? ifRange === validators.etag
        : ifRange === validators['last-modified']);
    // A connection that will be cut says so: the client reads to the end of the connection.
    const cutting = (cuts.get(name)?.times ?? 0) > 0;
    const closing = cutting ? { connection: 'close' } : {};
    let start = 0;
    if (range && current) {
      const match = /^bytes=(\d+)-$/.exec(range);
      start = match ? Number(match[1]) : 0;
      if (start >= content.length) {
        response.writeHead(416, { 'content-range': `bytes */${content.length}` }).end();
        return;
      }
      response.writeHead(206, {
        'content-type': 'application/zip',
        'content-length': content.length - start,
        'content-range': `bytes ${start}-${content.length - 1}/${content.length}`,
        'accept-ranges': 'bytes',
        ...validators,
        ...closing,
      });
    } else {
      response.writeHead(200, {
        'content-type': 'application/zip',
        'content-length': content.length,
        'accept-ranges': 'bytes',
        ...validators,
        ...closing,
      });
    }
    const cut = cuts.get(name);
    const stall = stalls.get(name);
    let limit = content.length - start;
    let onCut: (() => void) | undefined;
    let silent = false;
    if (cut && cut.times > 0) {
      cut.times--;
      limit = Math.min(limit, cut.bytes);
      onCut = cut.onCut;
    } else if (stall && stall.times > 0) {
      stall.times--;
      limit = Math.min(limit, stall.bytes);
      silent = true;
    }
    const body = content.subarray(start, start + limit);
    const cutShort = limit < content.length - start;
    void (async () => {
      const chunk = 64 * 1024;
      for (let at = 0; at < body.length; at += chunk) {
        if (response.destroyed) return;
        const piece = body.subarray(at, at + chunk);
        if (!response.write(piece)) await new Promise((resolve) => response.once('drain', resolve));
        if (rate > 0)
          await new Promise((resolve) => setTimeout(resolve, (piece.length / rate) * 1000));
      }
      // A silent line: the connection stays open and nothing more comes.
      if (silent) return;
      // A cut connection: the socket closes before the announced length was sent (once what
      // was written has reached the socket, so the client gets those bytes).
      if (cutShort) {
        await new Promise<void>((resolve) => response.write(Buffer.alloc(0), () => resolve()));
        onCut?.();
        response.socket?.destroy();
      } else response.end();
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}${prefix}`,
    requests,
    put(name, content) {
      versions++;
      files.set(name, {
        content,
        etag: `"v${versions}-${content.length}"`,
        lastModified: new Date(Date.UTC(2026, 0, 1, 0, 0, versions)).toUTCString(),
      });
    },
    cutNext: (name, bytes, times = 1, onCut) => cuts.set(name, { bytes, times, onCut }),
    stallNext: (name, bytes, times = 1) => stalls.set(name, { bytes, times }),
    redirectNext: (name, location) => redirects.set(name, location),
    validators(which) {
      sent = which;
    },
    throttle(bytesPerSecond) {
      rate = bytesPerSecond;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
