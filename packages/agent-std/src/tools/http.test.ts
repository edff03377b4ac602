import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, test } from 'vitest';
import type { ToolPolicy } from '../policy.ts';
import { createToolbox } from '../toolbox.ts';

interface Recorded {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

interface TestServer {
  port: number;
  origin: string;
  requests: Recorded[];
  close(): Promise<void>;
}

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(
  handler: (request: IncomingMessage, response: ServerResponse, body: string) => void,
  host = '127.0.0.1',
  port = 0,
): Promise<TestServer> {
  const requests: Recorded[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body,
      });
      handler(request, response, body);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const actualPort = (server.address() as AddressInfo).port;
  const test: TestServer = {
    port: actualPort,
    origin: `http://${host}:${actualPort}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  servers.push(test);
  return test;
}

const text =
  (body: string, status = 200, headers: Record<string, string> = {}) =>
  (_request: IncomingMessage, response: ServerResponse) => {
    response.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...headers });
    response.end(body);
  };

const http = (policy: ToolPolicy['http'] = {}) =>
  createToolbox({ uses: ['std.http'], policy: { http: policy } });
const local = (extra: ToolPolicy['http'] = {}) =>
  http({ allowPrivateNetwork: ['127.0.0.1'], ...extra });

describe('http address policy (each test tries to reach a private address)', () => {
  test('loopback is refused by default and no request reaches the server', async () => {
    const server = await serve(text('private data'));
    await expect(http().call('http_get', { url: `${server.origin}/` })).rejects.toMatchObject({
      code: 'TOOL_POLICY_DENIED',
      field: 'url',
      message: expect.stringContaining('loopback'),
    });
    await expect(
      http().call('http_get', { url: `http://localhost:${server.port}/` }),
    ).rejects.toMatchObject({ code: 'TOOL_POLICY_DENIED' });
    expect(server.requests).toHaveLength(0);
  });

  test.each([
    ['IPv6 loopback', 'http://[::1]/'],
    ['IPv4-mapped IPv6 loopback', 'http://[::ffff:127.0.0.1]/'],
    ['IPv4-mapped IPv6, hex form', 'http://[::ffff:7f00:1]/'],
    ['decimal IPv4', 'http://2130706433/'],
    ['hex IPv4', 'http://0x7f.1/'],
    ['unspecified', 'http://0.0.0.0/'],
    ['cloud metadata (link-local)', 'http://169.254.169.254/latest/meta-data/'],
    ['private 10/8', 'http://10.0.0.1/'],
    ['private 192.168/16', 'https://192.168.1.1/'],
    ['IPv6 link-local', 'http://[fe80::1]/'],
    ['IPv6 unique local', 'http://[fd12:3456::1]/'],
    ['multicast', 'http://224.0.0.1/'],
    ['NAT64 of metadata', 'http://[64:ff9b::a9fe:a9fe]/'],
  ])('%s (%s) is refused before connecting', async (_name, url) => {
    await expect(http().call('http_get', { url, timeout: 2 })).rejects.toMatchObject({
      code: 'TOOL_POLICY_DENIED',
    });
  });

  test('a host name answering with any private address is refused', async () => {
    const resolve = async () => ['93.184.215.14', '10.1.2.3'];
    await expect(
      http({ resolve }).call('http_get', { url: 'http://mixed.example/' }),
    ).rejects.toMatchObject({
      code: 'TOOL_POLICY_DENIED',
      details: { address: '10.1.2.3', reason: 'private' },
    });
  });

  test('non-http schemes are refused; garbage URLs are bad input', async () => {
    for (const url of ['file:///etc/passwd', 'ftp://example.com/', 'data:,hello', 'gopher://x/']) {
      await expect(http().call('http_get', { url })).rejects.toMatchObject({
        code: 'TOOL_POLICY_DENIED',
        field: 'url',
      });
    }
    await expect(http().call('http_get', { url: 'not a url' })).rejects.toMatchObject({
      code: 'TOOL_BAD_INPUT',
      field: 'url',
    });
  });

  test('a redirect to a refused address is checked again and refused', async () => {
    const inner = await serve(text('internal'), '127.0.0.2');
    const outer = await serve((_request, response) => {
      response.writeHead(302, { location: `${inner.origin}/admin` });
      response.end();
    });
    await expect(local().call('http_get', { url: `${outer.origin}/` })).rejects.toMatchObject({
      code: 'TOOL_POLICY_DENIED',
      message: expect.stringContaining('127.0.0.2'),
    });
    expect(outer.requests).toHaveLength(1);
    expect(inner.requests).toHaveLength(0);
  });

  test('a redirect to a file: URL is refused', async () => {
    const server = await serve((_request, response) => {
      response.writeHead(301, { location: 'file:///etc/passwd' });
      response.end();
    });
    await expect(local().call('http_get', { url: server.origin })).rejects.toMatchObject({
      code: 'TOOL_POLICY_DENIED',
      message: expect.stringContaining('file'),
    });
  });

  test('DNS rebinding: the connection goes to the address that was checked, resolved once', async () => {
    const allowed = await serve(text('checked host'));
    const rebound = await serve(text('rebound host'), '127.0.0.2', allowed.port);
    const answers = ['127.0.0.1', '127.0.0.2'];
    let lookups = 0;
    const resolve = async () => [answers[Math.min(lookups++, 1)] as string];
    const body = await local({ resolve }).call('http_get', {
      url: `http://rebind.test:${allowed.port}/`,
    });
    expect(body).toBe('checked host');
    expect(lookups).toBe(1);
    expect(rebound.requests).toHaveLength(0);
    expect(allowed.requests[0]?.headers.host).toBe(`rebind.test:${allowed.port}`);
  });

  test('allowedHosts limits which names may be reached', async () => {
    const server = await serve(text('ok'));
    const resolve = async () => ['127.0.0.1'];
    const box = local({ resolve, allowedHosts: ['api.example.com', '*.trusted.test'] });
    expect(await box.call('http_get', { url: `http://a.trusted.test:${server.port}/` })).toBe('ok');
    await expect(
      box.call('http_get', { url: `http://evil.test:${server.port}/` }),
    ).rejects.toMatchObject({ code: 'TOOL_POLICY_DENIED' });
  });
});

