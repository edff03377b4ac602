// POST /api/settings/test_connection against loopback fakes that speak the real protocols: the
// OpenAI-compatible API (chat and transcriptions), the streaming ASR service and DashScope. A
// wrong address is a closed loopback port or a web page; nothing leaves the machine.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createFakeOpenAIServer, type FakeOpenAIServer } from '@class-assistant/agent-std/testing';
import { type AsrTestServer, createAsrTestServer } from '@class-assistant/asr-protocol/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createDashscopeTestServer } from './support/dashscope-test-server.ts';
import { createHarness, type Harness } from './support/harness.ts';
import { freePort } from './support/ports.ts';

const GOOD_KEY = 'sk-good0123456789abcdef';
const WRONG_KEY = 'sk-wrong0123456789abcdef';

let harness: Harness | undefined;
const servers: Array<{ close(): Promise<void> }> = [];

afterEach(async () => {
  await harness?.close();
  harness = undefined;
  for (const server of servers.splice(0)) await server.close();
});

interface TestAnswer {
  status: string;
  target?: string;
  result?: string;
  ok?: boolean;
  message: string;
  technical?: string;
  field?: string;
  code?: string;
}

async function testConnection(
  body: { target: string; fields?: Record<string, string> },
  language: 'zh' | 'en' = 'en',
): Promise<{ statusCode: number; answer: TestAnswer }> {
  const response = await harness!.request({
    method: 'POST',
    url: '/api/settings/test_connection',
    headers: { 'accept-language': language === 'en' ? 'en' : 'zh-CN' },
    payload: body,
  });
  return { statusCode: response.statusCode, answer: response.json() as TestAnswer };
}

/** The fake LLM: knows the key GOOD_KEY and the model `known-model`, as OpenAI answers. */
async function fakeLlm(): Promise<FakeOpenAIServer> {
  const llm = await createFakeOpenAIServer({
    apiKey: GOOD_KEY,
    chat: (request) =>
      request.body.model === 'known-model'
        ? { type: 'text', content: 'OK' }
        : {
            type: 'error',
            status: 404,
            message: `The model \`${request.body.model}\` does not exist or you do not have access to it.`,
            code: 'model_not_found',
          },
    transcription: () => ({ type: 'text', text: '' }),
  });
  servers.push(llm);
  return llm;
}

/** A web server answering every request with a page, as a wrong address often does. */
async function webPage(): Promise<string> {
  const page: Server = createServer((request, response) => {
    response.writeHead(200, { 'content-type': 'text/html' });
    // It shows what it was sent (the key too), as a misconfigured proxy may.
    response.end(`<html><body>Welcome to nginx! ${request.headers.authorization}</body></html>`);
  });
  await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
  servers.push({ close: () => new Promise<void>((resolve) => page.close(() => resolve())) });
  return `http://127.0.0.1:${(page.address() as AddressInfo).port}`;
}

/** A closed loopback port: a connection there is refused. */
async function closedPort(): Promise<number> {
  return freePort();
}

