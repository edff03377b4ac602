import type OpenAI from 'openai';
import { isServerError, ServerError } from '../errors.ts';
import type { ResolvedSettings } from '../settings/settings-store.ts';

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
let sdk: Promise<OpenAIModule> | undefined;
/** The SDK is loaded on the first LLM request: the backend starts faster without it. */
const loadSdk = (): Promise<OpenAIModule> => {
  sdk ??= import('openai');
  return sdk;
};

/** The default factory: one retry (after a timeout, a connection error, 408/409/429/5xx). */
export const defaultLlmClientFactory: LlmClientFactory = async (config) => {
  const { default: OpenAIClient } = await loadSdk();
  return new OpenAIClient({
    baseURL: config.baseURL,
    apiKey: config.apiKey,
    timeout: config.timeoutMs,
    maxRetries: 1,
  });
};

/** A chat message sent to the model. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** One chat request. */
export interface ChatRequest {
  messages: ChatMessage[];
  /** What the answer is for, used in error messages ("rescue", "notes", …). */
  purpose: string;
  maxTokens?: number;
  temperature?: number;
  signal?: AbortSignal;
}

/** Chat completions with the server's error codes. */
export interface LlmService {
  /** Throws LLM_NOT_CONFIGURED unless base URL, key and model are set. */
  assertConfigured(): LlmConfig;
  /** The whole answer, non-empty. */
  complete(request: ChatRequest): Promise<string>;
  /** Streams the answer through `onDelta`; resolves with the whole text. */
  stream(request: ChatRequest, onDelta: (text: string) => void): Promise<string>;
}

