/**
 * The LLM's connection test: one chat completion of at most one token. It is the cheapest
 * request that proves everything the AI features need — the address speaks the OpenAI chat API,
 * the key is accepted and the model name is known — where `GET /models` would prove neither the
 * chat endpoint nor, with providers that list only some models (or none), the model.
 */

import { localized } from '../language.ts';
import { defaultLlmClientFactory, type LlmClientFactory } from '../llm/llm-client.ts';
import type { ResolvedSettings } from '../settings/settings-store.ts';
import { type ConnectionResult, incompleteResult, problemWords } from './connection-result.ts';
import { type OpenAIRequestFacts, openAIFailure } from './openai-failure.ts';

/** Longest wait for the answer (LLM_TIMEOUT when shorter): a test must not keep the student long. */
export const TEST_TIMEOUT_MS = 15_000;

const KEYS = { address: 'LLM_BASE_URL', key: 'LLM_API_KEY', model: 'LLM_MODEL' };

/** Tests the LLM with these settings (one request, no retry). */
export async function checkLlm(
  settings: ResolvedSettings,
  factory: LlmClientFactory = defaultLlmClientFactory,
): Promise<ConnectionResult> {
  const missing = [
    settings.llmBaseUrl === '' ? KEYS.address : '',
    settings.llmApiKey === '' ? KEYS.key : '',
    settings.llmModel === '' ? KEYS.model : '',
  ].filter((key) => key !== '');
  if (missing.length > 0) return incompleteResult(missing);
  const timeoutMs = Math.min(settings.llmTimeoutMs, TEST_TIMEOUT_MS);
  const facts: OpenAIRequestFacts = {
    target: 'llm',
    keys: KEYS,
    address: settings.llmBaseUrl,
    model: settings.llmModel,
    timeoutMs,
  };
  const sdk = await import('openai');
  const client = await factory({
    baseURL: settings.llmBaseUrl,
    apiKey: settings.llmApiKey,
    model: settings.llmModel,
    timeoutMs,
  });
  const started = Date.now();
  let completion: unknown;
  let response: Response;
  try {
    ({ data: completion, response } = await client.chat.completions
      .create(
        {
          model: settings.llmModel,
          messages: [{ role: 'user', content: 'Reply with OK.' }],
          max_tokens: 1,
          temperature: 0,
        },
        { maxRetries: 0, timeout: timeoutMs },
      )
      .withResponse());
  } catch (error) {
    return openAIFailure(error, sdk, facts);
  }
  const ms = Date.now() - started;
  const choices = (completion as { choices?: unknown } | null)?.choices;
  if (typeof completion !== 'object' || completion === null || !Array.isArray(choices)) {
    // A page or a JSON body that is no chat completion: not the API at that address.
    const type = response.headers.get('content-type') ?? 'no content type';
    const text = typeof completion === 'string' ? completion : JSON.stringify(completion);
    return {
      result: 'wrong_address',
      message: problemWords('llm', 'wrong_address', {
        ...facts,
        status: response.status,
        why: 'not-api',
      }),
      technical: `HTTP ${response.status} ${type}: ${String(text).slice(0, 200)}`,
      field: KEYS.address,
    };
  }
  const answered = (completion as { model?: unknown }).model;
  const model = typeof answered === 'string' && answered !== '' ? answered : settings.llmModel;
  return {
    result: 'ok',
    message: localized(
      `连接正常：${settings.llmBaseUrl} 接受了密钥，模型 ${model} 在 ${ms} 毫秒内作答。`,
      `It works: ${settings.llmBaseUrl} accepted the key and the model ${model} answered in ${ms} ms.`,
    ),
    technical: `POST ${settings.llmBaseUrl.replace(/\/$/, '')}/chat/completions (max_tokens 1) → HTTP ${response.status}, model "${model}", ${ms} ms`,
  };
}