describe('the LLM', () => {
  it('works: one chat completion of one token with the typed key, model and address', async () => {
    const llm = await fakeLlm();
    harness = await createHarness({ env: ['ASR_MODE=mock'] });
    const { statusCode, answer } = await testConnection({
      target: 'llm',
      fields: {
        LLM_BASE_URL: ` ${llm.baseURL} `,
        LLM_API_KEY: GOOD_KEY,
        LLM_MODEL: 'known-model',
        // The rest of the form is not read: another service's half-typed address does not block.
        STREAM_ASR_URL: 'not an address yet',
      },
    });
    expect(statusCode).toBe(200);
    expect(answer).toMatchObject({ status: 'success', target: 'llm', result: 'ok', ok: true });
    expect(answer.message).toMatch(/^It works: .* the model known-model answered in \d+ ms\.$/);
    expect(llm.chatRequests).toHaveLength(1);
    expect(llm.chatRequests[0]!.body).toMatchObject({ model: 'known-model', max_tokens: 1 });
    // Nothing was saved: the form's values were only tested.
    const saved = await harness.request({ url: '/api/settings' });
    expect(saved.json().fields.LLM_BASE_URL).toBe('');
  });

  it('tests the saved settings when the form sends none, and answers in Chinese by default', async () => {
    const llm = await fakeLlm();
    harness = await createHarness({
      env: [`LLM_BASE_URL=${llm.baseURL}`, `LLM_API_KEY=${GOOD_KEY}`, 'LLM_MODEL=known-model'],
    });
    const { answer } = await testConnection({ target: 'llm' }, 'zh');
    expect(answer.result).toBe('ok');
    expect(answer.message).toMatch(/^连接正常：.*模型 known-model 在 \d+ 毫秒内作答。$/);
  });

  it('wrong key: says so, names the key to check, and never shows the key', async () => {
    const llm = await fakeLlm();
    harness = await createHarness({ env: ['ASR_MODE=mock'] });
    const { answer } = await testConnection({
      target: 'llm',
      fields: { LLM_BASE_URL: llm.baseURL, LLM_API_KEY: WRONG_KEY, LLM_MODEL: 'known-model' },
    });
    expect(answer).toMatchObject({ result: 'wrong_key', ok: false, field: 'LLM_API_KEY' });
    expect(answer.message).toBe(
      "The LLM service refused the key (HTTP 401): check LLM_API_KEY and copy the whole key from the service's console again.",
    );
    expect(answer.technical).toMatch(/401/);
    expect(JSON.stringify(answer)).not.toContain(WRONG_KEY);
  });

  it('wrong address: a closed port is a refused connection, in words, the cause in technical', async () => {
    const port = await closedPort();
    harness = await createHarness({ env: ['ASR_MODE=mock'] });
    const { answer } = await testConnection(
      {
        target: 'llm',
        fields: {
          LLM_BASE_URL: `http://127.0.0.1:${port}/v1`,
          LLM_API_KEY: GOOD_KEY,
          LLM_MODEL: 'known-model',
        },
      },
      'zh',
    );
    expect(answer).toMatchObject({ result: 'wrong_address', field: 'LLM_BASE_URL' });
    expect(answer.message).toBe(
      `http://127.0.0.1:${port}/v1 拒绝了连接（那里没有服务在监听）：请检查 LLM_BASE_URL 的主机和端口。`,
    );
    expect(answer.technical).toContain('ECONNREFUSED');
  });

  it('wrong address: a web page where the API should be is "not the API there"', async () => {
    const base = await webPage();
    harness = await createHarness({ env: ['ASR_MODE=mock'] });
    const { answer } = await testConnection({
      target: 'llm',
      fields: { LLM_BASE_URL: base, LLM_API_KEY: 'plain-key-42', LLM_MODEL: 'known-model' },
    });
    expect(answer.result).toBe('wrong_address');
    expect(answer.message).toMatch(/answered \(HTTP 200\), but not as the LLM service would/);
    expect(answer.technical).toContain('Welcome to nginx! Bearer ••••••••y-42');
    expect(JSON.stringify(answer)).not.toContain('plain-key-42');
  });

  it('wrong address: a certificate this computer does not trust is a TLS problem', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'connection-test-tls-'));
    servers.push({ close: () => rm(folder, { recursive: true, force: true }) });
    // A throwaway self-signed certificate, as a network that intercepts secure connections shows.
    await promisify(execFile)('openssl', [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-keyout',
      join(folder, 'key.pem'),
      '-out',
      join(folder, 'cert.pem'),
    ]);
    const secure = createTlsServer(
      {
        key: await readFile(join(folder, 'key.pem')),
        cert: await readFile(join(folder, 'cert.pem')),
      },
      (_request, response) => response.end('{}'),
    );
    await new Promise<void>((resolve) => secure.listen(0, '127.0.0.1', resolve));
    servers.push({
      close: () =>
        new Promise<void>((resolve) => {
          secure.closeAllConnections();
          secure.close(() => resolve());
        }),
    });
    const base = `https://127.0.0.1:${(secure.address() as AddressInfo).port}/v1`;
    harness = await createHarness({ env: ['ASR_MODE=mock'] });
    const { answer } = await testConnection({
      target: 'llm',
      fields: { LLM_BASE_URL: base, LLM_API_KEY: GOOD_KEY, LLM_MODEL: 'known-model' },
    });
    expect(answer).toMatchObject({ result: 'wrong_address', field: 'LLM_BASE_URL' });
    expect(answer.message).toMatch(
      /^No secure connection to https:\/\/127\.0\.0\.1:\d+\/v1 \(a certificate or TLS error\)/,
    );
    expect(answer.technical).toMatch(/self.signed/i);
  });

  it('unknown model: the provider\'s "model does not exist" is told as such', async () => {
    const llm = await fakeLlm();
    harness = await createHarness({ env: ['ASR_MODE=mock'] });
    const { answer } = await testConnection({
      target: 'llm',
      fields: { LLM_BASE_URL: llm.baseURL, LLM_API_KEY: GOOD_KEY, LLM_MODEL: 'gpt-9' },
    });
    expect(answer).toMatchObject({ result: 'model_unknown', field: 'LLM_MODEL' });
    expect(answer.message).toBe(
      'The LLM service does not know "gpt-9" (HTTP 404): check LLM_MODEL and use a name the service\'s console lists.',
    );
  });

  it('rate limited and timeout', async () => {
    const llm = await createFakeOpenAIServer({
      chat: [{ type: 'error', status: 429, message: 'Rate limit reached' }, { type: 'hang' }],
    });
    servers.push(llm);
    harness = await createHarness({ env: ['ASR_MODE=mock', 'LLM_TIMEOUT=0.5'] });
    const fields = { LLM_BASE_URL: llm.baseURL, LLM_API_KEY: GOOD_KEY, LLM_MODEL: 'known-model' };
    const limited = await testConnection({ target: 'llm', fields });
    expect(limited.answer.result).toBe('rate_limited');
    expect(limited.answer.message).toMatch(/^The LLM service is rate-limiting \(HTTP 429\)/);
    const slow = await testConnection({ target: 'llm', fields });
    expect(slow.answer.result).toBe('timeout');
    expect(slow.answer.message).toMatch(/^The LLM service did not answer within 0\.5 s/);
    // One request each: a test is never retried.
    expect(llm.chatRequests).toHaveLength(2);
  });

  it('incomplete: an empty key is named, nothing is sent', async () => {
    harness = await createHarness({ env: ['ASR_MODE=mock'] });
    const { answer } = await testConnection({ target: 'llm' }, 'zh');
    expect(answer).toMatchObject({ result: 'incomplete', field: 'LLM_API_KEY' });
    expect(answer.message).toBe('还没有填写 LLM_API_KEY：填好后再测试。');
  });

  it('checks typed values as a save does, before connecting', async () => {
    // The same checks as a save (which also refuse link-local and cloud-metadata addresses;
    // settings-schema's tests cover those without handing one to a running backend).
    harness = await createHarness({ env: ['ASR_MODE=mock'] });
    const { statusCode, answer } = await testConnection({
      target: 'llm',
      fields: { LLM_BASE_URL: 'not an address', LLM_API_KEY: GOOD_KEY, LLM_MODEL: 'known-model' },
    });
    expect(statusCode).toBe(400);
    expect(answer).toMatchObject({ code: 'SETTINGS_INVALID', field: 'LLM_BASE_URL' });
  });

  it('never sends the stored key to an address it was not saved for', async () => {
    const saved = await fakeLlm();
    const other = await fakeLlm();
    harness = await createHarness({
      env: [`LLM_BASE_URL=${saved.baseURL}`, `LLM_API_KEY=${GOOD_KEY}`, 'LLM_MODEL=known-model'],
    });
    const view = (await harness.request({ url: '/api/settings' })).json();
    const { statusCode, answer } = await testConnection({
      target: 'llm',
      fields: { LLM_BASE_URL: other.baseURL, LLM_API_KEY: view.fields.LLM_API_KEY },
    });
    expect(statusCode).toBe(400);
    expect(answer).toMatchObject({ code: 'SETTINGS_SECRET_REQUIRED', field: 'LLM_API_KEY' });
    expect(answer.message).toMatch(/again.*LLM_API_KEY|LLM_API_KEY.*again/);
    expect(other.chatRequests).toHaveLength(0);
    // The stored key, posted back masked, is used where it was saved for.
    const kept = await testConnection({
      target: 'llm',
      fields: { LLM_BASE_URL: saved.baseURL, LLM_API_KEY: view.fields.LLM_API_KEY },
    });
    expect(kept.answer.result).toBe('ok');
  });
});

