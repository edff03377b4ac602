// A model host on a loopback port, as the official one or a mirror behaves: files by name, HTTP
// Range requests (206 with Content-Range), and on demand a connection cut half-way or a slow
// line, so downloads are tested over real sockets.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the server saw. */
export interface ModelServerRequest {
  path: string;
  range: string | undefined;
}

/** A running model host. */
export interface ModelServer {
  /** Base URL, e.g. http://127.0.0.1:PORT/vosk/models (no trailing slash). */
  baseUrl: string;
  requests: ModelServerRequest[];
  /** Serves `content` as `name`. */
  put(name: string, content: Buffer): void;
  /** Cuts the next `times` answers for `name` after `bytes` bytes of body. */
  cutNext(name: string, bytes: number, times?: number): void;
  /** Sends at most this many bytes a second (0: as fast as possible). */
  throttle(bytesPerSecond: number): void;
  close(): Promise<void>;
}

/** Starts a model host on 127.0.0.1 and a free port. */
export async function startModelServer(prefix = '/vosk/models'): Promise<ModelServer> {
  const files = new Map<string, Buffer>();
  const cuts = new Map<string, { bytes: number; times: number }>();
  const requests: ModelServerRequest[] = [];
  let rate = 0;
  const server: Server = createServer((request, response) => {
    const path = decodeURIComponent((request.url ?? '/').split('?')[0]!);
    const range = request.headers.range;
    requests.push({ path, range });
    const name = path.startsWith(`${prefix}/`) ? path.slice(prefix.length + 1) : undefined;
    const content = name === undefined ? undefined : files.get(name);
    if (!content || name === undefined) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    let start = 0;
    if (range) {
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
      });
    } else {
      response.writeHead(200, {
        'content-type': 'application/zip',
        'content-length': content.length,
        'accept-ranges': 'bytes',
      });
    }
    const cut = cuts.get(name);
    let limit = content.length - start;
    if (cut && cut.times > 0) {
      cut.times--;
      limit = Math.min(limit, cut.bytes);
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
      // A cut connection: the socket closes before the announced length was sent.
      if (cutShort) response.socket?.destroy();
      else response.end();
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}${prefix}`,
    requests,
    put: (name, content) => files.set(name, content),
    cutNext: (name, bytes, times = 1) => cuts.set(name, { bytes, times }),
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
