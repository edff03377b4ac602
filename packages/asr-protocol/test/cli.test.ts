// class-asr end to end: the real bin as a child process, against the test server over a socket.
import { spawn } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type AsrTestServer,
  type AsrTestServerOptions,
  createAsrTestServer,
} from '../src/testing/index.ts';

const BIN = new URL('../bin/class-asr.js', import.meta.url).pathname;
const fixture = (name: string) => new URL(`./fixtures/${name}`, import.meta.url).pathname;
const LECTURE = fixture('lecture-mono-16k.wav');
const STEREO = fixture('question-stereo-16k.wav');

const servers: AsrTestServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function start(options: AsrTestServerOptions = {}): Promise<AsrTestServer> {
  const server = await createAsrTestServer({
    utterances: [
      { text: 'Good morning, class.', start_time: 0, end_time: 1300 },
      { text: 'Today we talk about photosynthesis.', start_time: 1700, end_time: 4000 },
    ],
    ...options,
  });
  servers.push(server);
  return server;
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  elapsedMs: number;
}

function run(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const started = performance.now();
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('STREAM_ASR_')),
  );
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...clean, ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) =>
      resolve({ code, stdout, stderr, elapsedMs: performance.now() - started }),
    );
  });
}

const keys = ['--app-key', 'app', '--access-key', 'secret'];
const lines = (stdout: string) =>
  stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));

