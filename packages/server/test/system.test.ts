import { chmod, mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './support/harness.ts';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('GET /api/health', () => {
  it('is healthy without any settings and says in plain words what is not configured', async () => {
    harness = await createHarness();
    const response = await harness.request({ url: '/api/health' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({
      status: 'healthy',
      compatible_client: '1.2.0',
      data_dir: harness.dataDir,
      settings_file: harness.envFile,
      monitor: { state: 'idle', is_monitoring: false, is_paused: false },
      asr: {
        mode: 'local',
        available: false,
        settings: ['LOCAL_ASR_LANGUAGE', 'VOSK_MODEL_PATH'],
      },
      llm: { configured: false, missing: ['LLM_API_KEY'], model: 'deepseek-chat' },
      not_configured: [
        'AI features (rescue, catch-up, notes): set LLM_API_KEY in the settings.',
        expect.stringContaining('Recognition: No offline model for Chinese'),
      ],
    });
  });

  it('says which process answers, for the launcher: its pid, its launcher and the app version', async () => {
    harness = await createHarness();
    expect((await harness.request({ url: '/api/health' })).json()).toMatchObject({
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
      app_version: null,
      pid: process.pid,
      launcher_pid: null,
    });
    await harness.close();
    harness = await createHarness({ options: { appVersion: '1.2.0', launcherPid: 4242 } });
    expect((await harness.request({ url: '/api/health' })).json()).toMatchObject({
      app_version: '1.2.0',
      launcher_pid: 4242,
    });
    const docs = (await harness.request({ url: '/docs/json' })).json();
    expect(docs.info.version).toBe('1.2.0');
  });

  it('reports an invalid hand-edited value as a settings problem', async () => {
    harness = await createHarness({
      env: ['ASR_MODE=mock', 'LLM_API_KEY=k', 'MOCK_INTERVAL_MS=soon'],
    });
    const body = (await harness.request({ url: '/api/health' })).json();
    expect(body.settings_problems).toEqual([
      {
        key: 'MOCK_INTERVAL_MS',
        source: 'file',
        message: 'MOCK_INTERVAL_MS must be a whole number from 1 to 600000, got "soon"',
      },
    ]);
    expect(body.not_configured).toEqual([
      'Settings: MOCK_INTERVAL_MS must be a whole number from 1 to 600000, got "soon" (the default is used).',
    ]);
    expect(body.asr).toMatchObject({
      mode: 'mock',
      available: true,
      message: 'bundled lecture, one line every 3000 ms',
    });
  });
});

describe('pages and errors', () => {
  it('serves a landing page at / and Swagger UI at /docs', async () => {
    harness = await createHarness();
    const landing = await harness.request({ url: '/' });
    expect(landing.headers['content-type']).toContain('text/html');
    expect(landing.body).toContain('href="/docs"');
    const base = await harness.listen();
    const docs = await fetch(`${base}/docs`);
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain('swagger');
  });

  it('answers unknown routes and methods with the error shape', async () => {
    harness = await createHarness();
    const response = await harness.request({ method: 'DELETE', url: '/api/settings' });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({
      status: 'error',
      code: 'NOT_FOUND',
      message: 'No route DELETE /api/settings. See /docs for the API.',
      detail: 'No route DELETE /api/settings. See /docs for the API.',
    });
  });

  it('never sends a stack trace, even for an unexpected failure', async () => {
    if (process.getuid?.() === 0) {
      // Root ignores file permissions; make the failure another way: a folder where the file should be.
      harness = await createHarness({ env: ['ASR_MODE=mock', 'LLM_API_KEY=k'] });
      await writeFile(join(harness.dataDir, 'cite', 'x.txt'), 'x');
      await rm(join(harness.dataDir, 'current_class_material.txt'), { force: true });
      await mkdir(join(harness.dataDir, 'current_class_material.txt'));
    } else {
      harness = await createHarness({ env: ['ASR_MODE=mock'] });
      await writeFile(join(harness.dataDir, 'cite', 'x.txt'), 'x');
      await chmod(harness.dataDir, 0o500);
    }
    const response = await harness.request({
      method: 'POST',
      url: '/api/start_monitor',
      payload: { cite_filename: 'x.txt' },
    });
    await chmod(harness.dataDir, 0o700);
    expect(response.statusCode).toBe(500);
    expect(response.json()).toEqual({
      status: 'error',
      code: 'INTERNAL_ERROR',
      message: 'Internal error; the server log has the details.',
      detail: 'Internal error; the server log has the details.',
    });
    expect(response.body).not.toMatch(/\.ts:\d+|at [A-Za-z]/);
  });
});

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document covering every route of the original client', async () => {
    harness = await createHarness();
    const response = await harness.request({ url: '/docs/json' });
    const document = response.json();
    const validator = new Validator();
    const result = await validator.validate(document);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    const operations = Object.entries(
      document.paths as Record<string, Record<string, { summary?: string }>>,
    ).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    );
    for (const route of [
      'GET /api/health',
      'GET /api/check_mic',
      'GET /api/settings',
      'POST /api/settings',
      'POST /api/upload_ppt',
      'GET /api/cite_files',
      'POST /api/start_monitor',
      'POST /api/stop_monitor',
      'POST /api/pause_monitor',
      'POST /api/resume_monitor',
      'GET /api/monitor_status',
      'POST /api/emergency_rescue',
      'POST /api/emergency_rescue_chat',
      'POST /api/catchup',
      'POST /api/catchup_chat',
      'POST /api/generate_summary',
      'GET /api/keywords',
      'POST /api/update_keywords',
      'POST /api/reload_keywords',
      'GET /api/ws/alerts',
      'GET /api/ws/capture',
      'GET /api/events',
      'GET /api/transcript',
      'POST /api/catchup/stream',
    ]) {
      expect(operations).toContain(route);
    }
    for (const methods of Object.values(
      document.paths as Record<string, Record<string, { summary?: string }>>,
    )) {
      for (const operation of Object.values(methods)) expect(operation.summary).toBeTruthy();
    }
    // Every operation has its own stable name, for generated clients.
    const ids = Object.values(
      document.paths as Record<string, Record<string, { operationId?: string }>>,
    ).flatMap((methods) => Object.values(methods).map((operation) => operation.operationId));
    expect(ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z0-9]*$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toContain('postStartMonitor');
    expect(ids).toContain('getWsAlerts');
  });

  it('is served at /openapi.json too, naming the address the backend really listens on', async () => {
    harness = await createHarness();
    const base = await harness.listen();
    const document = (await (await fetch(`${base}/openapi.json`)).json()) as {
      servers: Array<{ url: string }>;
      paths: Record<string, unknown>;
    };
    expect(base).not.toBe('http://127.0.0.1:8765');
    expect(document.servers).toEqual([{ url: base }]);
    expect(Object.keys(document.paths)).toContain('/api/health');
    const docs = (await (await fetch(`${base}/docs/json`)).json()) as typeof document;
    expect(docs.servers).toEqual([{ url: base }]);
  });

  it('matches the snapshot (a changed API is a reviewed change)', async () => {
    harness = await createHarness();
    const document = (await harness.request({ url: '/docs/json' })).json();
    await expect(`${JSON.stringify(document, null, 2)}\n`).toMatchFileSnapshot(
      './__snapshots__/openapi-document.snap',
    );
  });
});