describe('http header and limit rules', () => {
  test('CR/LF in header values, invalid names and framing headers are refused before sending', async () => {
    const server = await serve(text('ok'));
    const box = local();
    await expect(
      box.call('http_get', {
        url: server.origin,
        headers: { 'X-Trace': 'a\r\nX-Injected: 1' },
      }),
    ).rejects.toMatchObject({ code: 'TOOL_BAD_INPUT', field: 'headers.X-Trace' });
    await expect(
      box.call('http_get', { url: server.origin, headers: { 'Bad Name': 'x' } }),
    ).rejects.toMatchObject({ code: 'TOOL_BAD_INPUT', field: 'headers.Bad Name' });
    await expect(
      box.call('http_get', { url: server.origin, headers: { Host: 'internal.example' } }),
    ).rejects.toMatchObject({ code: 'TOOL_BAD_INPUT', field: 'headers.Host' });
    await expect(
      box.call('http_post', {
        url: server.origin,
        data: '{}',
        content_type: 'text/plain\r\nX-Injected: 1',
      }),
    ).rejects.toMatchObject({ code: 'TOOL_BAD_INPUT', field: 'content_type' });
    expect(server.requests).toHaveLength(0);
  });

  test('a server that never answers hits the timeout', async () => {
    const server = await serve(() => {});
    const started = Date.now();
    await expect(
      local().call('http_get', { url: server.origin, timeout: 1 }),
    ).rejects.toMatchObject({ code: 'TOOL_TIMEOUT', field: 'timeout' });
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  test('a timeout above the policy cap is refused, not lowered', async () => {
    await expect(
      local({ maxTimeoutSeconds: 10 }).call('http_get', { url: 'http://127.0.0.1/', timeout: 11 }),
    ).rejects.toMatchObject({ code: 'TOOL_POLICY_DENIED', field: 'timeout' });
  });

  test('responses over the size cap are cut off: declared, chunked, and compressed bombs', async () => {
    const big = 'x'.repeat(200_000);
    const declared = await serve(text(big));
    const chunked = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      for (let index = 0; index < 20; index++) response.write('y'.repeat(10_000));
      response.end();
    });
    const bomb = gzipSync(Buffer.alloc(20 * 1024 * 1024));
    const compressed = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
      response.end(bomb);
    });
    expect(bomb.byteLength).toBeLessThan(100_000);
    const box = local({ maxResponseBytes: 100_000 });
    for (const server of [declared, chunked, compressed]) {
      await expect(box.call('http_get', { url: server.origin })).rejects.toMatchObject({
        code: 'TOOL_LIMIT_EXCEEDED',
      });
    }
  });

  test('redirect loops stop at the hop limit', async () => {
    const server = await serve((request, response) => {
      response.writeHead(302, { location: `/hop${Number(request.url?.slice(4) || 0) + 1}` });
      response.end();
    });
    await expect(
      local({ maxRedirects: 3 }).call('http_get', { url: `${server.origin}/hop0` }),
    ).rejects.toMatchObject({ code: 'TOOL_LIMIT_EXCEEDED' });
    expect(server.requests.map((request) => request.url)).toEqual([
      '/hop0',
      '/hop1',
      '/hop2',
      '/hop3',
    ]);
  });
});

