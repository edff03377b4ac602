// Builds a real app on a temporary data folder and settings file, for inject() tests and for
// tests over a real listening socket.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.ts';
import type { BuildAppOptions } from '../../src/app-services.ts';

/** A test app with its folders. */
export interface Harness {
  app: FastifyInstance;
  root: string;
  dataDir: string;
  envFile: string;
  /** inject() with the Host header the app accepts (127.0.0.1 and its port, 8765 until it listens). */
  request(options: InjectOptions): Promise<LightMyRequestResponse>;
  /** POST /api/start_monitor; resolves with the status and JSON body. */
  startMonitor(payload?: object): Promise<{ statusCode: number; body: Record<string, unknown> }>;
  /** Listens on 127.0.0.1 and a free port; returns the base URL. */
  listen(): Promise<string>;
  close(): Promise<void>;
}

/** Settings lines for a fast mock class. */
export const FAST_MOCK = ['ASR_MODE=mock', 'MOCK_INTERVAL_MS=40', 'MOCK_LOOP=false'];

/**
 * Creates an app. `env` lines become the settings file; `options` override buildApp options.
 *
 * @example
 * const harness = await createHarness({ env: ['ASR_MODE=mock'] });
 * const response = await harness.request({ url: '/api/health' });
 */
export async function createHarness(
  setup: {
    env?: string[];
    options?: Partial<BuildAppOptions>;
    files?: Record<string, string>;
  } = {},
): Promise<Harness> {
  const root = await mkdtemp(join(tmpdir(), 'class-assistant-'));
  const dataDir = join(root, 'data');
  const envFile = join(root, '.env');
  if (setup.env) await writeFile(envFile, `${setup.env.join('\n')}\n`);
  for (const [name, content] of Object.entries(setup.files ?? {}))
    await writeFile(join(root, name), content);
  const app = await buildApp({ dataDir, envFile, port: 8765, ...setup.options });
  await app.ready();
  let closed = false;
  const request = (options: InjectOptions) => {
    const host = `127.0.0.1:${app.classAssistant.port()}`;
    return app.inject({ ...options, headers: { host, ...options.headers } });
  };
  return {
    app,
    root,
    dataDir,
    envFile,
    request,
    async startMonitor(payload = {}) {
      const response = await request({ method: 'POST', url: '/api/start_monitor', payload });
      return { statusCode: response.statusCode, body: response.json() };
    },
    async listen() {
      await app.listen({ host: '127.0.0.1', port: 0 });
      return `http://127.0.0.1:${app.classAssistant.port()}`;
    },
    async close() {
      if (closed) return;
      closed = true;
      await app.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}

/** Waits until `check` returns a value (not undefined/false), polling; fails after `timeoutMs`. */
export async function waitFor<T>(
  check: () => T | Promise<T>,
  timeoutMs = 10_000,
  what = 'condition',
): Promise<Exclude<T, false | undefined>> {
  const start = Date.now();
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value as Exclude<T, false | undefined>;
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
