/**
 * What a connection test found, in words: one stable `result` code, a message for the student in
 * both languages that says what happened and what to do, and the technical cause (a service's
 * or the system's own words) for a "details" disclosure.
 */
import { type Localized, localized } from '../language.ts';

/** What a connection test can be run for: the LLM, or an online ASR mode. */
export const CONNECTION_TARGETS = ['llm', 'stream', 'dashscope', 'cloud'] as const;
export type ConnectionTarget = (typeof CONNECTION_TARGETS)[number];

/** The keys each target's test reads (the cloud recognizer falls back to the LLM's address and key). */
const KEYS_READ: Record<ConnectionTarget, RegExp> = {
  llm: /^LLM_/,
  stream: /^STREAM_ASR_/,
  dashscope: /^DASHSCOPE_/,
  cloud: /^(CLOUD_ASR_|LLM_(BASE_URL|API_KEY|TIMEOUT)$)/,
};

/**
 * The values of a form that a target's test reads, trimmed: the rest of the form (another
 * service's keys, a half-typed value elsewhere) neither blocks nor changes the test.
 */
export function fieldsFor(
  target: ConnectionTarget,
  fields: Readonly<Record<string, string | number | boolean>>,
): Record<string, string> {
  return Object.fromEntries(
    Object.entries(fields)
      .filter(([key]) => KEYS_READ[target].test(key))
      .map(([key, value]) => [key, String(value).trim()]),
  );
}

/**
 * - `ok`: the service answered the request;
 * - `wrong_key`: it refused the key (401/403);
 * - `wrong_address`: nothing answered there (no such host, connection refused, TLS), or what
 *   answered is not the expected API;
 * - `model_unknown`: it does not know the model (or resource) named;
 * - `timeout`: no answer in time;
 * - `rate_limited`: it is limiting requests (429: the key works);
 * - `incomplete`: a setting the test needs is empty, nothing was sent;
 * - `service_error`: any other refusal or failure of the service.
 */
export const CONNECTION_RESULTS = [
  'ok',
  'wrong_key',
  'wrong_address',
  'model_unknown',
  'timeout',
  'rate_limited',
  'incomplete',
  'service_error',
] as const;
export type ConnectionResultCode = (typeof CONNECTION_RESULTS)[number];

/** The answer of one connection test. */
export interface ConnectionResult {
  result: ConnectionResultCode;
  message: Localized;
  /** The raw cause (or, when it works, what answered), for a "details" disclosure. */
  technical: string;
  /** The setting to look at, when one is at fault. */
  field?: string;
}

/** The service a target reaches, as a sentence's subject. */
const SERVICE: Record<ConnectionTarget, Localized> = {
  llm: localized('大模型服务', 'The LLM service'),
  stream: localized('流式识别服务', 'The streaming recognition service'),
  dashscope: localized('DashScope（阿里云百炼）', 'DashScope (Alibaba Cloud Model Studio)'),
  cloud: localized('转写服务', 'The transcription service'),
};

/** The settings of a target: its address, its key and its model (or resource). */
export interface TargetKeys {
  address: string;
  key: string;
  model: string;
}

/** Why nothing usable answered at an address. */
export type AddressProblem = 'dns' | 'refused' | 'tls' | 'not-api' | 'other';

/** The words of each result but `ok` (whose words name what answered). */
export function problemWords(
  target: ConnectionTarget,
  problem: Exclude<ConnectionResultCode, 'ok' | 'incomplete'>,
  facts: {
    keys: TargetKeys;
    address: string;
    model: string;
    status?: number | undefined;
    seconds?: number;
    why?: AddressProblem;
  },
): Localized {
  const service = SERVICE[target];
  const { keys, address, model } = facts;
  const http = facts.status === undefined ? '' : `HTTP ${facts.status}`;
  switch (problem) {
    case 'wrong_key':
      return localized(
        `${service.zh}拒绝了密钥${http ? `（${http}）` : ''}：请检查 ${keys.key}，从服务的控制台重新复制完整的密钥。`,
        `${service.en} refused the key${http ? ` (${http})` : ''}: check ${keys.key} and copy the whole key from the service's console again.`,
      );
    case 'model_unknown':
      return localized(
        `${service.zh}不认识“${model}”${http ? `（${http}）` : ''}：请检查 ${keys.model}，填写服务控制台里列出的名称。`,
        `${service.en} does not know "${model}"${http ? ` (${http})` : ''}: check ${keys.model} and use a name the service's console lists.`,
      );
    case 'timeout':
      return localized(
        `${service.zh}在 ${facts.seconds ?? '?'} 秒内没有回答：网络可能很慢或被拦截，请检查网络后再试。`,
        `${service.en} did not answer within ${facts.seconds ?? '?'} s: the network may be slow or blocked. Check it and try again.`,
      );
    case 'rate_limited':
      return localized(
        `${service.zh}正在限流（HTTP 429）：地址和密钥可用，但请求太多或额度已用完。请稍后再试，或查看账户额度。`,
        `${service.en} is rate-limiting (HTTP 429): the address and key work, but there are too many requests or the quota is used up. Try again later or check the account's quota.`,
      );
    case 'service_error':
      return localized(
        `${service.zh}拒绝了测试请求${http ? `（${http}）` : ''}：请查看详情，检查 ${keys.address}、${keys.model} 和账户状态。`,
        `${service.en} refused the test request${http ? ` (${http})` : ''}: see the details and check ${keys.address}, ${keys.model} and the account.`,
      );
    case 'wrong_address':
      return addressWords(service, keys.address, address, facts.why ?? 'other', http);
  }
}

