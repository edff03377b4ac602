import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

const run = promisify(execFile);
const helper = fileURLToPath(new URL('./helpers/https-get.ts', import.meta.url));
let folder: string;
let server: Server;
let port: number;
const sniSeen: string[] = [];

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'agent-std-https-'));
  // A throwaway certificate for "secure.test", trusted by the child through NODE_EXTRA_CA_CERTS.
  await run('openssl', [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '1',
    '-subj',
    '/CN=secure.test',
    '-addext',
    'subjectAltName=DNS:secure.test',
    '-keyout',
    join(folder, 'key.pem'),
    '-out',
    join(folder, 'cert.pem'),
  ]);
  server = createServer(
    {
      key: await readFile(join(folder, 'key.pem')),
      cert: await readFile(join(folder, 'cert.pem')),
    },
    (request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.end(`secure ${request.url} for ${request.headers.host}`);
    },
  );
  server.on('secureConnection', (socket) => sniSeen.push(String(socket.servername)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await rm(folder, { recursive: true, force: true });
});

const fetchIn = async (host: string) => {
  const { stdout } = await run(process.execPath, [helper, host, String(port)], {
    env: { PATH: process.env.PATH ?? '', NODE_EXTRA_CA_CERTS: join(folder, 'cert.pem') },
    timeout: 60_000,
  });
  return JSON.parse(stdout) as { ok: boolean; content: string };
};

describe('https through the pinned connection', () => {
  test('TLS uses the host name (SNI and certificate check) while connecting to the checked address', async () => {
    expect(await fetchIn('secure.test')).toEqual({
      ok: true,
      content: `secure /hello for secure.test:${port}`,
    });
    expect(sniSeen).toContain('secure.test');
  });

  test('a certificate for another name is refused', async () => {
    const reply = await fetchIn('other.test');
    expect(reply.ok).toBe(false);
    expect(reply.content).toMatch(
      /^Error \[TOOL_FAILED\] http_get: request to https:\/\/other\.test:\d+ failed: .*(altnames|certificate)/i,
    );
  });
});
