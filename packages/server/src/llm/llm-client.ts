import type OpenAI from 'openai';
import type {
  ChatCompletionFunctionTool,
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import { isServerError, ServerError } from '../errors.ts';
import { localized } from '../language.ts';
import { httpFetch } from '../network/http-fetch.ts';
import type { ResolvedSettings } from '../settings/settings-store.ts';

/** The name of a request's purpose ("rescue", "notes", …) in Chinese, for messages. */
const PURPOSES_ZH: Record<string, string> = {
  rescue: '救场',
  'rescue follow-up': '救场追问',
  'catch-up': '跟进度',
  'catch-up follow-up': '跟进度追问',
  notes: '课堂笔记',
  'history folding': '历史摘要',
  'class question': '课堂提问',
  'caption translation': '字幕翻译',
};

function purposeZh(purpose: string): string {
  return PURPOSES_ZH[purpose] ?? purpose;
}

/** What the OpenAI-compatible client is built from (LLM_BASE_URL, LLM_API_KEY, LLM_MODEL, LLM_TIMEOUT). */
export interface LlmConfig {
  baseURL: string;
  apiKey: string;
  model: string;
  timeoutMs: number;
}

/**
 * Builds the `openai` client for a configuration; buildApp's `llmClientFactory` option replaces it
 * (for a proxy-aware fetch, or to count requests in a test).
 */
export type LlmClientFactory = (config: LlmConfig) => OpenAI | Promise<OpenAI>;

type OpenAIModule = typeof import('openai');
type StreamingModule = typeof import('openai/core/streaming');
let sdk: Promise<OpenAIModule> | undefined;
let streaming: Promise<StreamingModule> | undefined;
/** The SDK is loaded on the first LLM request: the backend starts faster without it. */
const loadSdk = (): Promise<OpenAIModule> => {
  sdk ??= import('openai');
  return sdk;
};
const loadStreaming = (): Promise<StreamingModule> => {
  streaming ??= import('openai/core/streaming');
  return streaming;
};

/** The default factory: one retry (after a timeout, a connection error, 408/409/429/5xx). */
export const defaultLlmClientFactory: LlmClientFactory = async (config) => {
  const { default: OpenAIClient } = await loadSdk();
  return new OpenAIClient({
    baseURL: config.baseURL,
    apiKey: config.apiKey,
    timeout: config.timeoutMs,
    maxRetries: 1,
    // Node's http module, not the bundled fetch (see network/http-fetch.ts).
    fetch: httpFetch,
  });
};

/** A chat message sent to the model. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** One chat request. */
interface ChatRequest {
  /** Plain chat messages, or a tool conversation (assistant tool calls and tool results). */
  messages: ChatMessage[] | ChatCompletionMessageParam[];
  /** What the answer is for, used in error messages ("rescue", "notes", …). */
  purpose: string;
  maxTokens?: number;
  temperature?: number;
  signal?: AbortSignal;
}

/** One turn of a conversation in which the model may call tools (see {@link LlmService.turn}). */
interface TurnRequest extends ChatRequest {
  /** The functions the model may call. */
  tools: ChatCompletionFunctionTool[];
  /** `none`: the model must answer in text this turn (default `auto`). */
  toolChoice?: 'auto' | 'none';
}

/** What the model did in one turn: text, tool calls, or both. */
export interface ModelTurn {
  /** Its text ('' when it only called tools). */
  text: string;
  /** Its tool calls, complete (argument pieces joined; an id made up when the provider sent none). */
  toolCalls: ChatCompletionMessageFunctionToolCall[];
  finishReason: string | undefined;
}

/** Chat completions with the server's error codes. */
export interface LlmService {
  /** Throws LLM_NOT_CONFIGURED unless base URL, key and model are set. */
  assertConfigured(): LlmConfig;
  /** Whether base URL, key and model are set (what assertConfigured checks, without throwing). */
  isConfigured(): boolean;
  /** The whole answer, non-empty. */
  complete(request: ChatRequest): Promise<string>;
  /** Streams the answer through `onDelta`; resolves with the whole text. */
  stream(request: ChatRequest, onDelta: (text: string) => void): Promise<string>;
  /**
   * One streamed turn with tools: text through `onDelta` as it comes, and the tool calls the
   * model made. Timeouts, the one retry and the error codes are those of `stream`; a turn with
   * neither text nor a tool call is `LLM_BAD_RESPONSE`.
   */
  turn(request: TurnRequest, onDelta: (text: string) => void): Promise<ModelTurn>;
  /**
   * Cancels every request in flight and refuses new ones with SERVER_STOPPING (503): a backend
   * that is stopping must not wait for a slow provider (LLM_TIMEOUT can be minutes).
   */
  close(): void;
}

/** The answer to a request cut off, or refused, because the backend is stopping. */
function stoppingError(purpose: string): ServerError {
  return new ServerError(
    'SERVER_STOPPING',
    localized(
      `后端正在关闭，${purposeZh(purpose)}请求已取消：重新打开课堂助手后再试。`,
      `The backend is stopping, so the ${purpose} request was cancelled: open Class Assistant again and retry.`,
    ),
  );
}

/** Creates the LLM service reading the settings at each call (a settings change applies at once). */
export function createLlmService(
  settings: () => ResolvedSettings,
  factory: LlmClientFactory = defaultLlmClientFactory,
): LlmService {
  let cached: { key: string; client: Promise<OpenAI> } | undefined;
  // Aborted by close(): every request listens to it beside its caller's signal.
  const stopping = new AbortController();
  const withStop = <Request extends ChatRequest>(request: Request): Request => {
    if (stopping.signal.aborted) throw stoppingError(request.purpose);
    return {
      ...request,
      signal: request.signal ? AbortSignal.any([request.signal, stopping.signal]) : stopping.signal,
    };
  };

  const missingKeys = (current: ResolvedSettings) =>
    [
      current.llmBaseUrl === '' ? 'LLM_BASE_URL' : '',
      current.llmApiKey === '' ? 'LLM_API_KEY' : '',
      current.llmModel === '' ? 'LLM_MODEL' : '',
    ].filter((key) => key !== '');

  function assertConfigured(): LlmConfig {
    const current = settings();
    const missing = missingKeys(current);
    if (missing.length > 0) {
      throw new ServerError(
        'LLM_NOT_CONFIGURED',
        localized(
          `AI 功能需要一个 OpenAI 兼容的大模型：请在设置中填写 ${missing.join('、')}（当前 LLM_BASE_URL=${current.llmBaseUrl || '（空）'}，LLM_MODEL=${current.llmModel || '（空）'}）。`,
          `The AI features need an OpenAI-compatible LLM: set ${missing.join(', ')} in the settings (now: LLM_BASE_URL=${current.llmBaseUrl || '(empty)'}, LLM_MODEL=${current.llmModel || '(empty)'}).`,
        ),
        {
          field: missing[0]!,
          hint: 'Open the settings panel or /api/settings and fill in the LLM fields.',
        },
      );
    }
    return {
      baseURL: current.llmBaseUrl,
      apiKey: current.llmApiKey,
      model: current.llmModel,
      timeoutMs: current.llmTimeoutMs,
    };
  }

  function client(config: LlmConfig): Promise<OpenAI> {
    const key = JSON.stringify(config);
    if (cached?.key !== key) cached = { key, client: Promise.resolve(factory(config)) };
    return cached.client;
  }

  /** An answer that is not an OpenAI-compatible response (a proxy's HTML page, say). */
  const notCompatible = (config: LlmConfig, purpose: string, what: string) =>
    new ServerError(
      'LLM_BAD_RESPONSE',
      localized(
        `${config.baseURL} 的大模型对${purposeZh(purpose)}请求返回了 ${what}，不是 OpenAI 兼容的响应：请检查 LLM_BASE_URL。`,
        `The LLM at ${config.baseURL} answered the ${purpose} request with ${what}, not an OpenAI-compatible response: check LLM_BASE_URL.`,
      ),
      { field: 'LLM_BASE_URL' },
    );

  /** The body of a non-JSON answer, for the message: its type and its first characters. */
  const describeBody = (response: Response, body: unknown): string =>
    withExcerpt(mediaType(response) || 'no content type', typeof body === 'string' ? body : '');
  /** One streamed request: resolves with what came, or rejects (marking a stall). */
  async function streamOnce(
    llm: OpenAI,
    config: LlmConfig,
    request: ChatRequest,
    onDelta: (text: string) => void,
    progress: { delivered: boolean },
  ): Promise<StreamedAnswer> {
    // The SDK's timeout covers the wait for the response headers; once they are in, a stream
    // that stalls is cut by this idle timer (same length), so no request can hang forever.
    if (request.signal?.aborted) throw new (await loadSdk()).APIUserAbortError();
    const { Stream } = await loadStreaming();
    const controller = new AbortController();
    const abortFromCaller = () => controller.abort();
    request.signal?.addEventListener('abort', abortFromCaller, { once: true });
    let idle: NodeJS.Timeout | undefined;
    const arm = () => {
      clearTimeout(idle);
      idle = setTimeout(() => {
        controller.abort(new StreamStall());
      }, config.timeoutMs);
    };
    const answer: StreamedAnswer = {
      text: '',
      toolCalls: new Map(),
      chunks: 0,
      finishReason: undefined,
      onlyDone: false,
    };
    const turn = request as Partial<TurnRequest>;
    const tools = turn.tools && turn.tools.length > 0 ? turn.tools : null;
    try {
      // The raw response: its type decides whether it is read as server-sent events.
      const response = await llm.chat.completions
        .create(
          {
            model: config.model,
            messages: request.messages,
            stream: true,
            ...(request.maxTokens !== undefined ? { max_tokens: request.maxTokens } : {}),
            temperature: request.temperature ?? 0.3,
            ...(tools ? { tools, tool_choice: turn.toolChoice ?? 'auto' } : {}),
          },
          // Retries are ours (see `stream`): never after part of an answer was shown.
          { signal: controller.signal, maxRetries: 0 },
        )
        .asResponse();
      arm();
      const type = mediaType(response);
      // A page or a JSON body is no event stream, whatever it holds. Other types (gateways send
      // valid events as application/octet-stream, text/plain or with no type) are read as events.
      if (NOT_AN_EVENT_STREAM.test(type)) {
        const body = await response.text().catch(() => '');
        throw notCompatible(config, request.purpose, describeBody(response, body));
      }
      const watched = watchEventStream(response.body);
      const stream = Stream.fromSSEResponse<OpenAI.Chat.Completions.ChatCompletionChunk>(
        new Response(watched.body, { status: response.status, headers: response.headers }),
        controller,
        llm,
      );
      for await (const chunk of stream) {
        arm();
        answer.chunks++;
        const choice = chunk?.choices?.[0];
        if (choice?.finish_reason) answer.finishReason = choice.finish_reason;
        const delta = choice?.delta?.content;
        if (typeof delta === 'string' && delta !== '') {
          answer.text += delta;
          progress.delivered = true;
          onDelta(delta);
        }
        gatherToolCalls(answer.toolCalls, choice?.delta?.tool_calls);
      }
      // An aborted stream may simply end: an abort is never a complete answer.
      if (controller.signal.aborted) {
        if (controller.signal.reason instanceof StreamStall) throw controller.signal.reason;
        throw new (await loadSdk()).APIUserAbortError();
      }
      if (answer.chunks === 0) {
        // `data: [DONE]` alone is a well-formed stream: the model's answer was empty.
        if (watched.sawDone()) return { ...answer, onlyDone: true };
        const kind =
          type === 'text/event-stream'
            ? 'an event stream'
            : type === ''
              ? 'a body without a content type'
              : `a body of type ${type}`;
        throw notCompatible(
          config,
          request.purpose,
          `${withExcerpt(kind, watched.start())} holding no OpenAI-compatible event`,
        );
      }
      return answer;
    } catch (error) {
      if (controller.signal.reason instanceof StreamStall) throw controller.signal.reason;
      throw error;
    } finally {
      clearTimeout(idle);
      request.signal?.removeEventListener('abort', abortFromCaller);
    }
  }

  /**
   * One streamed request, with one retry (as the plain routes get from the SDK: a timeout, a
   * dropped connection, 408/409/429/5xx, a stream that stalls before its first word) — never
   * once part of the answer has been shown, which would show it twice.
   */
  async function streamTurn(
    callerRequest: ChatRequest | TurnRequest,
    onDelta: (text: string) => void,
  ): Promise<StreamedAnswer> {
    const config = assertConfigured();
    const request = withStop(callerRequest);
    const sdk = await loadSdk();
    const llm = await client(config);
    for (let attempt = 1; ; attempt++) {
      const progress = { delivered: false };
      try {
        return await streamOnce(llm, config, request, onDelta, progress);
      } catch (error) {
        const retry =
          attempt === 1 &&
          !progress.delivered &&
          request.signal?.aborted !== true &&
          isRetryable(error, sdk);
        if (retry) {
          await new Promise((resolve) => setTimeout(resolve, STREAM_RETRY_DELAY_MS));
          continue;
        }
        if (error instanceof StreamStall) {
          throw new ServerError(
            'LLM_TIMEOUT',
            progress.delivered
              ? localized(
                  `${config.baseURL} 的大模型在${purposeZh(request.purpose)}回答中途停了下来：${config.timeoutMs / 1000} 秒内没有新内容（LLM_TIMEOUT）。`,
                  `The LLM at ${config.baseURL} stopped sending the ${request.purpose} answer part-way: nothing arrived for ${config.timeoutMs / 1000} s (LLM_TIMEOUT).`,
                )
              : localized(
                  `${config.baseURL} 的大模型开始了${purposeZh(request.purpose)}回答，但 ${config.timeoutMs / 1000} 秒内没有发送内容，重试一次后仍然如此（LLM_TIMEOUT）。`,
                  `The LLM at ${config.baseURL} began the ${request.purpose} answer but sent nothing for ${config.timeoutMs / 1000} s, also after one retry (LLM_TIMEOUT).`,
                ),
            { field: 'LLM_TIMEOUT' },
          );
        }
        if (stopping.signal.aborted) throw stoppingError(request.purpose);
        throw toLlmError(error, config, request.purpose, sdk);
      }
    }
  }

  return {
    assertConfigured,
    isConfigured: () => missingKeys(settings()).length === 0,
    async complete(callerRequest) {
      const config = assertConfigured();
      const request = withStop(callerRequest);
      let completion: OpenAI.Chat.Completions.ChatCompletion;
      let response: Response;
      try {
        ({ data: completion, response } = await (await client(config)).chat.completions
          .create(
            {
              model: config.model,
              messages: request.messages,
              ...(request.maxTokens !== undefined ? { max_tokens: request.maxTokens } : {}),
              temperature: request.temperature ?? 0.3,
            },
            request.signal ? { signal: request.signal } : {},
          )
          .withResponse());
      } catch (error) {
        if (stopping.signal.aborted) throw stoppingError(request.purpose);
        throw toLlmError(error, config, request.purpose, await loadSdk());
      }
      // The SDK hands back a non-JSON body (a proxy's HTML page) as a string.
      if (
        typeof completion !== 'object' ||
        completion === null ||
        !Array.isArray(completion.choices)
      ) {
        throw notCompatible(config, request.purpose, describeBody(response, completion));
      }
      const content = completion.choices[0]?.message?.content;
      if (typeof content !== 'string' || content.trim() === '') {
        throw new ServerError(
          'LLM_BAD_RESPONSE',
          localized(
            `${config.baseURL} 的大模型对${purposeZh(request.purpose)}请求的回答没有任何文字（结束原因：${completion.choices[0]?.finish_reason ?? '未知'}）。`,
            `The LLM at ${config.baseURL} answered the ${request.purpose} request without any text (finish reason: ${completion.choices[0]?.finish_reason ?? 'unknown'}).`,
          ),
        );
      }
      return content;
    },
    async stream(request, onDelta) {
      const answer = await streamTurn(request, onDelta);
      if (answer.text.trim() === '') throw emptyAnswer(assertConfigured(), request, answer);
      return answer.text;
    },
    async turn(request, onDelta) {
      const answer = await streamTurn(request, onDelta);
      const toolCalls = [...answer.toolCalls.entries()]
        .sort(([a], [b]) => a - b)
        .map(([index, call]) => ({
          id: call.id || `call_${index}`,
          type: 'function' as const,
          function: { name: call.name, arguments: call.arguments },
        }));
      if (answer.text.trim() === '' && toolCalls.length === 0) {
        throw emptyAnswer(assertConfigured(), request, answer);
      }
      return { text: answer.text, toolCalls, finishReason: answer.finishReason };
    },
    close() {
      stopping.abort();
    },
  };
}

/** What one streamed request brought. */
interface StreamedAnswer {
  text: string;
  /** The tool calls by their index in the stream, as their pieces arrived. */
  toolCalls: Map<number, { id: string; name: string; arguments: string }>;
  /** OpenAI events (chunks) received. */
  chunks: number;
  finishReason: string | undefined;
  /** The stream held `data: [DONE]` and no chunk. */
  onlyDone: boolean;
}

/** The answer had no text (and, for a turn, no tool call either). */
function emptyAnswer(config: LlmConfig, request: ChatRequest, answer: StreamedAnswer): ServerError {
  return new ServerError(
    'LLM_BAD_RESPONSE',
    answer.onlyDone
      ? localized(
          `${config.baseURL} 的大模型对${purposeZh(request.purpose)}请求返回了空回答：流在任何内容之前就结束了（[DONE]）。`,
          `The LLM at ${config.baseURL} sent an empty answer to the ${request.purpose} request: its stream ended ([DONE]) before any part of an answer.`,
        )
      : localized(
          `${config.baseURL} 的大模型对${purposeZh(request.purpose)}请求返回了空回答：${answer.chunks} 个流式片段里都没有文字（结束原因：${answer.finishReason ?? '未知'}）。`,
          `The LLM at ${config.baseURL} sent an empty answer to the ${request.purpose} request: no text in its ${answer.chunks} streamed chunk${answer.chunks === 1 ? '' : 's'} (finish reason: ${answer.finishReason ?? 'unknown'}).`,
        ),
  );
}

/**
 * Adds the tool-call pieces of one streamed chunk: each call's id and name come once (some
 * providers repeat them in every piece), its arguments in pieces to be joined. A piece without
 * an index belongs to the call at its position.
 */
function gatherToolCalls(calls: StreamedAnswer['toolCalls'], pieces: unknown): void {
  if (!Array.isArray(pieces)) return;
  pieces.forEach((piece: unknown, position) => {
    if (typeof piece !== 'object' || piece === null) return;
    const {
      index,
      id,
      function: part,
    } = piece as {
      index?: unknown;
      id?: unknown;
      function?: { name?: unknown; arguments?: unknown };
    };
    const key = typeof index === 'number' ? index : position;
    const call = calls.get(key) ?? { id: '', name: '', arguments: '' };
    if (typeof id === 'string' && id !== '') call.id = id;
    if (typeof part?.name === 'string' && part.name !== call.name) call.name += part.name;
    if (typeof part?.arguments === 'string') call.arguments += part.arguments;
    else if (part?.arguments && typeof part.arguments === 'object') {
      call.arguments += JSON.stringify(part.arguments);
    }
    calls.set(key, call);
  });
}

/** Media types that are clearly no event stream: a web page (a proxy's login page), a JSON body. */
const NOT_AN_EVENT_STREAM =
  /^(text\/html|application\/xhtml\+xml|application\/json|[a-z]+\/[-.\w]+\+json)$/;

/** The media type of a response, lowercase without parameters ('' when absent). */
function mediaType(response: Response): string {
  return (response.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
}

/** `what ("first characters…")` for a message, or `what` when there is no text. */
function withExcerpt(what: string, body: string): string {
  const text = body.trim().replace(/\s+/g, ' ');
  if (text === '') return what;
  return `${what} ("${text.length > 80 ? `${text.slice(0, 80)}…` : text}")`;
}

/**
 * Passes an event stream's bytes through unchanged while noting its first characters (for an
 * error message) and whether it held the `data: [DONE]` line (the SDK hides it).
 */
function watchEventStream(body: ReadableStream<Uint8Array> | null): {
  body: ReadableStream<Uint8Array> | null;
  sawDone(): boolean;
  start(): string;
} {
  const decoder = new TextDecoder();
  let start = '';
  let sawDone = false;
  // The current line while it is short enough to be the [DONE] line.
  let line: string | undefined = '';
  const endLine = () => {
    if (line !== undefined && /^data: ?\[DONE\]$/.test(line)) sawDone = true;
    line = '';
  };
  const read = (text: string) => {
    if (start.length < 200) start += text.slice(0, 200 - start.length);
    const parts = text.split(/\r\n|\r|\n/);
    parts.forEach((part, index) => {
      if (index > 0) endLine();
      if (line !== undefined) line = line.length + part.length > 16 ? undefined : line + part;
    });
  };
  const watcher = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, output) {
      output.enqueue(chunk);
      read(decoder.decode(chunk, { stream: true }));
    },
    flush() {
      read(decoder.decode());
      endLine();
    },
  });
  return {
    body: body ? body.pipeThrough(watcher) : null,
    sawDone: () => sawDone,
    start: () => start,
  };
}

