import { request as httpRequest } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { allowedOrigins, isAllowedHost } from '../src/security/local-guard.ts';
import { createHarness, type Harness } from './support/harness.ts';

/** A raw HTTP request, so the Host header can be anything (fetch always sets the real one). */
function rawRequest(
  base: string,
  options: { method?: string; path: string; headers: Record<string, string>; body?: string },
): Promise<{
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        method: options.method ?? 'GET',
        path: options.path,
        headers: options.headers,
        setHost: false,
      },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          body += chunk;
        });
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body }),
        );
      },
    );
    request.on('error', reject);
    request.end(options.body);
  });
}

describe('isAllowedHost', () => {
  it.each([
    ['127.0.0.1:8765', true],
    ['localhost:8765', true],
    ['LOCALHOST:8765', true],
    ['[::1]:8765', true],
    ['127.0.0.1:8766', false],
    ['127.0.0.1', false],
    ['evil.example:8765', false],
    ['127.0.0.1.nip.io:8765', false],
    ['localhost.:8765', false],
    ['0.0.0.0:8765', false],
    ['', false],
  ])('%j -> %s', (host, allowed) => {
    expect(isAllowedHost(host, 8765)).toBe(allowed);
  });

  it('accepts a host without a port only on port 80', () => {
    expect(isAllowedHost('localhost', 80)).toBe(true);
  });

  it('lists the app’s own origins, the shell’s, and the configured ones', () => {
    expect([...allowedOrigins(8765, ['http://localhost:5173'])]).toEqual([
      'http://127.0.0.1:8765',
      'http://localhost:8765',
      'http://[::1]:8765',
      'tauri://localhost',
      'http://tauri.localhost',
      'http://localhost:1420',
      'http://127.0.0.1:1420',
      'http://localhost:5173',
    ]);
  });
});

describe('the local guard over inject()', () => {
  let harness: Harness;
  beforeEach(async () => {
    harness = await createHarness({ env: ['ASR_MODE=mock'] });
  });
  afterEach(() => harness.close());

  it('refuses a DNS-rebinding Host with 403 HOST_NOT_ALLOWED, on every route', async () => {
    for (const url of ['/api/health', '/api/settings', '/docs', '/api/transcript', '/nope']) {
      const response = await harness.request({ url, headers: { host: 'attacker.example:8765' } });
      expect(response.statusCode).toBe(403);
      expect(response.json()).toMatchObject({ status: 'error', code: 'HOST_NOT_ALLOWED' });
    }
  });

  it('refuses requests from a foreign origin, reads included, without CORS headers', async () => {
    for (const [method, url] of [
      ['GET', '/api/settings'],
      ['GET', '/api/transcript'],
      ['POST', '/api/stop_monitor'],
    ] as const) {
      const response = await harness.request({
        method,
        url,
        headers: { origin: 'https://evil.example' },
      });
      expect(response.statusCode).toBe(403);
      expect(response.json().code).toBe('ORIGIN_NOT_ALLOWED');
      expect(response.headers['access-control-allow-origin']).toBeUndefined();
    }
  });

  it('refuses a "simple" cross-site form POST that CORS would let through', async () => {
    const response = await harness.request({
      method: 'POST',
      url: '/api/settings',
      headers: { origin: 'null', 'content-type': 'text/plain' },
      payload: 'content=ASR_MODE=mock',
    });
    expect(response.statusCode).toBe(403);
    const noOrigin = await harness.request({
      method: 'POST',
      url: '/api/start_monitor',
      headers: { 'sec-fetch-site': 'cross-site', 'content-type': 'application/json' },
      payload: '{}',
    });
    expect(noOrigin.statusCode).toBe(403);
    expect(harness.app.classAssistant.monitor.status().is_monitoring).toBe(false);
  });

  it('allows the app’s own origin and the desktop shell’s, echoing the origin (never *)', async () => {
    for (const origin of [
      'http://127.0.0.1:8765',
      'http://localhost:8765',
      'tauri://localhost',
      'http://tauri.localhost',
    ]) {
      const response = await harness.request({ url: '/api/health', headers: { origin } });
      expect(response.statusCode).toBe(200);
      expect(response.headers['access-control-allow-origin']).toBe(origin);
      expect(response.headers.vary).toContain('Origin');
    }
  });

  it('answers a preflight from an allowed origin and refuses one from another', async () => {
    const allowed = await harness.request({
      method: 'OPTIONS',
      url: '/api/settings',
      headers: {
        origin: 'tauri://localhost',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'Content-Type',
        'access-control-request-private-network': 'true',
      },
    });
    expect(allowed.statusCode).toBe(204);
    expect(allowed.headers).toMatchObject({
      'access-control-allow-origin': 'tauri://localhost',
      'access-control-allow-methods': 'GET, POST, OPTIONS',
      'access-control-allow-headers': 'content-type',
      'access-control-allow-private-network': 'true',
    });
    const refused = await harness.request({
      method: 'OPTIONS',
      url: '/api/settings',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    });
    expect(refused.statusCode).toBe(403);
    const oddHeader = await harness.request({
      method: 'OPTIONS',
      url: '/api/settings',
      headers: {
        origin: 'tauri://localhost',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'x-secret-header',
      },
    });
    expect(oddHeader.statusCode).toBe(403);
  });

  it('allows an origin added to CORS_ORIGINS at once, and refuses a bad one naming the field', async () => {
    const origin = 'http://localhost:5173';
    expect((await harness.request({ url: '/api/health', headers: { origin } })).statusCode).toBe(
      403,
    );
    const saved = await harness.request({
      method: 'POST',
      url: '/api/settings',
      payload: { fields: { CORS_ORIGINS: origin } },
    });
    expect(saved.json()).toMatchObject({ applied_now: ['CORS_ORIGINS'] });
    const after = await harness.request({ url: '/api/health', headers: { origin } });
    expect(after.statusCode).toBe(200);
    expect(after.headers['access-control-allow-origin']).toBe(origin);
    const wildcard = await harness.request({
      method: 'POST',
      url: '/api/settings',
      payload: { fields: { CORS_ORIGINS: '*' } },
    });
    expect(wildcard.statusCode).toBe(400);
    expect(wildcard.json()).toMatchObject({ code: 'SETTINGS_INVALID', field: 'CORS_ORIGINS' });
  });
});

