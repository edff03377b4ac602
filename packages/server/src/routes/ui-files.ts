// The built web UI's files (index.html and a few hashed assets), served from its folder. A
// static-file plugin would do it too, but loads a glob library, a MIME database and a send
// implementation at start; these few lines are all a bundler's output needs.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { extname, isAbsolute, join, relative, sep } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** Content types of what a web build contains; anything else is served as bytes. */
const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.webmanifest': 'application/manifest+json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.wasm': 'application/wasm',
};

/**
 * Serves the files of `root` at `/` (GET and HEAD), `index.html` for a folder. Paths that are
 * not files inside `root` — `..`, encoded or not, hidden files, folders without an index — go
 * to the app's not-found handler. Responses carry `ETag` and `Last-Modified` and answer 304 to
 * a matching conditional request; `cacheControl(path)` gives each file's `Cache-Control`.
 */
export function serveUiFiles(
  app: FastifyInstance,
  root: string,
  cacheControl: (path: string) => string,
): void {
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const file = await resolveFile(root, request.url);
    if (!file) return reply.callNotFound();
    const tag = `W/"${file.size.toString(16)}-${Math.floor(file.mtimeMs).toString(16)}"`;
    const modified = new Date(Math.floor(file.mtimeMs / 1000) * 1000);
    reply
      .header(
        'content-type',
        CONTENT_TYPES[extname(file.path).toLowerCase()] ?? 'application/octet-stream',
      )
      .header('cache-control', cacheControl(file.path))
      .header('etag', tag)
      .header('last-modified', modified.toUTCString());
    const since = Date.parse(String(request.headers['if-modified-since'] ?? ''));
    const unchanged =
      request.headers['if-none-match'] !== undefined
        ? request.headers['if-none-match'].split(',').some((value) => value.trim() === tag)
        : Number.isFinite(since) && modified.getTime() <= since;
    if (unchanged) return reply.code(304).send();
    // fastify answers HEAD (routed here as GET) without the body, keeping the length.
    return reply.header('content-length', file.size).send(createReadStream(file.path));
  };
  const hidden = { schema: { hide: true } };
  app.get('/', hidden, handler);
  app.get('/*', hidden, handler);
}

async function resolveFile(
  root: string,
  url: string,
): Promise<{ path: string; size: number; mtimeMs: number } | null> {
  let path: string;
  try {
    path = decodeURIComponent(url.split('?')[0]!);
  } catch {
    return null;
  }
  if (path.includes('\0')) return null;
  let full = join(root, path);
  const inside = relative(root, full);
  if (inside.startsWith('..') || isAbsolute(inside)) return null;
  if (inside.split(sep).some((part) => part.startsWith('.'))) return null;
  try {
    let info = await stat(full);
    if (info.isDirectory()) {
      full = join(full, 'index.html');
      info = await stat(full);
    }
    return info.isFile() ? { path: full, size: info.size, mtimeMs: info.mtimeMs } : null;
  } catch {
    return null;
  }
}