describe('request bodies', () => {
  it('takes an empty body sent as application/json as no body, as the original did', async () => {
    harness = await createHarness({ env: ['ASR_MODE=mock', 'MOCK_INTERVAL_MS=100000'] });
    const post = (url: string) =>
      harness!.request({
        method: 'POST',
        url,
        headers: { 'content-type': 'application/json' },
        payload: '',
      });
    const started = await post('/api/start_monitor');
    expect(started.json()).toMatchObject({ status: 'started' });
    expect((await post('/api/pause_monitor')).json()).toMatchObject({ status: 'paused' });
    expect((await post('/api/resume_monitor')).json()).toMatchObject({ status: 'resumed' });
    expect((await post('/api/reload_keywords')).json()).toMatchObject({ status: 'success' });
    expect((await post('/api/stop_monitor?with_summary=false')).json()).toMatchObject({
      status: 'stopped',
    });
    // The AI routes get as far as the missing LLM settings: the body was not the problem.
    for (const url of ['/api/emergency_rescue', '/api/catchup', '/api/generate_summary']) {
      const answer = await post(url);
      expect(answer.json(), url).toMatchObject({ code: 'LLM_NOT_CONFIGURED' });
    }
  });

  it('still names the body when a route needs one, and refuses broken JSON', async () => {
    harness = await createHarness();
    const empty = await harness.request({
      method: 'POST',
      url: '/api/settings',
      headers: { 'content-type': 'application/json' },
      payload: '',
    });
    expect(empty.statusCode).toBe(400);
    expect(empty.json()).toMatchObject({ code: 'VALIDATION_FAILED', field: 'body' });
    const broken = await harness.request({
      method: 'POST',
      url: '/api/stop_monitor',
      headers: { 'content-type': 'application/json' },
      payload: '{"with_summary": ',
    });
    expect(broken.statusCode).toBe(400);
    expect(broken.json()).toMatchObject({
      code: 'VALIDATION_FAILED',
      message: expect.stringContaining('not valid JSON'),
    });
    const poisoned = await harness.request({
      method: 'POST',
      url: '/api/update_keywords',
      headers: { 'content-type': 'application/json' },
      payload: '{"keywords": ["a"], "__proto__": {"x": 1}}',
    });
    expect(poisoned.statusCode).toBe(400);
  });
});