function addressWords(
  service: Localized,
  key: string,
  address: string,
  why: AddressProblem,
  http: string,
): Localized {
  switch (why) {
    case 'dns':
      return localized(
        `找不到 ${address} 的主机：请检查 ${key} 是否拼写正确，以及电脑是否联网。`,
        `No host found for ${address}: check that ${key} is spelt right and that this computer is online.`,
      );
    case 'refused':
      return localized(
        `${address} 拒绝了连接（那里没有服务在监听）：请检查 ${key} 的主机和端口。`,
        `${address} refused the connection (nothing listens there): check the host and port of ${key}.`,
      );
    case 'tls':
      return localized(
        `无法与 ${address} 建立安全连接（证书或 TLS 出错）：请检查 ${key}（https/wss 与 http/ws 是否写对），或网络是否拦截了加密连接。`,
        `No secure connection to ${address} (a certificate or TLS error): check ${key} (https/wss versus http/ws), or whether the network intercepts secure connections.`,
      );
    case 'not-api':
      return localized(
        `${address} 有回应${http ? `（${http}）` : ''}，但不是${service.zh}的接口：请检查 ${key}（例如 OpenAI 兼容的地址通常以 /v1 结尾）。`,
        `${address} answered${http ? ` (${http})` : ''}, but not as ${service.en.replace(/^The /, 'the ')} would: check ${key} (an OpenAI-compatible address usually ends in /v1).`,
      );
    case 'other':
      return localized(
        `无法连接 ${address}：请检查 ${key} 和网络。`,
        `Cannot connect to ${address}: check ${key} and the network.`,
      );
  }
}

/** The settings a test needs that are empty: `incomplete`, nothing sent. */
export function incompleteResult(missing: readonly string[]): ConnectionResult {
  return {
    result: 'incomplete',
    message: localized(
      `还没有填写 ${missing.join('、')}：填好后再测试。`,
      `${missing.join(' and ')} ${missing.length === 1 ? 'is' : 'are'} empty: fill ${missing.length === 1 ? 'it' : 'them'} in, then test again.`,
    ),
    technical: `missing: ${missing.join(', ')}`,
    field: missing[0]!,
  };
}

/** Socket error codes of a name that did not resolve. */
const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'EAI_FAIL', 'EAI_NODATA']);
/** Socket error codes of a connection nobody accepted or that was cut at once. */
const REFUSED_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
]);

/** Every error in a chain of causes, the outermost first. */
function causeChain(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let current = error; current !== undefined && chain.length < 6; ) {
    chain.push(current);
    current = (current as { cause?: unknown } | null)?.cause;
  }
  return chain;
}

/** Why a connection could not be made, from the socket error codes in an error's causes. */
export function addressProblemOf(error: unknown): AddressProblem {
  for (const link of causeChain(error)) {
    const code = String((link as { code?: unknown } | null)?.code ?? '');
    // A client that kept only the cause's message (`connect ECONNREFUSED 127.0.0.1:9`) says it there.
    const words =
      `${code} ${String((link as Error | null)?.message ?? '')}`.match(/\b[A-Z][A-Z_]+\b/g) ?? [];
    if (words.some((word) => DNS_CODES.has(word))) return 'dns';
    if (words.some((word) => REFUSED_CODES.has(word))) return 'refused';
    if (
      /CERT|TLS|SSL|EPROTO|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER/.test(code) ||
      /certificate|tls|ssl/i.test(String((link as Error | null)?.message ?? ''))
    ) {
      return 'tls';
    }
  }
  return 'other';
}

/** An error and its causes in one line: "Connection error. ← fetch failed ← connect ECONNREFUSED …". */
export function technicalText(error: unknown): string {
  return causeChain(error)
    .map((link) => {
      const message = (link as Error | null)?.message ?? String(link);
      const code = (link as { code?: unknown } | null)?.code;
      return typeof code === 'string' && !message.includes(code) ? `${message} (${code})` : message;
    })
    .filter((text, index, all) => text !== '' && all.indexOf(text) === index)
    .join(' ← ');
}