describe('the local guard over a real socket', () => {
  let harness: Harness;
  let base: string;
  beforeEach(async () => {
    harness = await createHarness({ env: ['ASR_MODE=mock'] });
    base = await harness.listen();
  });
  afterEach(() => harness.close());

  it('binds to loopback and checks Host against the real port', async () => {
    const port = new URL(base).port;
    expect(harness.app.server.address()).toMatchObject({ address: '127.0.0.1' });
    const ok = await rawRequest(base, {
      path: '/api/health',
      headers: { host: `localhost:${port}` },
    });
    expect(ok.status).toBe(200);
    const rebound = await rawRequest(base, {
      path: '/api/settings',
      headers: { host: `rebind.attacker.example:${port}` },
    });
    expect(rebound.status).toBe(403);
    expect(JSON.parse(rebound.body)).toMatchObject({ code: 'HOST_NOT_ALLOWED' });
    expect(rebound.body).not.toContain('LLM');
    const wrongPort = await rawRequest(base, {
      path: '/api/health',
      headers: { host: '127.0.0.1:8765' },
    });
    expect(wrongPort.status).toBe(403);
  });

  it('refuses a cross-origin fetch and a cross-origin WebSocket', async () => {
    const response = await fetch(`${base}/api/settings`, {
      headers: { origin: 'https://evil.example' },
    });
    expect(response.status).toBe(403);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
    const wsUrl = `${base.replace('http', 'ws')}/api/ws/alerts`;
    const refused = await new Promise<number>((resolve) => {
      const socket = new WebSocket(wsUrl, { origin: 'https://evil.example' });
      socket.on('unexpected-response', (_request, incoming) => resolve(incoming.statusCode ?? 0));
      socket.on('open', () => resolve(101));
      socket.on('error', () => undefined);
    });
    expect(refused).toBe(403);
    const accepted = await new Promise<string>((resolve, reject) => {
      const socket = new WebSocket(wsUrl, { origin: 'tauri://localhost' });
      socket.on('open', () => socket.send('ping'));
      socket.on('message', (data) => {
        resolve(data.toString());
        socket.close();
      });
      socket.on('error', reject);
    });
    expect(accepted).toBe('pong');
  });
});
