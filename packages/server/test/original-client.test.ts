// The original v1.2.0 desktop client's users: their settings file, their client (which shows
// only HTTP 200 bodies and alert-socket messages), their language, and their habits (notes
// after a restart, a settings file edited by hand) — each over the real HTTP API.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { createFakeOpenAIServer, type FakeOpenAIServer } from '@class-assistant/agent-std/testing';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { buildApp } from '../src/app.ts';
import { type RunningServer, startServer } from '../src/server.ts';
import { createHarness, FAST_MOCK, type Harness, waitFor } from './support/harness.ts';
import { freePort } from './support/ports.ts';

let harness: Harness | undefined;
let llm: FakeOpenAIServer | undefined;
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await harness?.close();
  harness = undefined;
  await llm?.close();
  llm = undefined;
});

/** A settings file as the original product wrote it. */
const ORIGINAL_ENV = [
  '# 课堂助手 配置',
  'ASR_MODE=seed-asr',
  'SEED_ASR_WS_URL=wss://openspeech.bytedance.com/api/v3/sauc/bigmodel',
  'SEED_ASR_APP_KEY=7391046528',
  'SEED_ASR_ACCESS_KEY=access-token-0123456789abcd',
  'SEED_ASR_RESOURCE_ID=volc.bigasr.sauc.duration',
  'DASHSCOPE_API_KEY=sk-dashscope-0123456789wxyz',
  'LLM_BASE_URL=https://api.deepseek.com/v1',
  'LLM_API_KEY=sk-llm-0123456789abcd',
  'API_PORT=8765',
  'AUDIO_CHUNK_SIZE=1024',
  '',
].join('\n');
const ORIGINAL_SECRETS = [
  '7391046528',
  'access-token-0123456789abcd',
  'sk-dashscope-0123456789wxyz',
  'sk-llm-0123456789abcd',
];

async function originalSettings(): Promise<Harness> {
  harness = await createHarness();
  await writeFile(harness.envFile, ORIGINAL_ENV);
  return harness;
}

