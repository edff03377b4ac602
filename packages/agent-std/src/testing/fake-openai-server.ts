import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** One tool call the fake model makes. `arguments` is sent verbatim, so it may be malformed JSON. */
export interface FakeToolCall {
  id?: string;
  name: string;
  arguments: string;
}

/**
 * What the fake server answers to one chat-completions request.
 * - `text`: an assistant message (streamed in `chunkSize`-character deltas when the client streams);
 * - `tool-calls`: an assistant message calling tools (finish_reason `tool_calls`);
 * - `error`: an HTTP error with an OpenAI-shaped error body;
 * - `malformed`: HTTP 200 whose body is `body` verbatim (not JSON, or JSON of the wrong shape);
 * - `hang`: never answers (for client timeouts); `disconnect`: drops the connection at once.
 * `delayMs` waits before answering (or, when streaming, between chunks).
 */
export type FakeChatReply =
  | { type: 'text'; content: string; chunkSize?: number; delayMs?: number }
  | { type: 'tool-calls'; calls: FakeToolCall[]; content?: string; delayMs?: number }
  | { type: 'error'; status: number; message: string; code?: string; delayMs?: number }
  | { type: 'malformed'; body: string; delayMs?: number }
  | { type: 'hang' }
  | { type: 'disconnect' };

/** What the fake server answers to one audio-transcriptions request. */
export type FakeTranscriptionReply =
  | { type: 'text'; text: string; delayMs?: number }
  | { type: 'error'; status: number; message: string; code?: string; delayMs?: number }
  | { type: 'hang' }
  | { type: 'disconnect' };

/** A chat-completions request as the fake server received it. */
export interface RecordedChatRequest {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body: `model`, `messages`, `tools`, `stream`, … */
  body: {
    model?: string;
    messages?: Array<{
      role: string;
      content?: unknown;
      tool_calls?: unknown;
      tool_call_id?: string;
    }>;
    tools?: unknown[];
    stream?: boolean;
    [key: string]: unknown;
  };
}

/** An audio-transcriptions request as the fake server received it. */
export interface RecordedTranscriptionRequest {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  model: string | null;
  language: string | null;
  /** The `prompt` field (vocabulary hints), if sent. */
  prompt: string | null;
  fileName: string | null;
  /** The uploaded audio file's bytes. */
  audio: Uint8Array;
}

type Script<Request, Reply> = Reply[] | ((request: Request) => Reply | Promise<Reply>);

/** Options of {@link createFakeOpenAIServer}. */
export interface FakeOpenAIServerOptions {
  /** Replies to chat completions, in order, or a function choosing one per request. */
  chat?: Script<RecordedChatRequest, FakeChatReply>;
  /** Replies to audio transcriptions, in order, or a function choosing one per request. */
  transcription?: Script<RecordedTranscriptionRequest, FakeTranscriptionReply>;
  /** When set, requests must carry `Authorization: Bearer <apiKey>` or get a 401. */
  apiKey?: string;
  /** Port to listen on (default: a free one). Always binds 127.0.0.1. */
  port?: number;
}

/** A running fake OpenAI-compatible server. */
export interface FakeOpenAIServer {
  /** Base URL to hand to the OpenAI SDK, ending in `/v1`. */
  baseURL: string;
  port: number;
  /** Every chat request received, in order. */
  chatRequests: RecordedChatRequest[];
  /** Every transcription request received, in order. */
  transcriptionRequests: RecordedTranscriptionRequest[];
  /** Appends replies to the chat script (only when the script is a list). */
  enqueueChat(...replies: FakeChatReply[]): void;
  /** Appends replies to the transcription script (only when the script is a list). */
  enqueueTranscription(...replies: FakeTranscriptionReply[]): void;
  /** Stops listening and drops open connections (including hanging ones). */
  close(): Promise<void>;
}

