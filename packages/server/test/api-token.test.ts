// The opt-in API token (API_TOKEN) over a real listening socket: every registered route refuses a
// request without it and answers one with the bearer header or the app's cookie; the live
// channels (server-sent events, both WebSockets) too; the app's first address trades the token or
// a one-time ticket for the cookie; and without API_TOKEN the API stays open as the original.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { spawnBin } from './support/bin-process.ts';
import { createHarness, type Harness, waitFor } from './support/harness.ts';
import { freePort } from './support/ports.ts';

const TOKEN = 'test-api-token-0123456789_abcdef';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

async function backend(env: string[] = [`API_TOKEN=${TOKEN}`]) {
  harness = await createHarness({ env: ['ASR_MODE=mock', ...env] });
  const base = await harness.listen();
  const port = Number(new URL(base).port);
  return { base, port, cookie: `class_assistant_token_${port}=${TOKEN}` };
}

/** Every route of the app as method and a concrete path, read from fastify's own route tree. */
function registeredRoutes(app: Harness['app']): Array<{ method: string; path: string }> {
  const routes: Array<{ method: string; path: string }> = [];
  const stack: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^([│ ├└─]*)(\S+) \(([A-Z, ]+)\)$/.exec(line);
    if (!match) continue;
    const depth = match[1]!.length / 4;
    const segment = match[2]!;
    stack.length = depth;
    const parent = stack.at(-1) ?? '';
    const full =
      segment === '*'
        ? `${parent}/*`
        : parent === '' || parent.endsWith('/') || segment.startsWith('/') || /^_/.test(segment)
          ? `${parent}${segment}`
          : `${parent}/${segment}`;
    stack.push(full);
    for (const method of match[3]!.split(', ')) {
      if (method === 'HEAD') continue;
      const path = full
        .replace(/:[a-z_]+/g, 'x')
        .replace(/\*$/, 'index.html')
        .replace(/^\/\//, '/');
      routes.push({ method, path });
    }
  }
  return routes;
}

/** One request over the socket; the status only (a stream's body is not waited for). */
async function status(
  base: string,
  route: { method: string; path: string },
  headers: Record<string, string> = {},
): Promise<{ status: number; code?: string }> {
  const response = await fetch(`${base}${route.path}`, {
    method: route.method,
    redirect: 'manual',
    headers: {
      ...headers,
      ...(route.method === 'GET' ? {} : { 'content-type': 'application/json' }),
    },
    ...(route.method === 'GET' ? {} : { body: '{}' }),
  });
  if (response.status === 401) {
    return { status: 401, code: ((await response.json()) as { code: string }).code };
  }
  await response.body?.cancel();
  return { status: response.status };
}

/** Opens a WebSocket: 101 when it opened, else the HTTP status it was refused with. */
function openSocket(url: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve) => {
    const socket = new WebSocket(url, { headers });
    socket.on('unexpected-response', (_request, incoming) => resolve(incoming.statusCode ?? 0));
    socket.on('open', () => {
      resolve(101);
      socket.close();
    });
    socket.on('error', () => undefined);
  });
}