describe('the streaming recognizer', () => {
  const RESOURCE = 'volc.bigasr.sauc.duration';
  let service: AsrTestServer;
  const start = async () => {
    service = await createAsrTestServer({
      auth: { appKey: 'app-1', accessKey: 'access-token-1', resourceIds: [RESOURCE] },
    });
    servers.push(service);
    harness = await createHarness({ env: ['ASR_MODE=stream'] });
  };
  const fields = (changes: Record<string, string> = {}) => ({
    STREAM_ASR_URL: service.url,
    STREAM_ASR_APP_KEY: 'app-1',
    STREAM_ASR_ACCESS_KEY: 'access-token-1',
    ...changes,
  });

  it('works: the session a class opens, a moment of silence, the final result', async () => {
    await start();
    const { answer } = await testConnection({ target: 'stream', fields: fields() });
    expect(answer).toMatchObject({ result: 'ok', ok: true });
    expect(answer.message).toMatch(
      new RegExp(`^It works: the streaming service accepted the keys and the resource ${RESOURCE}`),
    );
    expect(service.connections).toHaveLength(1);
    expect(answer.technical).toContain('log id test-log-1');
  });

  it('wrong key', async () => {
    await start();
    const { answer } = await testConnection(
      { target: 'stream', fields: fields({ STREAM_ASR_ACCESS_KEY: 'not-the-token' }) },
      'zh',
    );
    expect(answer).toMatchObject({ result: 'wrong_key', field: 'STREAM_ASR_ACCESS_KEY' });
    expect(answer.message).toBe(
      '流式识别服务拒绝了密钥（HTTP 401）：请检查 STREAM_ASR_ACCESS_KEY，从服务的控制台重新复制完整的密钥。',
    );
    expect(JSON.stringify(answer)).not.toContain('not-the-token');
    expect(service.connections).toHaveLength(0);
  });

  it('a resource id the keys are not granted is the "model" it does not know', async () => {
    await start();
    const { answer } = await testConnection({
      target: 'stream',
      fields: fields({ STREAM_ASR_RESOURCE_ID: 'volc.other.resource' }),
    });
    expect(answer).toMatchObject({ result: 'model_unknown', field: 'STREAM_ASR_RESOURCE_ID' });
    expect(answer.message).toMatch(/does not know "volc\.other\.resource" \(HTTP 403\)/);
  });

  it('wrong address: a closed port', async () => {
    await start();
    const port = await closedPort();
    const { answer } = await testConnection({
      target: 'stream',
      fields: fields({ STREAM_ASR_URL: `ws://127.0.0.1:${port}` }),
    });
    expect(answer).toMatchObject({ result: 'wrong_address', field: 'STREAM_ASR_URL' });
    expect(answer.message).toBe(
      `ws://127.0.0.1:${port} refused the connection (nothing listens there): check the host and port of STREAM_ASR_URL.`,
    );
  });

  it('wrong address: a web server that is no streaming service', async () => {
    const page = await webPage();
    await start();
    const { answer } = await testConnection({
      target: 'stream',
      fields: fields({ STREAM_ASR_URL: page.replace('http:', 'ws:') }),
    });
    expect(answer.result).toBe('wrong_address');
    expect(answer.message).toMatch(/but not as the streaming recognition service would/);
  });
});

