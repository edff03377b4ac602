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

  return {
    assertConfigured,
    async complete(request) {
      const config = assertConfigured();
      let completion: OpenAI.Chat.Completions.ChatCompletion;
      try {
        completion = await (await client(config)).chat.completions.create(
          {
            model: config.model,
            messages: request.messages,
            ...(request.maxTokens !== undefined ? { max_tokens: request.maxTokens } : {}),
            temperature: request.temperature ?? 0.3,
          },
          request.signal ? { signal: request.signal } : {},
        );
      } catch (error) {
        throw toLlmError(error, config, request.purpose, await loadSdk());
      }
      const content = completion?.choices?.[0]?.message?.content;
      if (typeof content !== 'string' || content.trim() === '') {
        throw new ServerError(
          'LLM_BAD_RESPONSE',
          502,
          `The LLM at ${config.baseURL} answered the ${request.purpose} request without any text (finish reason: ${completion?.choices?.[0]?.finish_reason ?? 'unknown'}).`,
        );
      }
      return content;
    },
    async stream(request, onDelta) {
      const config = assertConfigured();
      // The SDK's timeout covers the wait for response headers; a stream that stalls mid-way is
      // cut by this idle timer (same length), so no request can hang forever.
      const controller = new AbortController();
      const abortFromCaller = () => controller.abort();
      request.signal?.addEventListener('abort', abortFromCaller, { once: true });
      let idle: NodeJS.Timeout | undefined;
      let stalled = false;
      const arm = () => {
        clearTimeout(idle);
        idle = setTimeout(() => {
          stalled = true;
          controller.abort();
        }, config.timeoutMs);
      };
      let text = '';
      try {
        arm();
        const stream = await (await client(config)).chat.completions.create(
          {
            model: config.model,
            messages: request.messages,
            stream: true,
            ...(request.maxTokens !== undefined ? { max_tokens: request.maxTokens } : {}),
            temperature: request.temperature ?? 0.3,
          },
          { signal: controller.signal },
        );
        for await (const chunk of stream) {
          arm();
          const delta = chunk?.choices?.[0]?.delta?.content;
          if (typeof delta === 'string' && delta !== '') {
            text += delta;
            onDelta(delta);
          }
        }
        // An aborted stream may simply end: an abort is never a complete answer.
        if (controller.signal.aborted) throw new (await loadSdk()).APIUserAbortError();
      } catch (error) {
        if (stalled) {
          throw new ServerError(
            'LLM_TIMEOUT',
            504,
            `The LLM at ${config.baseURL} stopped sending the ${request.purpose} answer for ${config.timeoutMs / 1000} s (LLM_TIMEOUT).`,
            { field: 'LLM_TIMEOUT' },
          );
        }
        throw toLlmError(error, config, request.purpose, await loadSdk());
      } finally {
        clearTimeout(idle);
        request.signal?.removeEventListener('abort', abortFromCaller);
      }
      if (text.trim() === '') {
        throw new ServerError(
          'LLM_BAD_RESPONSE',
          502,
          `The LLM at ${config.baseURL} streamed no text for the ${request.purpose} request.`,
        );
      }
      return text;
    },
  };
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
