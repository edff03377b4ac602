// The backend's outgoing HTTP client (the LLM, the cloud recognizer and model downloads use it)
// against real loopback servers: a connection cut under backpressure ends in an error the caller
// catches, and the rest of fetch's behaviour the SDKs rely on holds.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { httpFetch } from '../src/network/http-fetch.ts';

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

async function serve(
  handle: (
    request: IncomingMessage,
    body: Buffer,
    response: import('node:http').ServerResponse,
  ) => void,
): Promise<string> {
  server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    handle(request, Buffer.concat(chunks), response);
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('a connection cut while the reader is slow', () => {
  it('ends each of 50 answers with an error the reader catches, after the bytes that came', async () => {
    const size = 4 * 1024 * 1024;
    const half = Buffer.alloc(size / 2, 7);
    const base = await serve((_request, _body, response) => {
      response.writeHead(200, { 'content-length': size, connection: 'close' });
      void (async () => {
        for (let at = 0; at < half.length; at += 1024 * 1024) {
          if (!response.write(half.subarray(at, at + 1024 * 1024))) {
            await new Promise((resolve) => response.once('drain', resolve));
          }
        }
        await new Promise<void>((resolve) => response.write(Buffer.alloc(0), () => resolve()));
        response.socket?.destroy();
      })();
    });
    for (let round = 0; round < 50; round++) {
      const response = await httpFetch(`${base}/file`);
      let received = 0;
      const reading = (async () => {
        for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
          received += chunk.byteLength;
          // A slow reader (a busy disk): the body waits, under backpressure.
          await new Promise((resolve) => setTimeout(resolve, 1));
        }
      })();
      await expect(reading).rejects.toThrow();
      // What the reader had not taken yet when the line was cut may be lost (the next request
      // resumes from what was saved), but the bytes do not stop at the first chunk.
      expect(received).toBeGreaterThan(half.length / 2);
      expect(received).toBeLessThanOrEqual(half.length);
    }
  }, 120_000);
});

describe('what the SDKs rely on', () => {
  it('sends a JSON body and reads JSON, decodes gzip, and reports the status', async () => {
    const base = await serve((request, body, response) => {
      const answer = gzipSync(
        JSON.stringify({ got: JSON.parse(body.toString()), method: request.method }),
      );
      response
        .writeHead(201, { 'content-type': 'application/json', 'content-encoding': 'gzip' })
        .end(answer);
    });
    const response = await httpFetch(`${base}/v1/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ question: '什么是导数？' }),
    });
    expect(response.status).toBe(201);
    expect(response.url).toBe(`${base}/v1/chat`);
    expect(await response.json()).toEqual({ got: { question: '什么是导数？' }, method: 'POST' });
  });

  it('sends FormData as multipart (an audio upload)', async () => {
    let seen = '';
    const base = await serve((request, body, response) => {
      seen = `${request.headers['content-type']}\n${body.toString('latin1')}`;
      response.end('{}');
    });
    const form = new FormData();
    form.append('model', 'whisper-1');
    form.append('file', new Blob([Buffer.from('RIFF....WAVE')]), 'speech.wav');
    await httpFetch(`${base}/v1/audio/transcriptions`, { method: 'POST', body: form });
    expect(seen).toMatch(/^multipart\/form-data; boundary=/);
    expect(seen).toContain('filename="speech.wav"');
    expect(seen).toContain('RIFF....WAVE');
  });

  it('follows a 303 with a GET, without the key when it leaves the origin', async () => {
    const seen: string[] = [];
    const base = await serve((request, _body, response) => {
      seen.push(`${request.method} ${request.url} ${request.headers.authorization ?? '-'}`);
      if (request.url === '/start') {
        const other = base.replace('127.0.0.1', 'localhost');
        response.writeHead(303, { location: `${other}/done` }).end();
      } else response.end('done');
    });
    const response = await httpFetch(`${base}/start`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk-test' },
      body: 'x',
    });
    expect(await response.text()).toBe('done');
    expect(response.redirected).toBe(true);
    expect(seen).toEqual(['POST /start Bearer sk-test', 'GET /done -']);
  });

  it('rejects with the AbortError when the caller aborts (the SDKs’ timeouts)', async () => {
    const base = await serve(() => {
      // Never answers.
    });
    const controller = new AbortController();
    const pending = httpFetch(`${base}/slow`, { signal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('ends a body being read with the AbortError when the caller aborts', async () => {
    const base = await serve((_request, _body, response) => {
      response.writeHead(200, { 'content-length': 1000 });
      response.write('first part');
    });
    const controller = new AbortController();
    const response = await httpFetch(`${base}/stream`, { signal: controller.signal });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    expect((await reader.read()).value?.byteLength).toBe(10);
    controller.abort();
    await expect(reader.read()).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('reports a refused connection as "fetch failed" with the cause', async () => {
    const base = await serve(() => undefined);
    server?.close();
    await new Promise((resolve) => server?.once('close', resolve));
    server = undefined;
    await expect(httpFetch(`${base}/x`)).rejects.toMatchObject({
      name: 'TypeError',
      message: 'fetch failed',
      cause: { code: 'ECONNREFUSED' },
    });
  });
});