/** Creates the LLM service reading the settings at each call (a settings change applies at once). */
export function createLlmService(
  settings: () => ResolvedSettings,
  factory: LlmClientFactory = defaultLlmClientFactory,
): LlmService {
  let cached: { key: string; client: Promise<OpenAI> } | undefined;

  function assertConfigured(): LlmConfig {
    const current = settings();
    const missing = [
      current.llmBaseUrl === '' ? 'LLM_BASE_URL' : '',
      current.llmApiKey === '' ? 'LLM_API_KEY' : '',
      current.llmModel === '' ? 'LLM_MODEL' : '',
    ].filter((key) => key !== '');
    if (missing.length > 0) {
      throw new ServerError(
        'LLM_NOT_CONFIGURED',
        503,
        `The AI features need an OpenAI-compatible LLM: set ${missing.join(', ')} in the settings (now: LLM_BASE_URL=${current.llmBaseUrl || '(empty)'}, LLM_MODEL=${current.llmModel || '(empty)'}).`,
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
      502,
      `The LLM at ${config.baseURL} answered the ${purpose} request with ${what}, not an OpenAI-compatible response: check LLM_BASE_URL.`,
      { field: 'LLM_BASE_URL' },
    );

  /** The body of a non-JSON answer, for the message: its type and its first characters. */
  const describeBody = (response: Response, body: unknown): string => {
    const type = (response.headers.get('content-type') ?? 'no content type').split(';')[0]!;
    const text = typeof body === 'string' ? body.trim().replace(/\s+/g, ' ') : '';
    if (text === '') return type;
    return `${type} ("${text.length > 80 ? `${text.slice(0, 80)}…` : text}")`;
  };

  /** One streamed request: resolves with the text, or rejects (marking a stall). */
  async function streamOnce(
    llm: OpenAI,
    config: LlmConfig,
    request: ChatRequest,
    onDelta: (text: string) => void,
    progress: { delivered: boolean },
  ): Promise<string> {
    // The SDK's timeout covers the wait for the response headers; once they are in, a stream
    // that stalls is cut by this idle timer (same length), so no request can hang forever.
    if (request.signal?.aborted) throw new (await loadSdk()).APIUserAbortError();
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
    let text = '';
    try {
      const { data: stream, response } = await llm.chat.completions
        .create(
          {
            model: config.model,
            messages: request.messages,
            stream: true,
            ...(request.maxTokens !== undefined ? { max_tokens: request.maxTokens } : {}),
            temperature: request.temperature ?? 0.3,
          },
          // Retries are ours (see `stream`): never after part of an answer was shown.
          { signal: controller.signal, maxRetries: 0 },
        )
        .withResponse();
      const type = response.headers.get('content-type') ?? '';
      arm();
      if (!/^text\/event-stream\b/i.test(type)) {
        const body = await response.text().catch(() => '');
        throw notCompatible(config, request.purpose, describeBody(response, body));
      }
      let events = 0;
      for await (const chunk of stream) {
        arm();
        events++;
        const delta = chunk?.choices?.[0]?.delta?.content;
        if (typeof delta === 'string' && delta !== '') {
          text += delta;
          progress.delivered = true;
          onDelta(delta);
        }
      }
      // An aborted stream may simply end: an abort is never a complete answer.
      if (controller.signal.aborted) {
        if (controller.signal.reason instanceof StreamStall) throw controller.signal.reason;
        throw new (await loadSdk()).APIUserAbortError();
      }
      if (events === 0) {
        throw notCompatible(
          config,
          request.purpose,
          'an event stream holding no OpenAI-compatible event',
        );
      }
      return text;
    } catch (error) {
      if (controller.signal.reason instanceof StreamStall) throw controller.signal.reason;
      throw error;
    } finally {
      clearTimeout(idle);
      request.signal?.removeEventListener('abort', abortFromCaller);
    }
  }

  return {
    assertConfigured,
    async complete(request) {
      const config = assertConfigured();
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
          502,
          `The LLM at ${config.baseURL} answered the ${request.purpose} request without any text (finish reason: ${completion.choices[0]?.finish_reason ?? 'unknown'}).`,
        );
      }
      return content;
    },
    async stream(request, onDelta) {
      const config = assertConfigured();
      const sdk = await loadSdk();
      const llm = await client(config);
      // One retry, as the plain routes get from the SDK (a timeout, a dropped connection,
      // 408/409/429/5xx, a stream that stalls before its first word) — never once part of the
      // answer has been shown, which would show it twice.
      for (let attempt = 1; ; attempt++) {
        const progress = { delivered: false };
        let text: string;
        try {
          text = await streamOnce(llm, config, request, onDelta, progress);
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
              504,
              progress.delivered
                ? `The LLM at ${config.baseURL} stopped sending the ${request.purpose} answer part-way: nothing arrived for ${config.timeoutMs / 1000} s (LLM_TIMEOUT).`
                : `The LLM at ${config.baseURL} began the ${request.purpose} answer but sent nothing for ${config.timeoutMs / 1000} s, also after one retry (LLM_TIMEOUT).`,
              { field: 'LLM_TIMEOUT' },
            );
          }
          throw toLlmError(error, config, request.purpose, sdk);
        }
        if (text.trim() === '') {
          throw new ServerError(
            'LLM_BAD_RESPONSE',
            502,
            `The LLM at ${config.baseURL} streamed no text for the ${request.purpose} request.`,
          );
        }
        return text;
      }
    },
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
export function toLlmError(
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
      504,
      `The LLM at ${where} did not answer the ${purpose} request within ${config.timeoutMs / 1000} s, also after one retry (LLM_TIMEOUT).`,
      { field: 'LLM_TIMEOUT' },
      { cause: error },
    );
  }
  if (error instanceof APIUserAbortError) {
    return new ServerError(
      'LLM_ERROR',
      499,
      `The ${purpose} request was cancelled.`,
      {},
      { cause: error },
    );
  }
  if (error instanceof APIConnectionError) {
    return new ServerError(
      'LLM_UNREACHABLE',
      502,
      `Cannot reach the LLM at ${where} (also after one retry): check LLM_BASE_URL and the network.`,
      { field: 'LLM_BASE_URL' },
      { cause: error },
    );
  }
  if (error instanceof AuthenticationError || error instanceof PermissionDeniedError) {
    return new ServerError(
      'LLM_AUTH_FAILED',
      502,
      `The LLM at ${where} refused the API key (HTTP ${error.status}): check LLM_API_KEY.`,
      { field: 'LLM_API_KEY' },
      { cause: error },
    );
  }
  if (error instanceof RateLimitError) {
    return new ServerError(
      'LLM_RATE_LIMITED',
      429,
      `The LLM at ${where} is rate-limiting requests (HTTP 429), also after one retry; try again shortly.`,
      {},
      { cause: error },
    );
  }
  if (error instanceof APIError) {
    const detail = providerMessage(error);
    return new ServerError(
      'LLM_ERROR',
      502,
      `The LLM at ${where} answered the ${purpose} request with HTTP ${error.status ?? '?'}${detail ? `: ${detail}` : ''}.`,
      error.status === 404 ? { field: 'LLM_MODEL', hint: 'Check LLM_BASE_URL and LLM_MODEL.' } : {},
      { cause: error },
    );
  }
  return new ServerError(
    'LLM_BAD_RESPONSE',
    502,
    `The LLM at ${where} sent an answer to the ${purpose} request that is not a valid OpenAI-compatible response (${(error as Error)?.message ?? String(error)}).`,
    {},
    { cause: error },
  );
}

function providerMessage(error: InstanceType<OpenAIModule['APIError']>): string {
  const body = error.error as { message?: unknown } | undefined;
  const message = typeof body?.message === 'string' ? body.message : '';
  return message.slice(0, 300);
}