describe('the original settings file', () => {
  it('works unchanged: seed-asr is the streaming mode and the SEED_ASR_* keys are its keys', async () => {
    const app = await originalSettings();
    const body = (await app.request({ url: '/api/settings' })).json();
    expect(body.problems).toEqual([]);
    expect(app.app.classAssistant.settings.current()).toMatchObject({
      asrMode: 'stream',
      streamAsrUrl: 'wss://openspeech.bytedance.com',
      streamAsrEndpoint: 'bigmodel',
      streamAsrAppKey: '7391046528',
      streamAsrAccessKey: 'access-token-0123456789abcd',
      dashscopeApiKey: 'sk-dashscope-0123456789wxyz',
      apiPort: 8765,
      audioChunkSize: 1024,
    });
    // Every one of its secrets is masked, in the fields and in the file as shown.
    expect(body.fields).toMatchObject({
      ASR_MODE: 'seed-asr',
      STREAM_ASR_APP_KEY: '••••••••',
      STREAM_ASR_ACCESS_KEY: '••••••••abcd',
      DASHSCOPE_API_KEY: '••••••••wxyz',
    });
    for (const secret of ORIGINAL_SECRETS) expect(JSON.stringify(body)).not.toContain(secret);
    expect(body.content).toContain('SEED_ASR_ACCESS_KEY=••••••••abcd\n');
    expect(body.content).toContain('DASHSCOPE_API_KEY=••••••••wxyz\n');
    // The original's lines are main keys, not extra lines to be added again.
    expect(body.extra_lines).toBe('# 课堂助手 配置\n');
    const health = await app.request({ url: '/api/health' });
    expect(health.json().asr.mode).toBe('stream');
  });

  it('lets the original client’s dropdown save each of its four modes through {content}', async () => {
    const app = await originalSettings();
    for (const [mode, effective] of [
      ['local', 'local'],
      ['mock', 'mock'],
      ['dashscope', 'dashscope'],
      ['seed-asr', 'stream'],
    ]) {
      const { content } = (await app.request({ url: '/api/settings' })).json();
      const saved = await app.request({
        method: 'POST',
        url: '/api/settings',
        payload: { content: content.replace(/^ASR_MODE=.*$/m, `ASR_MODE=${mode}`) },
      });
      expect(saved.statusCode, mode).toBe(200);
      expect(app.app.classAssistant.settings.current().asrMode).toBe(effective);
    }
    // Nothing else moved: the user's file is byte for byte theirs, secrets included.
    expect(await readFile(app.envFile, 'utf8')).toBe(ORIGINAL_ENV);
  });

  it('saves a key under the name the user wrote, never renaming their line', async () => {
    const app = await originalSettings();
    const saved = await app.request({
      method: 'POST',
      url: '/api/settings',
      payload: {
        fields: {
          STREAM_ASR_ACCESS_KEY: 'new-access-token-999',
          STREAM_ASR_RESOURCE_ID: 'volc.seedasr.sauc.duration',
        },
      },
    });
    // `changed` names each key as the user's file does (the original client reads it and knows
    // only the original SEED_ASR_* names), whichever name the request used.
    expect(saved.json()).toMatchObject({
      changed: ['SEED_ASR_ACCESS_KEY', 'SEED_ASR_RESOURCE_ID'],
    });
    const text = await readFile(app.envFile, 'utf8');
    expect(text).toBe(
      ORIGINAL_ENV.replace('access-token-0123456789abcd', 'new-access-token-999').replace(
        'SEED_ASR_RESOURCE_ID=volc.bigasr.sauc.duration',
        'SEED_ASR_RESOURCE_ID=volc.seedasr.sauc.duration',
      ),
    );
    expect(text).not.toContain('STREAM_ASR_');
  });

  it('listens on API_PORT when the command line names no port', async () => {
    const app = await originalSettings();
    const port = await freePort();
    await writeFile(app.envFile, ORIGINAL_ENV.replace('API_PORT=8765', `API_PORT=${port}`));
    const server: RunningServer = await startServer(
      {
        host: '127.0.0.1',
        port: 8765,
        portFromSettings: true,
        dataDir: join(app.root, 'process-data'),
        envFile: app.envFile,
      },
      { console: new Writable({ write: (_chunk, _encoding, done) => done() }) },
    );
    cleanups.push(() => server.close());
    expect(server.url).toBe(`http://127.0.0.1:${port}`);
    expect((await fetch(`${server.url}/api/health`)).status).toBe(200);
  });
});