describe('API_TOKEN set', () => {
  it('every registered route answers 401 without it, and works with the bearer header or the cookie', async () => {
    const { base, cookie } = await backend();
    const routes = [
      ...registeredRoutes(harness!.app),
      { method: 'GET', path: '/api/no-such-route' },
    ];
    // The tree is read right: the routes a student uses most are all in it.
    expect(routes).toEqual(
      expect.arrayContaining([
        { method: 'GET', path: '/' },
        { method: 'GET', path: '/api/health' },
        { method: 'POST', path: '/api/settings' },
        { method: 'GET', path: '/api/events' },
        { method: 'GET', path: '/api/ws/alerts' },
        { method: 'GET', path: '/api/ws/capture' },
        { method: 'GET', path: '/api/classes/x/export' },
        { method: 'POST', path: '/api/catchup_chat/stream' },
        { method: 'GET', path: '/docs/index.html' },
        { method: 'POST', path: '/mcp' },
      ]),
    );
    expect(routes.length).toBeGreaterThan(40);
    for (const route of routes) {
      const without = await status(base, route);
      const what = `${route.method} ${route.path}`;
      if (route.path === '/mcp') {
        // MCP clients send the MCP token as their bearer token: /mcp checks that one.
        expect(without, what).toEqual({ status: 401, code: 'MCP_UNAUTHORIZED' });
      } else if (route.path === '/api/shutdown') {
        // It checks the run's own token from the data folder (and this test app has no owner
        // process to stop).
        expect([403, 501], what).toContain(without.status);
      } else {
        expect(without, what).toEqual({ status: 401, code: 'API_UNAUTHORIZED' });
        expect(await status(base, route, { authorization: `Bearer ${TOKEN}x` }), what).toEqual({
          status: 401,
          code: 'API_UNAUTHORIZED',
        });
        expect(
          (await status(base, route, { authorization: `Bearer ${TOKEN}` })).status,
          what,
        ).not.toBe(401);
        expect((await status(base, route, { cookie })).status, what).not.toBe(401);
      }
    }
    const health = await fetch(`${base}/api/health`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(health.status).toBe(200);
    const refused = await fetch(`${base}/api/health`, { headers: { 'accept-language': 'zh-CN' } });
    expect(refused.headers.get('www-authenticate')).toBe('Bearer realm="class-assistant-api"');
    expect(await refused.json()).toMatchObject({
      code: 'API_UNAUTHORIZED',
      hint: 'API_TOKEN',
      message: expect.stringContaining('API_TOKEN'),
    });
  });

  it('the live channels need it too: server-sent events and both WebSockets (the cookie covers a browser)', async () => {
    const { base, cookie } = await backend();
    const events = await fetch(`${base}/api/events`);
    expect(events.status).toBe(401);
    const streaming = await fetch(`${base}/api/events`, { headers: { cookie } });
    expect(streaming.status).toBe(200);
    expect(streaming.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = streaming.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toContain('stream.opened');
    await reader.cancel();

    const ws = base.replace('http', 'ws');
    for (const path of ['/api/ws/alerts', '/api/ws/capture']) {
      expect(await openSocket(`${ws}${path}`), path).toBe(401);
      expect(await openSocket(`${ws}${path}`, { cookie: `${cookie}x` }), path).toBe(401);
      expect(await openSocket(`${ws}${path}`, { cookie }), path).toBe(101);
      expect(await openSocket(`${ws}${path}`, { authorization: `Bearer ${TOKEN}` }), path).toBe(
        101,
      );
    }
    const pong = await new Promise<string>((resolve, reject) => {
      const socket = new WebSocket(`${ws}/api/ws/alerts`, { headers: { cookie } });
      socket.on('open', () => socket.send('ping'));
      socket.on('message', (data) => {
        resolve(data.toString());
        socket.close();
      });
      socket.on('error', reject);
    });
    expect(pong).toBe('pong');
  });

  it('the app’s first address trades the token, or a one-time ticket, for an HttpOnly SameSite=Strict cookie and leaves the address clean', async () => {
    const { base, port } = await backend();
    const opened = await fetch(`${base}/?token=${encodeURIComponent(TOKEN)}&lang=en`, {
      redirect: 'manual',
    });
    expect(opened.status).toBe(303);
    expect(opened.headers.get('location')).toBe('/?lang=en');
    const setCookie = opened.headers.get('set-cookie') ?? '';
    expect(setCookie).toBe(
      `class_assistant_token_${port}=${TOKEN}; Path=/; HttpOnly; SameSite=Strict`,
    );
    const cookie = setCookie.split(';')[0]!;
    expect((await fetch(`${base}/api/health`, { headers: { cookie } })).status).toBe(200);
    expect((await fetch(`${base}/`, { headers: { cookie } })).status).toBe(200);

    // A ticket (asked for with the token) works once: the launcher puts it, not the token, on
    // the browser's command line, which every user of the computer can read.
    expect((await fetch(`${base}/api/login_ticket`, { method: 'POST' })).status).toBe(401);
    const answer = await fetch(`${base}/api/login_ticket`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(answer.status).toBe(200);
    const { ticket, path } = (await answer.json()) as { ticket: string; path: string };
    expect(path).toBe(`/?token=${ticket}`);
    expect(ticket).not.toContain(TOKEN);
    const first = await fetch(`${base}${path}`, { redirect: 'manual' });
    expect(first.status).toBe(303);
    expect(first.headers.get('location')).toBe('/');
    expect(first.headers.get('set-cookie')).toBe(setCookie);
    const again = await fetch(`${base}${path}`, { redirect: 'manual' });
    expect(again.status).toBe(401);
    expect(again.headers.get('set-cookie')).toBeNull();
    const wrong = await fetch(`${base}/?token=not-the-token`, { redirect: 'manual' });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({ code: 'API_UNAUTHORIZED' });
  });

  it('is a secret setting: masked in every answer, and a weak one is refused naming the key', async () => {
    const { base } = await backend();
    const headers = { authorization: `Bearer ${TOKEN}` };
    const settings = await (await fetch(`${base}/api/settings`, { headers })).text();
    expect(settings).not.toContain(TOKEN);
    expect(JSON.parse(settings).definitions).toContainEqual(
      expect.objectContaining({ key: 'API_TOKEN', secret: true, applies: 'restart' }),
    );
    const weak = await fetch(`${base}/api/settings`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ fields: { API_TOKEN: 'short' } }),
    });
    expect(weak.status).toBe(400);
    expect(await weak.json()).toMatchObject({ code: 'SETTINGS_INVALID', field: 'API_TOKEN' });
  });
});

