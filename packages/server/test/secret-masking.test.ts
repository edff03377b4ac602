// Secrets by meaning, through the backend process: what the settings answer, the health report
// and the startup log show of a settings file full of secrets under ordinary names, and what a
// client saving the masks back (with a stray space) leaves in the file on disk.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BackendProcess, startBackendProcess } from './support/backend-process.ts';
import { waitFor } from './support/harness.ts';
import { freePort } from './support/ports.ts';

/**
 * Each secret value, under the names that hid nothing when only KEY/TOKEN/SECRET/PASSWORD did
 * (webhook addresses are covered by the rules' own tests: no outside host is written here).
 */
const SECRETS: Record<string, string> = {
  PWD: 'pwd-Value-1138',
  DB_PWD: 'db-pwd-Value-2217',
  MYSQL_PWD: 'mysql-Value-3391',
  PASS: 'pass-Value-4420',
  pass_word: 'pass-word-Value-5519',
  AUTH: 'auth-Value-6604',
  AUTH_HEADER: '"Basic dXNlcjpwYXNzLTc3MTk="',
  authorization: '"Bearer authz-Value-8828"',
  BEARER: 'bearer-Value-9937',
  HTTP_AUTH: 'admin:http-auth-Value-1046',
  COOKIE: 'sid=cookie-Value-2155',
  SESSION_COOKIE: 'session-Value-3264',
  PASSPHRASE: '"correct horse battery 4373"',
  PIN: 'pin-5482',
  SIGNING_SALT: 'salt-Value-6591',
  ＡＰＩ_ＫＥＹ: 'fullwidth-Value-7600',
  NOTE: 'sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z',
};

/** Addresses with a password: the password is hidden, the rest of the address stays visible. */
const ADDRESSES = {
  DATABASE_URL: ['postgres://app:db-url-Pass-9828@127.0.0.1:5432/class', 'db-url-Pass-9828'],
  PROXY_URL: ['http://proxy:proxy-Pass-1937@127.0.0.1:3128', 'proxy-Pass-1937'],
  LLM_BASE_URL: ['http://llm-user:llm-Pass-2046@127.0.0.1:9/v1', 'llm-Pass-2046'],
  // Not an http(s) address: refused, and the refusal quotes the value.
  CLOUD_ASR_BASE_URL: ['ftp://asr:asr-Pass-3155@127.0.0.1/', 'asr-Pass-3155'],
} as const;

const LLM_KEY = 'sk-live-0123456789abcdef';

const FILE = [
  'ASR_MODE=mock',
  `LLM_API_KEY=${LLM_KEY}`,
  ...Object.entries(SECRETS).map(([name, value]) => `${name}=${value}`),
  ...Object.entries(ADDRESSES).map(([name, [value]]) => `${name}=${value}`),
  `# the old one: ${SECRETS.NOTE!.replace('Ab3d', 'Zz9q')}`,
  'KEYWORDS_FILE=keywords-extra.txt',
  'PINYIN=true',
];

/** The secret parts as they are written: none of them may be shown anywhere. */
const HIDDEN = [
  LLM_KEY,
  ...Object.values(SECRETS).map((value) => value.replace(/^"|"$/g, '')),
  ...Object.values(ADDRESSES).map(([, password]) => password),
  'Zz9qEf6hIj9kLm2nOp5qRs8tUv1wXy4z',
];

let backend: BackendProcess;
let fileText: string;

beforeAll(async () => {
  backend = await startBackendProcess(FILE);
  fileText = await readFile(join(backend.root, '.env'), 'utf8');
}, 60_000);
afterAll(() => backend?.stop());

async function getJson(path: string): Promise<{ text: string; body: Record<string, unknown> }> {
  const response = await fetch(`${backend.base}${path}`);
  expect(response.status).toBe(200);
  const text = await response.text();
  return { text, body: JSON.parse(text) as Record<string, unknown> };
}

