/**
 * A failed request of the `openai` SDK (the LLM, the cloud recognizer) as a connection result:
 * which of wrong key, wrong address, unknown model, timeout, rate limit or another refusal it was.
 */
import {
  addressProblemOf,
  type ConnectionResult,
  type ConnectionTarget,
  problemWords,
  type TargetKeys,
  technicalText,
} from './connection-result.ts';

type OpenAIModule = typeof import('openai');

/** What the request was sent with, for the words. */
export interface OpenAIRequestFacts {
  target: ConnectionTarget;
  keys: TargetKeys;
  /** The base address (LLM_BASE_URL, CLOUD_ASR_BASE_URL). */
  address: string;
  model: string;
  timeoutMs: number;
}

/** A provider's words for a model it does not know (OpenAI: 404 model_not_found; others: 400). */
const UNKNOWN_MODEL =
  /model.*(not.?exist|not.?found|unknown|invalid|does not|unsupported|不存在)|(not.?exist|not.?found|unknown|invalid|no such).*model|模型.*不存在/i;

/** The provider's error object (`{message, code, type}`), when its answer was one. */
function providerError(error: { error?: unknown }): { message: string; code: string } | undefined {
  const body = error.error;
  if (typeof body !== 'object' || body === null) return undefined;
  const { message, code, type } = body as { message?: unknown; code?: unknown; type?: unknown };
  return {
    message: typeof message === 'string' ? message : '',
    code: [code, type].filter((part) => typeof part === 'string').join(' '),
  };
}

/** The connection result of an SDK failure. */
export function openAIFailure(
  error: unknown,
  sdk: OpenAIModule,
  facts: OpenAIRequestFacts,
): ConnectionResult {
  const technical = technicalText(error);
  const words = (
    problem: Parameters<typeof problemWords>[1],
    extra: Partial<Parameters<typeof problemWords>[2]> = {},
  ) => problemWords(facts.target, problem, { ...facts, ...extra });
  if (error instanceof sdk.APIConnectionTimeoutError) {
    return {
      result: 'timeout',
      message: words('timeout', { seconds: facts.timeoutMs / 1000 }),
      technical,
      field: facts.keys.address,
    };
  }
  if (error instanceof sdk.APIConnectionError) {
    return {
      result: 'wrong_address',
      message: words('wrong_address', { why: addressProblemOf(error) }),
      technical,
      field: facts.keys.address,
    };
  }
  if (!(error instanceof sdk.APIError) || error.status === undefined) {
    return {
      result: 'service_error',
      message: words('service_error'),
      technical,
      field: facts.keys.address,
    };
  }
  const status = error.status;
  const provider = providerError(error);
  if (status === 401 || status === 403) {
    return {
      result: 'wrong_key',
      message: words('wrong_key', { status }),
      technical,
      field: facts.keys.key,
    };
  }
  if (status === 429) {
    return { result: 'rate_limited', message: words('rate_limited', { status }), technical };
  }
  const aboutModel =
    provider !== undefined && UNKNOWN_MODEL.test(`${provider.code} ${provider.message}`);
  if ((status === 404 || status === 400 || status === 422) && aboutModel) {
    return {
      result: 'model_unknown',
      message: words('model_unknown', { status }),
      technical,
      field: facts.keys.model,
    };
  }
  if (status === 404 || status === 405 || (provider === undefined && status < 500)) {
    // No API error at all (a web page, a bare 404): something else answers at that address.
    return {
      result: 'wrong_address',
      message: words('wrong_address', { status, why: 'not-api' }),
      technical,
      field: facts.keys.address,
    };
  }
  return { result: 'service_error', message: words('service_error', { status }), technical };
}
