import OpenAI, { toFile } from 'openai';
import { afterEach, describe, expect, test } from 'vitest';
import { createFakeOpenAIServer, type FakeOpenAIServer } from './fake-openai-server.ts';

let server: FakeOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const client = (fake: FakeOpenAIServer, options: { timeout?: number; apiKey?: string } = {}) =>
  new OpenAI({
    baseURL: fake.baseURL,
    apiKey: options.apiKey ?? 'test-key',
    maxRetries: 0,
    timeout: options.timeout ?? 10_000,
  });

describe('fake OpenAI-compatible server, driven by the real openai SDK', () => {
  test('answers scripted text and records what the client sent', async () => {
    server = await createFakeOpenAIServer({ chat: [{ type: 'text', content: '你好, world' }] });
    const reply = await client(server).chat.completions.create({
      model: 'my-model',
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(reply.choices[0]?.message.content).toBe('你好, world');
    expect(reply.model).toBe('my-model');
    expect(server.chatRequests).toHaveLength(1);
    expect(server.chatRequests[0]?.body.messages).toEqual([{ role: 'user', content: 'Hi' }]);
    expect(server.chatRequests[0]?.headers.authorization).toBe('Bearer test-key');
  });

  test('streams text as server-sent events the SDK reassembles', async () => {
    server = await createFakeOpenAIServer({
      chat: [{ type: 'text', content: '老师在讲第三章 chapter 3', chunkSize: 3 }],
    });
    const stream = await client(server).chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'where?' }],
      stream: true,
    });
    const deltas: string[] = [];
    for await (const part of stream) {
      const text = part.choices[0]?.delta.content;
      if (text) deltas.push(text);
    }
    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas.join('')).toBe('老师在讲第三章 chapter 3');
  });

  test('scripts tool calls, streamed and not, with arguments sent verbatim', async () => {
    const calls = [
      { name: 'time_now', arguments: '{"format":"%H"}' },
      { name: 'file_read', arguments: '{not json' },
    ];
    server = await createFakeOpenAIServer({
      chat: [
        { type: 'tool-calls', calls },
        { type: 'tool-calls', calls },
      ],
    });
    const plain = await client(server).chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'x' }],
    });
    expect(plain.choices[0]?.finish_reason).toBe('tool_calls');
    expect(
      plain.choices[0]?.message.tool_calls?.map(
        (call) => call.type === 'function' && [call.function.name, call.function.arguments],
      ),
    ).toEqual([
      ['time_now', '{"format":"%H"}'],
      ['file_read', '{not json'],
    ]);

    const stream = client(server).chat.completions.stream({
      model: 'm',
      messages: [{ role: 'user', content: 'x' }],
    });
    const final = await stream.finalChatCompletion();
    expect(
      final.choices[0]?.message.tool_calls?.map(
        (call) => call.type === 'function' && call.function.name,
      ),
    ).toEqual(['time_now', 'file_read']);
  });

  test('gives OpenAI-shaped errors the SDK raises with status and message', async () => {
    server = await createFakeOpenAIServer({
      chat: [{ type: 'error', status: 503, message: 'overloaded' }],
    });
    const failure = await client(server)
      .chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    expect((failure as InstanceType<typeof OpenAI.APIError>).status).toBe(503);
    expect(String(failure)).toContain('overloaded');
  });

  test('an exhausted script is a clear 500, not a hang', async () => {
    server = await createFakeOpenAIServer();
    const failure = await client(server)
      .chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] })
      .catch((error: unknown) => error);
    expect(String(failure)).toContain('no scripted chat reply left');
  });

  test('a hanging reply trips the client timeout; a disconnect is a connection error', async () => {
    server = await createFakeOpenAIServer({ chat: [{ type: 'hang' }, { type: 'disconnect' }] });
    await expect(
      client(server, { timeout: 200 }).chat.completions.create({
        model: 'm',
        messages: [{ role: 'user', content: 'x' }],
      }),
    ).rejects.toBeInstanceOf(OpenAI.APIConnectionTimeoutError);
    await expect(
      client(server).chat.completions.create({
        model: 'm',
        messages: [{ role: 'user', content: 'x' }],
      }),
    ).rejects.toBeInstanceOf(OpenAI.APIConnectionError);
  });

  test('checks the API key when one is configured', async () => {
    server = await createFakeOpenAIServer({
      apiKey: 'right',
      chat: [{ type: 'text', content: 'ok' }],
    });
    await expect(
      client(server, { apiKey: 'wrong' }).chat.completions.create({
        model: 'm',
        messages: [{ role: 'user', content: 'x' }],
      }),
    ).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
    const reply = await client(server, { apiKey: 'right' }).chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'x' }],
    });
    expect(reply.choices[0]?.message.content).toBe('ok');
  });

  test('a malformed body makes the SDK fail rather than invent an answer', async () => {
    server = await createFakeOpenAIServer({
      chat: [{ type: 'malformed', body: '<html>502 Bad Gateway</html>' }],
    });
    await expect(
      client(server).chat.completions.create({
        model: 'm',
        messages: [{ role: 'user', content: 'x' }],
      }),
    ).rejects.toThrow();
  });

  test('answers audio transcriptions and records the uploaded file', async () => {
    server = await createFakeOpenAIServer({
      transcription: (request) => ({ type: 'text', text: `got ${request.audio.byteLength} bytes` }),
    });
    const audio = new Uint8Array(44 + 320).fill(7);
    const result = await client(server).audio.transcriptions.create({
      file: await toFile(audio, 'phrase.wav', { type: 'audio/wav' }),
      model: 'whisper-1',
      language: 'zh',
      prompt: '二叉搜索树, AVL Tree',
    });
    expect(result.text).toBe('got 364 bytes');
    expect(server.transcriptionRequests[0]).toMatchObject({
      model: 'whisper-1',
      language: 'zh',
      prompt: '二叉搜索树, AVL Tree',
      fileName: 'phrase.wav',
    });
    expect(server.transcriptionRequests[0]?.audio).toEqual(audio);
  });

  test('function scripts see each request', async () => {
    server = await createFakeOpenAIServer({
      chat: (request) => ({
        type: 'text',
        content: `echo: ${String(request.body.messages?.at(-1)?.content)}`,
      }),
    });
    const reply = await client(server).chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'ping' }],
    });
    expect(reply.choices[0]?.message.content).toBe('echo: ping');
  });
});