describe('API_TOKEN in the environment or hand-edited', () => {
  it('the bin takes it from the environment; a value that is not valid stops the start rather than leaving the API open', async () => {
    const root = await mkdtemp(join(tmpdir(), 'class-assistant-token-'));
    try {
      await writeFile(join(root, '.env'), 'ASR_MODE=mock\n');
      const port = await freePort();
      const args = ['--port', String(port), '--settings-file', join(root, '.env')];
      const running = spawnBin(args, { API_TOKEN: TOKEN });
      const base = `http://127.0.0.1:${port}`;
      const health = (headers: Record<string, string> = {}) =>
        fetch(`${base}/api/health`, { headers }).then(
          (response) => response.status,
          () => 0,
        );
      try {
        expect(await waitFor(async () => (await health()) || false, 30_000, 'the backend')).toBe(
          401,
        );
        expect(await health({ authorization: `Bearer ${TOKEN}` })).toBe(200);
      } finally {
        running.child.kill('SIGTERM');
        await running.exited;
      }

      await writeFile(join(root, '.env'), 'ASR_MODE=mock\nAPI_TOKEN=too short\n');
      const refused = spawnBin(args);
      try {
        expect(await refused.exited).toBe(1);
      } finally {
        refused.child.kill('SIGKILL');
      }
      expect(refused.output().stderr).toContain(
        'API_TOKEN must be 16 to 512 letters, digits or - _ . ~ + / = characters (no spaces)',
      );
      expect(refused.output().stderr).toContain('does not start with the API open');
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

describe('API_TOKEN empty (the default)', () => {
  it('leaves every route open on loopback, as the original client expects', async () => {
    const { base } = await backend([]);
    expect((await fetch(`${base}/api/health`)).status).toBe(200);
    expect((await fetch(`${base}/api/settings`)).status).toBe(200);
    expect(await openSocket(`${base.replace('http', 'ws')}/api/ws/alerts`)).toBe(101);
    const ticket = await fetch(`${base}/api/login_ticket`, { method: 'POST' });
    expect(ticket.status).toBe(409);
    expect(await ticket.json()).toMatchObject({ code: 'API_TOKEN_NOT_SET' });
  });
});