describe('the original client’s failures', () => {
  const TAURI = { origin: 'tauri://localhost' };

  async function withLlm(env: string[] = []) {
    llm = await createFakeOpenAIServer({ apiKey: 'sk-the-right-key-0000' });
    harness = await createHarness({
      env: [
        'ASR_MODE=mock',
        `LLM_BASE_URL=${llm.baseURL}`,
        'LLM_API_KEY=sk-a-wrong-key-1111',
        ...env,
      ],
    });
    await harness.app.classAssistant.store.reset({ courseName: '数据结构' });
    await harness.app.classAssistant.store.append('请学号尾号是 7 的同学回答一下。');
    return harness;
  }

  it('answers AI failures with HTTP 200 and the reason in the field it shows, in its language', async () => {
    const app = await withLlm();
    const rescue = await app.request({
      method: 'POST',
      url: '/api/emergency_rescue',
      headers: TAURI,
    });
    expect(rescue.statusCode).toBe(200);
    expect(rescue.json()).toMatchObject({
      status: 'error',
      code: 'LLM_AUTH_FAILED',
      answer: expect.stringContaining('拒绝了 API 密钥'),
    });
    expect(rescue.json().answer).toBe(rescue.json().message);
    const catchup = await app.request({
      method: 'POST',
      url: '/api/catchup',
      headers: { origin: 'http://localhost:1420', 'accept-language': 'en-US,en;q=0.9' },
    });
    expect(catchup.statusCode).toBe(200);
    expect(catchup.json()).toMatchObject({
      status: 'error',
      code: 'LLM_AUTH_FAILED',
      summary: expect.stringContaining('refused the API key (HTTP 401): check LLM_API_KEY'),
    });
    for (const [url, payload] of [
      ['/api/emergency_rescue_chat', { followup: '为什么？' }],
      ['/api/catchup_chat', { question: '作业是什么？' }],
    ] as const) {
      const chat = await app.request({ method: 'POST', url, headers: TAURI, payload });
      expect(chat.statusCode, url).toBe(200);
      expect(chat.json(), url).toMatchObject({
        status: 'error',
        answer: expect.stringContaining('LLM_API_KEY'),
      });
    }
    const notes = await app.request({
      method: 'POST',
      url: '/api/generate_summary',
      headers: TAURI,
    });
    expect(notes.json()).toMatchObject({
      status: 'error',
      summary: expect.stringContaining('LLM_API_KEY'),
    });
    // Everyone else keeps the HTTP status and the error body.
    const ours = await app.request({ method: 'POST', url: '/api/emergency_rescue' });
    expect(ours.statusCode).toBe(502);
    expect(ours.json()).toMatchObject({ status: 'error', code: 'LLM_AUTH_FAILED' });
  });

  it('sends a failed start_monitor to its alert socket as a message it shows, in its language', async () => {
    harness = await createHarness({ env: ['ASR_MODE=seed-asr'] });
    const base = await harness.listen();
    const ws = base.replace('http', 'ws');
    const open = (headers: Record<string, string>) =>
      new Promise<{ messages: unknown[]; socket: WebSocket }>((resolve, reject) => {
        const socket = new WebSocket(`${ws}/api/ws/alerts`, {
          origin: 'tauri://localhost',
          headers,
        });
        const messages: unknown[] = [];
        socket.on('message', (data) => messages.push(JSON.parse(data.toString())));
        socket.on('open', () => resolve({ messages, socket }));
        socket.on('error', reject);
        cleanups.push(async () => socket.close());
      });
    const chinese = await open({ 'accept-language': 'zh-CN,zh;q=0.9' });
    const english = await open({ 'accept-language': 'en' });
    const started = await fetch(`${base}/api/start_monitor`, {
      method: 'POST',
      headers: { origin: 'tauri://localhost', 'content-type': 'application/json' },
      body: JSON.stringify({ course_name: '数据结构' }),
    });
    expect(started.status).toBe(503);
    const alert = (messages: unknown[]) => waitFor(() => messages[0], 5000, 'the failure notice');
    expect(await alert(chinese.messages)).toEqual({
      type: 'keyword_alert',
      level: 'warning',
      keywords: ['启动监控失败'],
      text: 'ASR_MODE=stream 需要 STREAM_ASR_APP_KEY 和 STREAM_ASR_ACCESS_KEY（流式识别服务控制台里的应用 ID 和访问令牌）。',
      timestamp: expect.stringMatching(/^\d\d:\d\d:\d\d$/),
      // An extra field the original client ignores: the notice does not call on the student.
      for_you: false,
    });
    expect(await alert(english.messages)).toMatchObject({
      keywords: ['Start failed'],
      text: expect.stringContaining(
        'ASR_MODE=stream needs STREAM_ASR_APP_KEY and STREAM_ASR_ACCESS_KEY',
      ),
    });
    // A client that opens its socket just after pressing start still gets it.
    const late = await open({});
    expect(await alert(late.messages)).toMatchObject({ keywords: ['启动监控失败'] });
    // Once a class starts, the notice is over: a new socket hears nothing of it.
    await writeFile(harness.envFile, `${FAST_MOCK.join('\n')}\n`);
    await harness.app.classAssistant.settings.load();
    expect((await fetch(`${base}/api/start_monitor`, { method: 'POST' })).status).toBe(200);
    const after = await open({});
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(
      after.messages.filter(
        (message) => (message as { keywords: string[] }).keywords[0] === '启动监控失败',
      ),
    ).toEqual([]);
  });
});