describe('http requests', () => {
  test('http_get returns the body, sends the given headers and decodes gzip and charsets', async () => {
    const plain = await serve(text('héllo wörld'));
    const gzipped = await serve((_request, response) => {
      response.writeHead(200, { 'content-encoding': 'gzip', 'content-type': 'text/plain' });
      response.end(gzipSync('compressed 压缩'));
    });
    const latin1 = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain; charset=iso-8859-1' });
      response.end(Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    });
    const box = local();
    expect(
      await box.call('http_get', { url: `${plain.origin}/a?b=1`, headers: { 'X-Api': 'k1' } }),
    ).toBe('héllo wörld');
    expect(plain.requests[0]).toMatchObject({ method: 'GET', url: '/a?b=1' });
    expect(plain.requests[0]?.headers['x-api']).toBe('k1');
    expect(await box.call('http_get', { url: gzipped.origin })).toBe('compressed 压缩');
    expect(await box.call('http_get', { url: latin1.origin })).toBe('café');
  });

  test('http_get fails on an error status, naming it; the others return the status', async () => {
    const server = await serve(text('no such page', 404));
    const box = local();
    await expect(box.call('http_get', { url: server.origin })).rejects.toMatchObject({
      code: 'TOOL_FAILED',
      message: expect.stringContaining('HTTP 404'),
      details: { status: 404, body: 'no such page' },
    });
    expect(await box.call('http_post', { url: server.origin, data: '{}' })).toEqual({
      status: 404,
      body: 'no such page',
    });
  });

  test('http_post sends data with content_type (default application/json); headers win', async () => {
    const server = await serve((_request, response, body) => {
      response.writeHead(201, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ received: body }));
    });
    const box = local();
    expect(await box.call('http_post', { url: server.origin, data: '{"a":1}' })).toEqual({
      status: 201,
      body: '{"received":"{\\"a\\":1}"}',
    });
    await box.call('http_post', { url: server.origin, data: 'a=1', content_type: 'text/plain' });
    await box.call('http_post', {
      url: server.origin,
      data: 'x',
      headers: { 'Content-Type': 'application/xml' },
    });
    expect(server.requests.map((request) => request.headers['content-type'])).toEqual([
      'application/json',
      'text/plain',
      'application/xml',
    ]);
    expect(server.requests[0]?.headers['content-length']).toBe('7');
  });

  test('http_put and http_delete return status/body records', async () => {
    const server = await serve((request, response, body) => {
      response.writeHead(request.method === 'DELETE' ? 204 : 200);
      response.end(request.method === 'DELETE' ? undefined : `put:${body}`);
    });
    const box = local();
    expect(await box.call('http_put', { url: server.origin, data: 'v2' })).toEqual({
      status: 200,
      body: 'put:v2',
    });
    expect(await box.call('http_delete', { url: `${server.origin}/item/1` })).toEqual({
      status: 204,
      body: '',
    });
    expect(server.requests.map((request) => request.method)).toEqual(['PUT', 'DELETE']);
  });

  test('a 303 after POST continues with GET and no body', async () => {
    const server = await serve((request, response) => {
      if (request.url === '/submit') {
        response.writeHead(303, { location: '/result' });
        response.end();
      } else text(`${request.method} result`)(request, response);
    });
    expect(
      await local().call('http_post', { url: `${server.origin}/submit`, data: '{"x":1}' }),
    ).toEqual({ status: 200, body: 'GET result' });
    expect(server.requests[1]).toMatchObject({ method: 'GET', url: '/result', body: '' });
  });

  test('credentials are dropped on a cross-origin redirect, kept on a same-origin one', async () => {
    const other = await serve(text('other'), '127.0.0.2');
    const server = await serve((request, response) => {
      const location = request.url === '/same' ? '/landing' : `${other.origin}/landing`;
      if (request.url === '/landing') return text('landed')(request, response);
      response.writeHead(302, { location });
      response.end();
    });
    const box = local({ allowPrivateNetwork: ['127.0.0.1', '127.0.0.2'] });
    const headers = { Authorization: 'Bearer secret', Cookie: 'session=1' };
    await box.call('http_get', { url: `${server.origin}/same`, headers });
    await box.call('http_get', { url: `${server.origin}/cross`, headers });
    expect(server.requests[1]?.headers.authorization).toBe('Bearer secret');
    expect(other.requests[0]?.headers.authorization).toBeUndefined();
    expect(other.requests[0]?.headers.cookie).toBeUndefined();
  });

  test('connection failures are reported as TOOL_FAILED with the reason', async () => {
    const server = await serve(text('gone'));
    const url = server.origin;
    await server.close();
    await expect(local().call('http_get', { url })).rejects.toMatchObject({
      code: 'TOOL_FAILED',
      message: expect.stringContaining('refused'),
    });
  });

  test('an aborted call stops the request', async () => {
    const server = await serve(() => {});
    const controller = new AbortController();
    const pending = local().call('http_get', { url: server.origin }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await expect(pending).rejects.toMatchObject({ code: 'TOOL_ABORTED' });
  });
});