/**
 * Starts an OpenAI-compatible HTTP server on 127.0.0.1 that answers from a script: the fake at the
 * edge of the machine for tests of LLM features. It speaks the real wire format — JSON bodies,
 * `stream: true` as server-sent events ending in `data: [DONE]`, OpenAI-shaped error bodies — so
 * the real `openai` SDK talks to it unchanged. Requests beyond the script get a 500 naming that.
 *
 * @example
 * const llm = await createFakeOpenAIServer({ chat: [{ type: 'text', content: 'Hello!' }] });
 * const client = new OpenAI({ baseURL: llm.baseURL, apiKey: 'test' });
 * const reply = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'Hi' }] });
 * reply.choices[0]?.message.content; // 'Hello!'
 * await llm.close();
 */
export async function createFakeOpenAIServer(
  options: FakeOpenAIServerOptions = {},
): Promise<FakeOpenAIServer> {
  const chatScript = options.chat ?? [];
  const transcriptionScript = options.transcription ?? [];
  const chatRequests: RecordedChatRequest[] = [];
  const transcriptionRequests: RecordedTranscriptionRequest[] = [];
  const sockets = new Set<Socket>();
  let chatIndex = 0;
  let transcriptionIndex = 0;

  const nextReply = async <Request, Reply>(
    script: Script<Request, Reply>,
    index: number,
    request: Request,
  ): Promise<Reply | undefined> =>
    typeof script === 'function' ? await script(request) : script[index];

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) {
        sendError(response, 500, `fake server failed: ${String(error)}`, 'fake_server_error');
      } else {
        response.destroy();
      }
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    const body = await readBody(request);
    if (
      options.apiKey !== undefined &&
      request.headers.authorization !== `Bearer ${options.apiKey}`
    ) {
      sendError(response, 401, 'Incorrect API key provided.', 'invalid_api_key');
      return;
    }
    if (request.method === 'POST' && path.endsWith('/chat/completions')) {
      let parsed: RecordedChatRequest['body'];
      try {
        parsed = JSON.parse(body.toString('utf8')) as RecordedChatRequest['body'];
      } catch {
        sendError(
          response,
          400,
          'We could not parse the JSON body of your request.',
          'invalid_json',
        );
        return;
      }
      const recorded: RecordedChatRequest = { path, headers: request.headers, body: parsed };
      chatRequests.push(recorded);
      const reply = await nextReply(chatScript, chatIndex++, recorded);
      await answerChat(
        response,
        reply,
        parsed.stream === true,
        typeof parsed.model === 'string' ? parsed.model : 'fake-model',
      );
      return;
    }
    if (request.method === 'POST' && path.endsWith('/audio/transcriptions')) {
      const form = await new Response(new Uint8Array(body), {
        headers: { 'content-type': request.headers['content-type'] ?? '' },
      }).formData();
      const file = form.get('file');
      const recorded: RecordedTranscriptionRequest = {
        path,
        headers: request.headers,
        model: stringField(form.get('model')),
        language: stringField(form.get('language')),
        prompt: stringField(form.get('prompt')),
        fileName: file instanceof File ? file.name : null,
        audio: file instanceof File ? new Uint8Array(await file.arrayBuffer()) : new Uint8Array(),
      };
      transcriptionRequests.push(recorded);
      const reply = await nextReply(transcriptionScript, transcriptionIndex++, recorded);
      await answerTranscription(response, reply);
      return;
    }
    if (request.method === 'GET' && path.endsWith('/models')) {
      sendJson(response, 200, {
        object: 'list',
        data: [{ id: 'fake-model', object: 'model', owned_by: 'fake' }],
      });
      return;
    }
    sendError(response, 404, `fake server: no route for ${request.method} ${path}`, 'not_found');
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    port,
    chatRequests,
    transcriptionRequests,
    enqueueChat(...replies) {
      if (typeof chatScript === 'function')
        throw new Error('the chat script is a function; enqueue needs a list');
      chatScript.push(...replies);
    },
    enqueueTranscription(...replies) {
      if (typeof transcriptionScript === 'function') {
        throw new Error('the transcription script is a function; enqueue needs a list');
      }
      transcriptionScript.push(...replies);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

function stringField(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function sendJson(response: ServerResponse, status: number, value: unknown): void {
  const text = JSON.stringify(value);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  response.end(text);
}

function sendError(response: ServerResponse, status: number, message: string, code: string): void {
  sendJson(response, status, {
    error: { message, type: 'invalid_request_error', param: null, code },
  });
}

type CommonReply = { type: 'hang' } | { type: 'disconnect' } | { type: 'error' };

/**
 * Answers what every route answers alike — an exhausted script, a hang, a disconnect, an error —
 * after the reply's delay (streamed replies pace their chunks instead). Returns the reply when
 * it is the route's own kind to answer, undefined when already answered.
 */
async function answerCommonReply<Reply extends FakeChatReply | FakeTranscriptionReply>(
  response: ServerResponse,
  reply: Reply | undefined,
  what: 'chat' | 'transcription',
  stream: boolean,
): Promise<Exclude<Reply, CommonReply> | undefined> {
  if (reply === undefined) {
    sendError(
      response,
      500,
      `fake server: no scripted ${what} reply left for this request`,
      'script_exhausted',
    );
    return undefined;
  }
  if (reply.type === 'hang') return undefined;
  if (reply.type === 'disconnect') {
    response.socket?.destroy();
    return undefined;
  }
  if (reply.delayMs && (!stream || reply.type === 'error')) await sleep(reply.delayMs);
  if (reply.type === 'error') {
    sendError(response, reply.status, reply.message, reply.code ?? 'fake_error');
    return undefined;
  }
  return reply as Exclude<Reply, CommonReply>;
}

async function answerChat(
  response: ServerResponse,
  scripted: FakeChatReply | undefined,
  stream: boolean,
  model: string,
): Promise<void> {
  const reply = await answerCommonReply(response, scripted, 'chat', stream);
  if (!reply) return;
  if (reply.type === 'malformed') {
    response.writeHead(200, { 'content-type': stream ? 'text/event-stream' : 'application/json' });
    response.end(reply.body);
    return;
  }
  const id = `chatcmpl-${randomUUID()}`;
  const created = Math.floor(Date.now() / 1000);
  const toolCalls =
    reply.type === 'tool-calls'
      ? reply.calls.map((call, index) => ({
          index,
          id: call.id ?? `call_${randomUUID().replaceAll('-', '').slice(0, 24)}`,
          type: 'function' as const,
          function: { name: call.name, arguments: call.arguments },
        }))
      : undefined;
  const content = reply.type === 'text' ? reply.content : (reply.content ?? null);
  const finishReason = toolCalls ? 'tool_calls' : 'stop';

  if (!stream) {
    sendJson(response, 200, {
      id,
      object: 'chat.completion',
      created,
      model,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content,
            refusal: null,
            ...(toolCalls
              ? { tool_calls: toolCalls.map(({ index: _index, ...call }) => call) }
              : {}),
          },
          logprobs: null,
          finish_reason: finishReason,
        },
      ],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    });
    return;
  }

  response.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  const chunk = (delta: Record<string, unknown>, finish: string | null) =>
    `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`;
  response.write(chunk({ role: 'assistant', content: '' }, null));
  const size = reply.type === 'text' ? Math.max(1, reply.chunkSize ?? 4) : Number.POSITIVE_INFINITY;
  const characters = Array.from(content ?? '');
  for (let start = 0; start < characters.length; start += size) {
    if (reply.delayMs) await sleep(reply.delayMs);
    response.write(chunk({ content: characters.slice(start, start + size).join('') }, null));
  }
  for (const call of toolCalls ?? []) {
    response.write(chunk({ tool_calls: [call] }, null));
  }
  response.write(chunk({}, finishReason));
  response.end('data: [DONE]\n\n');
}

async function answerTranscription(
  response: ServerResponse,
  scripted: FakeTranscriptionReply | undefined,
): Promise<void> {
  const reply = await answerCommonReply(response, scripted, 'transcription', false);
  if (!reply) return;
  sendJson(response, 200, { text: reply.text });
}