describe('messages in the user’s language', () => {
  async function upload(base: string, name: string, bytes: Uint8Array, language?: string) {
    const form = new FormData();
    form.append('file', new Blob([bytes]), name);
    const response = await fetch(`${base}/api/upload_ppt`, {
      method: 'POST',
      body: form,
      ...(language ? { headers: { 'accept-language': language } } : {}),
    });
    return (await response.json()) as Record<string, unknown>;
  }

  it('reports uploads in Chinese by default and English on request, never echoing control or bidi characters', async () => {
    harness = await createHarness({ env: ['ASR_MODE=mock'] });
    const base = await harness.listen();
    const slides = await readFile(new URL('./fixtures/slides.pptx', import.meta.url));
    // U+202E would show "第二讲xtpp.exe" reversed; U+0007 rings a terminal bell.
    const name = '第二讲\u202E\u0007 链表.pptx';
    const chinese = await upload(base, name, slides);
    expect(chinese.message).toMatch(
      /^已读取 第二讲 链表\.pptx：2 张幻灯片，\d+ 个字符。已保存为 第二讲_链表_\d{8}_\d{6}\.txt。$/,
    );
    const english = await upload(base, name, slides, 'en');
    expect(english.message).toMatch(
      /^Read 第二讲 链表\.pptx: 2 slides, \d+ characters\. Saved as /,
    );
    const refused = await upload(base, 'notes\u202Efdp.exe', new Uint8Array([1, 2, 3]));
    expect(refused).toMatchObject({
      code: 'UPLOAD_UNSUPPORTED_TYPE',
      message: '无法读取 ".exe" 文件：请上传 .pptx、.pdf 或 .docx 文件。',
    });
    const legacy = await upload(base, 'week1.ppt', new Uint8Array([1, 2, 3]), 'en');
    expect(legacy).toMatchObject({
      code: 'UPLOAD_LEGACY_FORMAT',
      message: expect.stringContaining('save it as .pptx'),
    });
    for (const body of [chinese, english, refused, legacy]) {
      const text = JSON.stringify(body);
      for (const hidden of ['\u202E', '\u0007', '\\u202e', '\\u0007']) {
        expect(text.toLowerCase()).not.toContain(hidden.toLowerCase());
      }
    }
  });

  it('reports notes errors in either language, with a clean file name and a stable code', async () => {
    harness = await createHarness({ env: ['ASR_MODE=mock'] });
    const missing = await harness.request({
      url: `/api/notes/${encodeURIComponent('期中\u202E复习.md')}`,
    });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({
      code: 'NOTES_NOT_FOUND',
      message: 'data/summaries 中没有名为 "期中复习.md" 的笔记，请在 /api/notes 的列表中选择。',
    });
    const invalid = await harness.request({
      url: `/api/notes/${encodeURIComponent('..\u0000x.md')}`,
      headers: { 'accept-language': 'en' },
    });
    expect(invalid.json()).toMatchObject({
      code: 'NOTES_FILENAME_INVALID',
      message: '"..x.md" is not the name of a notes file (a plain .md name from /api/notes).',
    });
    const empty = await harness.request({ method: 'POST', url: '/api/stop_monitor' });
    expect(empty.json().status).toBe('not_running');
  });
});