/** Pause before the one retry of a streamed request. */
const STREAM_RETRY_DELAY_MS = 500;

/** A stream that sent nothing for LLM_TIMEOUT after its headers (the abort reason). */
class StreamStall extends Error {
  constructor() {
    super('the stream stalled');
    this.name = 'StreamStall';
  }
}

/** What the SDK itself would retry: timeouts, connection errors, 408/409/429/5xx; and stalls. */
function isRetryable(error: unknown, sdk: OpenAIModule): boolean {
  if (error instanceof StreamStall) return true;
  if (error instanceof sdk.APIUserAbortError) return false;
  if (error instanceof sdk.APIConnectionError) return true;
  if (error instanceof sdk.APIError) {
    const status = error.status ?? 0;
    return status === 408 || status === 409 || status === 429 || status >= 500;
  }
  return false;
}

/** Maps an `openai` SDK failure to the server's error codes, naming the provider and the setting. */
function toLlmError(
  error: unknown,
  config: LlmConfig,
  purpose: string,
  sdk: OpenAIModule,
): ServerError {
  if (isServerError(error)) return error;
  const {
    APIConnectionError,
    APIConnectionTimeoutError,
    APIError,
    APIUserAbortError,
    AuthenticationError,
    PermissionDeniedError,
    RateLimitError,
  } = sdk;
  const where = config.baseURL;
  if (error instanceof APIConnectionTimeoutError) {
    return new ServerError(
      'LLM_TIMEOUT',
      localized(
        `${where} 的大模型在 ${config.timeoutMs / 1000} 秒内没有回答${purposeZh(purpose)}请求，重试一次后仍然如此（LLM_TIMEOUT）。`,
        `The LLM at ${where} did not answer the ${purpose} request within ${config.timeoutMs / 1000} s, also after one retry (LLM_TIMEOUT).`,
      ),
      { field: 'LLM_TIMEOUT' },
      { cause: error },
    );
  }
  if (error instanceof APIUserAbortError) {
    return new ServerError(
      'LLM_CANCELLED',
      localized(`${purposeZh(purpose)}请求已取消。`, `The ${purpose} request was cancelled.`),
      {},
      { cause: error },
    );
  }
  if (error instanceof APIConnectionError) {
    return new ServerError(
      'LLM_UNREACHABLE',
      localized(
        `无法连接 ${where} 的大模型（重试一次后仍然失败）：请检查 LLM_BASE_URL 和网络。`,
        `Cannot reach the LLM at ${where} (also after one retry): check LLM_BASE_URL and the network.`,
      ),
      { field: 'LLM_BASE_URL' },
      { cause: error },
    );
  }
  if (error instanceof AuthenticationError || error instanceof PermissionDeniedError) {
    return new ServerError(
      'LLM_AUTH_FAILED',
      localized(
        `${where} 的大模型拒绝了 API 密钥（HTTP ${error.status}）：请检查 LLM_API_KEY。`,
        `The LLM at ${where} refused the API key (HTTP ${error.status}): check LLM_API_KEY.`,
      ),
      { field: 'LLM_API_KEY' },
      { cause: error },
    );
  }
  if (error instanceof RateLimitError) {
    return new ServerError(
      'LLM_RATE_LIMITED',
      localized(
        `${where} 的大模型正在限流（HTTP 429），重试一次后仍然如此，请稍后再试。`,
        `The LLM at ${where} is rate-limiting requests (HTTP 429), also after one retry; try again shortly.`,
      ),
      {},
      { cause: error },
    );
  }
  if (error instanceof APIError) {
    const detail = providerMessage(error);
    return new ServerError(
      'LLM_ERROR',
      localized(
        `${where} 的大模型对${purposeZh(purpose)}请求返回了 HTTP ${error.status ?? '?'}${detail ? `：${detail}` : ''}。`,
        `The LLM at ${where} answered the ${purpose} request with HTTP ${error.status ?? '?'}${detail ? `: ${detail}` : ''}.`,
      ),
      error.status === 404 ? { field: 'LLM_MODEL', hint: 'Check LLM_BASE_URL and LLM_MODEL.' } : {},
      { cause: error },
    );
  }
  return new ServerError(
    'LLM_BAD_RESPONSE',
    localized(
      `${where} 的大模型对${purposeZh(purpose)}请求的回答不是有效的 OpenAI 兼容响应（${(error as Error)?.message ?? String(error)}）。`,
      `The LLM at ${where} sent an answer to the ${purpose} request that is not a valid OpenAI-compatible response (${(error as Error)?.message ?? String(error)}).`,
    ),
    {},
    { cause: error },
  );
}

function providerMessage(error: InstanceType<OpenAIModule['APIError']>): string {
  const body = error.error as { message?: unknown } | undefined;
  const message = typeof body?.message === 'string' ? body.message : '';
  return message.slice(0, 300);
}