describe('class-asr transcribe', () => {
  it('prints one JSON line per definite utterance and diagnostics on stderr', async () => {
    const server = await start();
    const result = await run(['transcribe', LECTURE, '--url', server.url, ...keys]);
    expect(result.stderr).not.toMatch(/Error|at .*\.ts/);
    expect(result.code).toBe(0);
    expect(lines(result.stdout)).toEqual([
      { text: 'Good morning, class.', start_time: 0, end_time: 1300 },
      { text: 'Today we talk about photosynthesis.', start_time: 1700, end_time: 4000 },
    ]);
    const connection = server.connections[0];
    expect(result.stderr).toContain(`log id ${connection?.logId}`);
    expect(result.stderr).toContain('lecture-mono-16k.wav: 4.4 s, mono');
    expect(result.stderr).toContain('done: 2 utterance(s), 4.4 s of audio acknowledged');
    expect(result.stderr).toContain('ignored payloads: 0 empty, 0 non-JSON, 0 invalid');
    expect(connection?.endpoint).toBe('bigmodel_async');
    expect(connection?.headers).toMatchObject({
      'x-api-app-key': 'app',
      'x-api-access-key': 'secret',
      'x-api-resource-id': 'volc.bigasr.sauc.duration',
    });
    expect(connection?.request).toMatchObject({
      audio: { format: 'pcm', rate: 16000, bits: 16, channel: 1 },
    });
    expect(connection?.audio.byteLength).toBe(70356 * 2);
  });

  it('takes keys, URL and resource id from STREAM_ASR_* and streams stereo to the chosen endpoint', async () => {
    const server = await start({
      utterances: [{ text: 'Who can answer this question?', start_time: 100, end_time: 1700 }],
    });
    const result = await run(['transcribe', STEREO, '--endpoint', 'bigmodel_nostream'], {
      STREAM_ASR_URL: server.url,
      STREAM_ASR_APP_KEY: 'env-app',
      STREAM_ASR_ACCESS_KEY: 'env-secret',
      STREAM_ASR_RESOURCE_ID: 'volc.bigasr.sauc.concurrent',
    });
    expect(result.code).toBe(0);
    expect(lines(result.stdout)).toEqual([
      { text: 'Who can answer this question?', start_time: 100, end_time: 1700 },
    ]);
    const connection = server.connections[0];
    expect(connection?.endpoint).toBe('bigmodel_nostream');
    expect(connection?.headers).toMatchObject({
      'x-api-app-key': 'env-app',
      'x-api-access-key': 'env-secret',
      'x-api-resource-id': 'volc.bigasr.sauc.concurrent',
    });
    expect(connection?.request).toMatchObject({ audio: { channel: 2 } });
  });

  it('cuts packets of --packet-ms', async () => {
    const server = await start();
    const result = await run([
      'transcribe',
      LECTURE,
      '--url',
      server.url,
      ...keys,
      '--packet-ms',
      '100',
    ]);
    expect(result.code).toBe(0);
    const sizes = (server.connections[0]?.frames ?? []).flatMap((frame) =>
      frame.type === 'audio-only-request' ? [frame.payload.byteLength] : [],
    );
    expect(sizes.slice(0, -2).every((size) => size === 3200)).toBe(true);
    expect(sizes.reduce((sum, size) => sum + size, 0)).toBe(70356 * 2);
  });

  it('paces audio in real time with --realtime', async () => {
    const server = await start();
    const result = await run(['transcribe', STEREO, '--url', server.url, ...keys, '--realtime']);
    expect(result.code).toBe(0);
    // The 1.8 s file cannot be sent faster than it plays (the first packet goes at once).
    expect(result.elapsedMs).toBeGreaterThan(1600);
  });

  it('counts ignored payloads on stderr', async () => {
    const server = await start({
      faults: [
        { type: 'empty-payload', at: { afterPackets: 2 } },
        { type: 'non-json-payload', at: { afterPackets: 3 } },
      ],
    });
    const result = await run(['transcribe', LECTURE, '--url', server.url, ...keys]);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('ignored payloads: 1 empty, 1 non-JSON, 0 invalid');
    expect(lines(result.stdout)).toHaveLength(2);
  });

  it('exits 4 with the service code and message on a service error', async () => {
    const server = await start({
      faults: [
        {
          type: 'error',
          code: 45000151,
          message: 'audio format incorrect',
          at: { afterPackets: 2 },
        },
      ],
    });
    const result = await run(['transcribe', LECTURE, '--url', server.url, ...keys]);
    expect(result.code).toBe(4);
    expect(result.stderr).toContain(
      `class-asr: service error 45000151: audio format incorrect (log id ${server.connections[0]?.logId})`,
    );
    expect(result.stdout).toBe('');
  });

  it('exits 1 naming the HTTP status when the handshake is refused', async () => {
    const server = await start({ auth: { accessKey: 'right' } });
    const result = await run(['transcribe', LECTURE, '--url', server.url, ...keys]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'ASR_HANDSHAKE_FAILED: the service refused the connection: HTTP 401 Unauthorized',
    );
  });

  it('exits 1 when the connection drops', async () => {
    const server = await start({ faults: [{ type: 'close', at: { afterAudioMs: 1000 } }] });
    const result = await run(['transcribe', LECTURE, '--url', server.url, ...keys]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('ASR_CONNECTION_CLOSED');
  });

  it('--help prints usage and exits 0', async () => {
    const result = await run(['--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Usage: class-asr transcribe FILE.wav [options]');
    expect(result.stdout).toContain('--packet-ms N');
  });
});

describe('bad arguments exit 2 with a clear message', () => {
  it.each([
    [[], 'missing command: try "class-asr transcribe FILE.wav"'],
    [['listen', 'a.wav'], 'unknown command "listen" (the command is "transcribe")'],
    [['transcribe'], 'missing FILE.wav'],
    [['transcribe', 'a.wav', 'b.wav', ...keys], 'unexpected argument "b.wav"'],
    [['transcribe', 'a.wav', '--colour', ...keys], "Unknown option '--colour'"],
    [
      ['transcribe', 'a.wav', '--endpoint', 'fast', ...keys],
      '--endpoint must be one of bigmodel, bigmodel_async, bigmodel_nostream (got "fast")',
    ],
    [
      ['transcribe', 'a.wav', '--packet-ms', '0', ...keys],
      '--packet-ms must be a whole number of milliseconds from 10 to 10000 (got "0")',
    ],
    [['transcribe', 'a.wav', '--packet-ms', '2e2', ...keys], '--packet-ms must be a whole number'],
    [['transcribe', 'a.wav'], 'missing app key: pass --app-key or set STREAM_ASR_APP_KEY'],
    [
      ['transcribe', 'a.wav', '--app-key', 'k'],
      'missing access key: pass --access-key or set STREAM_ASR_ACCESS_KEY',
    ],
    [
      ['transcribe', 'a.wav', '--url', 'ftp://example.com', ...keys],
      '--url: scheme must be ws, wss, http or https (got ftp)',
    ],
    [
      ['transcribe', 'a.wav', '--url', 'ws://example.com#x', ...keys],
      '--url: must not have a #fragment',
    ],
    [
      ['transcribe', 'a.wav', '--app-key', 'app', '--access-key', 'sé'],
      '--access-key: must be visible ASCII (a header value); found a non-ASCII character at character 2',
    ],
  ])('%j', async (args, message) => {
    const result = await run(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.stderr).toContain('Run "class-asr --help" for usage.');
    expect(result.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });

  it('names the variable when a key from the environment cannot be sent', async () => {
    const result = await run(['transcribe', LECTURE], {
      STREAM_ASR_APP_KEY: '中',
      STREAM_ASR_ACCESS_KEY: 'secret',
      STREAM_ASR_URL: 'ws://127.0.0.1:9',
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'STREAM_ASR_APP_KEY: must be visible ASCII (a header value); found a non-ASCII character',
    );
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('bad WAV files exit 3 naming what is wrong', () => {
  it('an 8 kHz file', async () => {
    const result = await run(['transcribe', fixture('question-8k.wav'), ...keys]);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('sample rate 8000 Hz (need 16000 Hz)');
    expect(result.stderr).toContain('sox IN.wav -r 16000 -b 16 -e signed-integer OUT.wav');
  });

  it('a file that is not a WAV', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'class-asr-'));
    const path = join(folder, 'notes.wav');
    await writeFile(path, 'Lecture notes, not audio.');
    const result = await run(['transcribe', path, ...keys]);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('not a usable WAV file: it does not start with "RIFF....WAVE"');
  });

  it('a missing file', async () => {
    const result = await run(['transcribe', '/no/such/file.wav', ...keys]);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('cannot read /no/such/file.wav: ENOENT');
  });
});