describe('the original client’s other habits', () => {
  it('writes notes after a backend restart from the transcript left on disk', async () => {
    llm = await createFakeOpenAIServer({ apiKey: 'sk-test-key-000000000000' });
    harness = await createHarness({
      env: [...FAST_MOCK, `LLM_BASE_URL=${llm.baseURL}`, 'LLM_API_KEY=sk-test-key-000000000000'],
    });
    expect((await harness.startMonitor({ course_name: '数据结构' })).statusCode).toBe(200);
    await waitFor(() => harness!.app.classAssistant.store.entryCount >= 3, 10_000, 'three lines');
    await harness.request({ method: 'POST', url: '/api/stop_monitor?with_summary=false' });
    const lines = (await harness.request({ url: '/api/transcript' })).json().entries as Array<{
      text: string;
    }>;
    // The backend goes away and a new one starts on the same files.
    await harness.app.close();
    const restarted = await buildApp({
      dataDir: harness.dataDir,
      envFile: harness.envFile,
      port: 8765,
    });
    cleanups.push(() => restarted.close());
    llm.enqueueChat({ type: 'text', content: '# 数据结构 课堂笔记\n\n- 链表' });
    const notes = await restarted.inject({
      method: 'POST',
      url: '/api/generate_summary',
      headers: { host: '127.0.0.1:8765', origin: 'tauri://localhost' },
    });
    expect(notes.statusCode).toBe(200);
    expect(notes.json()).toMatchObject({ status: 'success', course_name: '数据结构' });
    const sent = llm.chatRequests[0]!.body.messages!.at(-1)!.content as string;
    for (const line of lines) expect(sent).toContain(line.text);
  });

  it('gives reload_keywords the original’s {danger, warning} and GET /api/keywords a warning_file', async () => {
    harness = await createHarness({ env: ['ASR_MODE=mock'] });
    await writeFile(
      join(harness.dataDir, 'keywords.txt'),
      '[提醒]\n点名\n回答问题\n[注意]\n作业\n考试\n',
    );
    await harness.request({
      method: 'POST',
      url: '/api/update_keywords',
      payload: { keywords: ['张三'] },
    });
    const reloaded = (
      await harness.request({ method: 'POST', url: '/api/reload_keywords' })
    ).json();
    expect(reloaded).toMatchObject({
      status: 'success',
      danger: ['点名', '回答问题', '张三'],
      warning: ['作业', '考试'],
      keywords: ['点名', '回答问题', '作业', '考试', '张三'],
    });
    const listed = (await harness.request({ url: '/api/keywords' })).json();
    expect(listed.warning_file).toBe(join(harness.dataDir, 'keywords.txt'));
  });

  it('allows the original client’s development origins beside its Tauri ones', async () => {
    harness = await createHarness({ env: ['ASR_MODE=mock'] });
    for (const origin of [
      'http://localhost:1420',
      'http://127.0.0.1:1420',
      'tauri://localhost',
      'http://tauri.localhost',
    ]) {
      const response = await harness.request({ url: '/api/monitor_status', headers: { origin } });
      expect(response.statusCode, origin).toBe(200);
      expect(response.headers['access-control-allow-origin']).toBe(origin);
    }
    const other = await harness.request({
      url: '/api/monitor_status',
      headers: { origin: 'http://localhost:1421' },
    });
    expect(other.statusCode).toBe(403);
  });

  it('picks up a settings file edited by hand within two seconds, for health and the next class', async () => {
    harness = await createHarness({
      env: ['ASR_MODE=local', 'LLM_API_KEY=sk-secret-typed-by-hand-0000'],
    });
    const base = await harness.listen();
    const mode = async () =>
      ((await (await fetch(`${base}/api/health`)).json()) as { asr: { mode: string } }).asr.mode;
    expect(await mode()).toBe('local');
    const edited = Date.now();
    await writeFile(
      harness.envFile,
      `${FAST_MOCK.join('\n')}\nLLM_API_KEY=sk-secret-typed-by-hand-0000\n`,
    );
    await waitFor(async () => (await mode()) === 'mock', 2000, 'the hand edit to apply');
    expect(Date.now() - edited).toBeLessThan(2000);
    const started = await fetch(`${base}/api/start_monitor`, { method: 'POST' });
    expect(await started.json()).toMatchObject({ status: 'started', effective_asr_mode: 'mock' });
    await fetch(`${base}/api/stop_monitor?with_summary=false`, { method: 'POST' });
  });
});