describe('DashScope and the cloud recognizer', () => {
  it('DashScope: works with the right key, names the key when refused', async () => {
    const service = await createDashscopeTestServer({
      apiKey: GOOD_KEY,
      referenceAudio: new Uint8Array(3200),
      sentences: [],
    });
    servers.push(service);
    harness = await createHarness({ env: ['ASR_MODE=dashscope'] });
    const works = await testConnection({
      target: 'dashscope',
      fields: { DASHSCOPE_WS_URL: service.url, DASHSCOPE_API_KEY: GOOD_KEY },
    });
    expect(works.answer.result).toBe('ok');
    expect(works.answer.message).toMatch(/^It works: DashScope accepted the API key/);
    const refused = await testConnection({
      target: 'dashscope',
      fields: { DASHSCOPE_WS_URL: service.url, DASHSCOPE_API_KEY: WRONG_KEY },
    });
    expect(refused.answer).toMatchObject({ result: 'wrong_key', field: 'DASHSCOPE_API_KEY' });
    const model = await testConnection({
      target: 'dashscope',
      fields: {
        DASHSCOPE_WS_URL: service.url,
        DASHSCOPE_API_KEY: GOOD_KEY,
        DASHSCOPE_ASR_MODEL: 'no-such-asr',
      },
    });
    expect(model.answer).toMatchObject({ result: 'model_unknown', field: 'DASHSCOPE_ASR_MODEL' });
  });

  it('cloud: half a second of silence transcribed; a wrong key refused', async () => {
    const llm = await fakeLlm();
    harness = await createHarness({ env: ['ASR_MODE=cloud'] });
    const fields = {
      CLOUD_ASR_BASE_URL: llm.baseURL,
      CLOUD_ASR_API_KEY: GOOD_KEY,
      CLOUD_ASR_MODEL: 'whisper-1',
    };
    const works = await testConnection({ target: 'cloud', fields });
    expect(works.answer.result).toBe('ok');
    expect(llm.transcriptionRequests).toHaveLength(1);
    expect(llm.transcriptionRequests[0]!.audio.byteLength).toBe(44 + 16_000);
    const refused = await testConnection({
      target: 'cloud',
      fields: { ...fields, CLOUD_ASR_API_KEY: WRONG_KEY },
    });
    expect(refused.answer).toMatchObject({ result: 'wrong_key', field: 'CLOUD_ASR_API_KEY' });
  });
});