async function post(body: object): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${backend.base}/api/settings`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'accept-language': 'en' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** A 16-bit mono WAV file of `samples` zero samples at 16 kHz. */
function silentWav(samples: number): Buffer {
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + samples * 2, 4);
  header.write('WAVEfmt ', 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(16_000, 24);
  header.writeUInt32LE(32_000, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(samples * 2, 40);
  return Buffer.concat([header, Buffer.alloc(samples * 2)]);
}

function expectNothingShown(text: string, where: string): void {
  for (const secret of HIDDEN) expect(text, `${where} shows ${secret}`).not.toContain(secret);
}

describe('secrets by meaning, through the backend process', () => {
  it('GET /api/settings shows none of them, anywhere in the answer, and keeps the rest readable', async () => {
    const { text, body } = await getJson('/api/settings');
    expectNothingShown(text, 'GET /api/settings');
    const content = body.content as string;
    // The user can still tell which address it is.
    expect(content).toContain('DATABASE_URL=postgres://app:••••••••@127.0.0.1:5432/class\n');
    expect(content).toContain('PROXY_URL=http://proxy:••••••••@127.0.0.1:3128\n');
    expect(content).toContain('PIN=••••••••\n');
    expect(content).toContain('ＡＰＩ_ＫＥＹ=••••••••7600\n');
    // Ordinary settings stay in clear.
    expect(content).toContain('KEYWORDS_FILE=keywords-extra.txt\n');
    expect(content).toContain('PINYIN=true\n');
    expect(body.fields).toMatchObject({
      LLM_API_KEY: '••••••••cdef',
      LLM_BASE_URL: 'http://llm-user:••••••••@127.0.0.1:9/v1',
      CLOUD_ASR_BASE_URL: 'ftp://asr:••••••••@127.0.0.1/',
    });
    expect(JSON.stringify(body.problems)).toContain('CLOUD_ASR_BASE_URL');
  });

  it('GET /api/health and the startup log show none of them', async () => {
    const { text, body } = await getJson('/api/health');
    expectNothingShown(text, 'GET /api/health');
    expect(body.llm).toMatchObject({ base_url: 'http://llm-user:••••••••@127.0.0.1:9/v1' });
    // The refused address is reported, its password hidden.
    expect(text).toContain('ftp://asr:••••••••@127.0.0.1/');
    const log = join(backend.dataDir, '_startup.log');
    const logged = await waitFor(async () => {
      const text = await readFile(log, 'utf8').catch(() => '');
      return text.includes('CLOUD_ASR_BASE_URL') ? text : undefined;
    });
    expectNothingShown(logged, 'the startup log');
  });

  it('a refusal that quotes the value hides its password', async () => {
    const response = await fetch(`${backend.base}/api/settings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        fields: { CLOUD_ASR_BASE_URL: 'ftp://asr:typed-Pass-4264@127.0.0.1/' },
      }),
    });
    expect(response.status).toBe(400);
    const text = await response.text();
    expect(JSON.parse(text)).toMatchObject({
      code: 'SETTINGS_INVALID',
      field: 'CLOUD_ASR_BASE_URL',
    });
    expect(text).toContain('ftp://asr:••••••••@127.0.0.1/');
    expect(text).not.toContain('typed-Pass-4264');
    expect(await readFile(join(backend.root, '.env'), 'utf8')).toBe(fileText);
  });

  it('posting the masks back (with a trailing space) keeps every stored value in the file on disk', async () => {
    const { body } = await getJson('/api/settings');
    const saved = await post({
      fields: {
        LLM_API_KEY: '••••••••cdef ',
        LLM_BASE_URL: ' http://llm-user:••••••••@127.0.0.1:9/v1',
        CLOUD_ASR_BASE_URL: '',
        LLM_MODEL: 'qwen-plus',
      },
      extra_lines: body.extra_lines,
    });
    expect(saved).toMatchObject({
      status: 200,
      body: { changed: ['CLOUD_ASR_BASE_URL', 'LLM_MODEL'] },
    });
    const onDisk = await readFile(join(backend.root, '.env'), 'utf8');
    expect(onDisk).toBe(
      `${fileText.replace(ADDRESSES.CLOUD_ASR_BASE_URL[0], '')}LLM_MODEL=qwen-plus\n`,
    );
    // The whole file posted back as read, one mask with a space after it inside quotes.
    const content = ((await getJson('/api/settings')).body.content as string).replace(
      'LLM_API_KEY=••••••••cdef',
      'LLM_API_KEY="••••••••cdef "',
    );
    expect(await post({ content })).toMatchObject({ status: 200, body: { changed: [] } });
    expect(await readFile(join(backend.root, '.env'), 'utf8')).toContain(
      `LLM_API_KEY="${LLM_KEY}"\n`,
    );
    const kept = await readFile(join(backend.root, '.env'), 'utf8');
    for (const secret of HIDDEN.filter((secret) => secret !== 'asr-Pass-3155')) {
      expect(kept).toContain(secret);
    }
  });

  it('a masked address posted with another path keeps its password; with another host it is refused', async () => {
    const content = (await getJson('/api/settings')).body.content as string;
    const moved = content.replace('@127.0.0.1:5432/class', '@127.0.0.1:5432/archive');
    expect(await post({ content: moved })).toMatchObject({ status: 200 });
    expect(await readFile(join(backend.root, '.env'), 'utf8')).toContain(
      'DATABASE_URL=postgres://app:db-url-Pass-9828@127.0.0.1:5432/archive\n',
    );
    const before = await readFile(join(backend.root, '.env'), 'utf8');
    const elsewhere = content.replace('@127.0.0.1:3128', '@localhost:3128');
    const refused = await post({ content: elsewhere });
    expect(refused).toMatchObject({
      status: 400,
      body: { code: 'SETTINGS_SECRET_REQUIRED', field: 'PROXY_URL' },
    });
    expect(refused.body.message).toContain('type the real value again');
    expect(await readFile(join(backend.root, '.env'), 'utf8')).toBe(before);
  });

  it('a service that cannot be reached is reported without the password of its address', async () => {
    const port = await freePort();
    // One second of silence to listen to (the machine may have no microphone).
    const wav = join(backend.root, 'silence.wav');
    await writeFile(wav, silentWav(16_000));
    const saved = await post({
      fields: {
        AUDIO_INPUT: `file:${wav}`,
        ASR_MODE: 'dashscope',
        DASHSCOPE_API_KEY: 'sk-dashscope-typed-0000',
        DASHSCOPE_WS_URL: `ws://asr-user:ws-Pass-5373@127.0.0.1:${port}`,
      },
    });
    expect(saved.status).toBe(200);
    const response = await fetch(`${backend.base}/api/start_monitor`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'accept-language': 'en' },
      body: '{}',
    });
    const text = await response.text();
    // Unreachable is RECOGNIZER_UNAVAILABLE (503), answered with its own message and setting.
    expect(response.status).toBe(503);
    expect(JSON.parse(text)).toMatchObject({
      code: 'RECOGNIZER_UNAVAILABLE',
      field: 'DASHSCOPE_WS_URL',
    });
    expect(text).toContain(`Cannot reach DashScope at ws://asr-user:••••••••@127.0.0.1:${port}`);
    expect(text).not.toContain('ws-Pass-5373');
    const log = await readFile(join(backend.dataDir, '_startup.log'), 'utf8');
    expect(log).not.toContain('ws-Pass-5373');
  });
});
