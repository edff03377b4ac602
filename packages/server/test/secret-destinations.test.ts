// A stored key goes only where the user typed it for: a local program that posts settings
// cannot point LLM_BASE_URL (or the cloud, streaming or DashScope address, through their
// aliases and fallbacks) at itself and collect the key. A listener on a loopback port plays
// that program; it must never see an Authorization header.

import { readFile, writeFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createFakeOpenAIServer, type FakeOpenAIServer } from '@class-assistant/agent-std/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './support/harness.ts';

let llm: FakeOpenAIServer;
let harness: Harness;
let thief: { url: string; seen: IncomingHttpHeaders[]; close(): Promise<void> };

async function listener() {
  const seen: IncomingHttpHeaders[] = [];
  const server = createServer((request, response) => {
    seen.push(request.headers);
    response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  server.on('upgrade', (request, socket) => {
    seen.push(request.headers);
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    seen,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const KEY = 'sk-the-users-real-key-7777';

beforeEach(async () => {
  llm = await createFakeOpenAIServer({ apiKey: KEY });
  thief = await listener();
  harness = await createHarness({
    env: [
      'ASR_MODE=mock',
      `LLM_BASE_URL=${llm.baseURL}`,
      `LLM_API_KEY=${KEY}`,
      'SEED_ASR_WS_URL=wss://openspeech.bytedance.com/api/v3/sauc/bigmodel',
      'SEED_ASR_APP_KEY=7391046528',
      'SEED_ASR_ACCESS_KEY=access-token-0123456789',
      'DASHSCOPE_API_KEY=sk-dashscope-0123456789',
    ],
  });
  await harness.app.classAssistant.store.reset({ courseName: '数据结构' });
  await harness.app.classAssistant.store.append('老师在讲链表的删除。');
});
afterEach(async () => {
  await harness.close();
  await llm.close();
  await thief.close();
});

const save = (payload: object, language = 'en') =>
  harness.request({
    method: 'POST',
    url: '/api/settings',
    headers: { 'accept-language': language },
    payload,
  });

describe('changing where a stored key is sent', () => {
  it('needs the key in the same request: a masked one is refused naming it, and nothing changes', async () => {
    const before = await readFile(harness.envFile, 'utf8');
    const masked = (await harness.request({ url: '/api/settings' })).json().fields.LLM_API_KEY;
    for (const fields of [
      { LLM_BASE_URL: thief.url },
      { LLM_BASE_URL: thief.url, LLM_API_KEY: masked },
    ]) {
      const refused = await save({ fields });
      expect(refused.statusCode).toBe(400);
      expect(refused.json()).toMatchObject({
        code: 'SETTINGS_SECRET_REQUIRED',
        field: 'LLM_API_KEY',
        message: expect.stringContaining('Type the API key (LLM_API_KEY) again in this save'),
      });
      // Said once, though two addresses would send it (LLM_BASE_URL, and CLOUD_ASR_BASE_URL that
      // falls back to it).
      const origin = new URL(thief.url).origin;
      expect(refused.json().message).toBe(
        `Type the API key (LLM_API_KEY) again in this save: the stored one is not sent to a new address (${origin}). Nothing was changed.`,
      );
      expect(refused.json().fields).toHaveLength(1);
    }
    // The original client posts the whole file, masked: the same refusal, in Chinese.
    const { content } = (await harness.request({ url: '/api/settings' })).json();
    const viaContent = await save(
      { content: content.replace(/^LLM_BASE_URL=.*$/m, `LLM_BASE_URL=${thief.url}`) },
      'zh-CN',
    );
    expect(viaContent.json()).toMatchObject({
      code: 'SETTINGS_SECRET_REQUIRED',
      field: 'LLM_API_KEY',
      message: expect.stringContaining('请在这次保存中重新填写 API 密钥（LLM_API_KEY）'),
    });
    expect(await readFile(harness.envFile, 'utf8')).toBe(before);
    // The AI features still go to the provider the key was typed for; the listener saw nothing.
    llm.enqueueChat({ type: 'text', content: '{"question":"q","context":"c","answer":"a"}' });
    const rescue = await harness.request({ method: 'POST', url: '/api/emergency_rescue' });
    expect(rescue.statusCode).toBe(200);
    expect(llm.chatRequests).toHaveLength(1);
    expect(thief.seen).toEqual([]);
  });

  it('takes a new address together with the key typed for it', async () => {
    const saved = await save({
      fields: { LLM_BASE_URL: thief.url, LLM_API_KEY: 'sk-typed-for-this-host-1' },
    });
    expect(saved.statusCode).toBe(200);
    await harness.request({ method: 'POST', url: '/api/emergency_rescue' });
    expect(thief.seen.map((headers) => headers.authorization)).toContain(
      'Bearer sk-typed-for-this-host-1',
    );
    expect(JSON.stringify(thief.seen)).not.toContain(KEY);
  });

  it('holds through the fallbacks: the cloud address gets LLM_API_KEY when its own key is empty', async () => {
    const viaCloudAddress = await save({ fields: { CLOUD_ASR_BASE_URL: thief.url } });
    expect(viaCloudAddress.json()).toMatchObject({
      code: 'SETTINGS_SECRET_REQUIRED',
      field: 'LLM_API_KEY',
      message: expect.stringContaining('because CLOUD_ASR_API_KEY is empty'),
    });
    // With its own key the cloud address may move: that key was typed for it.
    expect(
      (
        await save({
          fields: { CLOUD_ASR_BASE_URL: thief.url, CLOUD_ASR_API_KEY: 'sk-cloud-typed-0001' },
        })
      ).statusCode,
    ).toBe(200);
    // Emptying that key would now send LLM_API_KEY to the cloud address: refused.
    const emptied = await save({ fields: { CLOUD_ASR_API_KEY: '' } });
    expect(emptied.json()).toMatchObject({
      code: 'SETTINGS_SECRET_REQUIRED',
      field: 'LLM_API_KEY',
    });
    // Moving LLM_BASE_URL moves where the cloud mode's key goes too (CLOUD_ASR_BASE_URL empty).
    await save({ fields: { CLOUD_ASR_BASE_URL: '', CLOUD_ASR_API_KEY: 'sk-cloud-typed-0002' } });
    const moved = await save({
      fields: { LLM_BASE_URL: thief.url, LLM_API_KEY: 'sk-llm-typed-0003' },
    });
    expect(moved.json()).toMatchObject({
      code: 'SETTINGS_SECRET_REQUIRED',
      field: 'CLOUD_ASR_API_KEY',
    });
  });

  it('holds for the streaming address under its original name, and for DashScope', async () => {
    const before = await readFile(harness.envFile, 'utf8');
    const { content } = (await harness.request({ url: '/api/settings' })).json();
    const stream = await save({
      content: content.replace(
        /^SEED_ASR_WS_URL=.*$/m,
        `SEED_ASR_WS_URL=${thief.url.replace('http', 'ws')}`,
      ),
    });
    expect(stream.json()).toMatchObject({
      code: 'SETTINGS_SECRET_REQUIRED',
      field: 'STREAM_ASR_APP_KEY',
    });
    expect(stream.json().fields.map((field: { field: string }) => field.field)).toEqual([
      'STREAM_ASR_APP_KEY',
      'STREAM_ASR_ACCESS_KEY',
    ]);
    // Named as the user's file names them.
    expect(stream.json().message).toContain('(SEED_ASR_APP_KEY)');
    expect(stream.json().message).toContain('(SEED_ASR_ACCESS_KEY)');
    expect(stream.json().message).not.toContain('STREAM_ASR_');
    const dashscope = await save({ fields: { DASHSCOPE_WS_URL: thief.url.replace('http', 'ws') } });
    expect(dashscope.json()).toMatchObject({
      code: 'SETTINGS_SECRET_REQUIRED',
      field: 'DASHSCOPE_API_KEY',
    });
    expect(await readFile(harness.envFile, 'utf8')).toBe(before);
    // A path on the same host is the same destination: no key needed.
    expect(
      (
        await save({
          fields: { DASHSCOPE_WS_URL: 'wss://dashscope.aliyuncs.com/api-ws/v1/inference/' },
        })
      ).statusCode,
    ).toBe(200);
    expect(thief.seen).toEqual([]);
  });

  it('refuses link-local and cloud-metadata provider addresses', async () => {
    for (const address of [
      'http://169.254.169.254/latest/meta-data',
      'http://[fe80::1]/v1',
      'http://[::ffff:169.254.169.254]/v1',
      'http://2852039166/v1',
      'http://metadata.google.internal/computeMetadata/v1',
    ]) {
      const refused = await save({
        fields: { LLM_BASE_URL: address, LLM_API_KEY: 'sk-typed-0000000000' },
      });
      expect(refused.statusCode, address).toBe(400);
      expect(refused.json(), address).toMatchObject({
        code: 'SETTINGS_INVALID',
        field: 'LLM_BASE_URL',
        message: expect.stringContaining('link-local or cloud-metadata address'),
      });
    }
    const dashscope = await save({ fields: { DASHSCOPE_WS_URL: 'ws://169.254.0.7/api-ws' } });
    expect(dashscope.json()).toMatchObject({ code: 'SETTINGS_INVALID', field: 'DASHSCOPE_WS_URL' });
  });

  it('leaves the user’s own hand edits to them', async () => {
    await writeFile(
      harness.envFile,
      (await readFile(harness.envFile, 'utf8')).replace(llm.baseURL, 'https://api.openai.com/v1'),
    );
    await harness.app.classAssistant.settings.load();
    expect(harness.app.classAssistant.settings.current().llmBaseUrl).toBe(
      'https://api.openai.com/v1',
    );
  });
});
