/**
 * The main keys of the settings file — the one place each is defined: its default, whether it is
 * a secret, how a value is checked, which field of {@link ResolvedSettings} it fills and how the
 * text is turned into that field's value, and when a change takes effect. The type of the
 * resolved settings and the mapping from the file are both derived from these definitions, and
 * so are the other names a key may have in a user's file (the original product's) and where a
 * secret is sent.
 */
import { MAX_STUDENT_DIGITS } from '@class-assistant/transcript-core';
import { type Localized, localized, type MessageText } from '../language.ts';
import { forbiddenDownloadHost } from '../security/download-address.ts';
import { forbiddenProviderHost } from '../security/provider-address.ts';
import { costLabel } from './translation-cost.ts';

/** When a saved change takes effect. */
export type SettingApplies = 'now' | 'next-class' | 'restart';

/** The outcome of checking one value; the message follows the key's name ("must be …"). */
export type SettingCheck = { ok: true } | { ok: false; message: MessageText };

/** How a kind of value is checked and read. */
export interface SettingKind<Value> {
  /** Validates a non-empty value. Empty means "use the default". */
  check(value: string): SettingCheck;
  /**
   * Turns the effective value (a checked one, or the default) into the setting's value;
   * `values` holds every key's effective value, for settings that fall back to another key.
   */
  parse(value: string, values: Readonly<Record<string, string>>): Value;
}

/** One value of a key with a fixed set of values, as a settings form offers it. */
export interface SettingChoice<Value extends string = string> {
  value: Value;
  label: Localized;
  /** One sentence saying what choosing it means, where a form shows one. */
  help?: Localized;
}

/** The groups of keys, in the order a settings form shows them, with their titles. */
export const SETTING_GROUPS = [
  { id: 'recognition', label: localized('语音识别', 'Speech recognition') },
  { id: 'llm', label: localized('AI 助手（救场、跟进度、笔记）', 'AI (rescue, catch-up, notes)') },
  { id: 'mock', label: localized('演示模式', 'Demo mode') },
  { id: 'streaming-asr', label: localized('在线流式识别', 'Online streaming recognition') },
  {
    id: 'dashscope-asr',
    label: localized(
      '阿里云百炼实时识别（DashScope）',
      'Alibaba Cloud real-time recognition (DashScope)',
    ),
  },
  { id: 'cloud-asr', label: localized('云端转写', 'Cloud transcription') },
  { id: 'audio', label: localized('音频', 'Audio') },
  { id: 'server', label: localized('后端', 'Backend') },
] as const satisfies ReadonlyArray<{ id: string; label: Localized }>;

/** One of {@link SETTING_GROUPS}. */
export type SettingGroup = (typeof SETTING_GROUPS)[number]['id'];

/** One main key of the settings file. */
export interface SettingDefinition<Field extends string = string, Value = unknown>
  extends SettingKind<Value> {
  key: string;
  /**
   * Other names of the key, e.g. the original product's (`SEED_ASR_APP_KEY`). A file that uses
   * one works unchanged: it is read when the main key is absent, and a save updates the line the
   * user wrote instead of adding the main key.
   */
  aliases?: readonly string[];
  /** The field of {@link ResolvedSettings} it fills. */
  field: Field;
  group: SettingGroup;
  /** Its name in plain words, as a settings form shows it (the key is for the file). */
  label: Localized;
  /** What the key does, in English (/docs and the original client read it). */
  description: string;
  /** The same in Chinese: a settings form shows the description in the student's language. */
  descriptionZh: string;
  /** The values a key with a fixed set of values takes (the check refuses any other). */
  choices?: readonly SettingChoice[];
  /** The value used when the key is absent or empty (secrets: always empty). */
  defaultValue: string;
  /** Secrets are masked on read and never logged. */
  secret: boolean;
  /**
   * For secrets: the main key of the address the secret is sent to. Pointing that address at
   * another origin needs the secret in the same request (see secret-destinations.ts).
   */
  sentTo?: string;
  /** An empty value means "use this other main key's value" (after the environment and defaults). */
  fallback?: string;
  applies: SettingApplies;
  /** An example shown in /docs and .env.example. */
  example: string;
}

const ok: SettingCheck = { ok: true };

/** A refusal in both languages. */
function refuse(zh: string, en: string): SettingCheck {
  return { ok: false, message: localized(zh, en) };
}

function wholeNumber(min: number, max: number): SettingKind<number> {
  return {
    check: (value) =>
      /^\d+$/.test(value) && Number(value) >= min && Number(value) <= max
        ? ok
        : refuse(
            `应为 ${min} 到 ${max} 之间的整数，当前为 "${value}"`,
            `must be a whole number from ${min} to ${max}, got "${value}"`,
          ),
    parse: Number,
  };
}

function decimal(min: number, max: number): SettingKind<number> {
  return {
    check: (value) =>
      /^\d+(\.\d+)?$/.test(value) && Number(value) >= min && Number(value) <= max
        ? ok
        : refuse(
            `应为 ${min} 到 ${max} 之间的数字，当前为 "${value}"`,
            `must be a number from ${min} to ${max}, got "${value}"`,
          ),
    parse: Number,
  };
}

/**
 * A URL with one of `protocols`. A provider's address (`provider: true`: where API keys are
 * sent) and a model host (`download: true`) must not be a link-local or cloud-metadata address.
 */
function url(
  protocols: string[],
  options: { provider?: boolean; download?: boolean } = {},
): SettingKind<string> {
  return {
    check(value) {
      let parsed: URL;
      try {
        parsed = new URL(value);
      } catch {
        return refuse(
          `应为网址（${protocols.join(' 或 ')}），当前为 "${value}"`,
          `must be a URL (${protocols.join(' or ')}), got "${value}"`,
        );
      }
      if (!protocols.includes(parsed.protocol)) {
        const starts = protocols.map((protocol) => `${protocol}//`);
        return refuse(
          `应以 ${starts.join(' 或 ')} 开头，当前为 "${value}"`,
          `must start with ${starts.join(' or ')}, got "${value}"`,
        );
      }
      const forbidden = options.provider
        ? forbiddenProviderHost(parsed.hostname)
        : options.download
          ? forbiddenDownloadHost(parsed.hostname)
          : undefined;
      return forbidden ? { ok: false, message: forbidden } : ok;
    },
    parse: String,
  };
}

/** A key with a fixed set of values, each with its label. */
function choice<const Value extends string>(
  choices: readonly SettingChoice<Value>[],
): SettingKind<Value> & { choices: readonly SettingChoice<Value>[] } {
  return { choices, ...oneOf(choices.map((item) => item.value)) };
}

function oneOf<const Value extends string>(values: readonly Value[]): SettingKind<Value> {
  return {
    check: (value) =>
      (values as readonly string[]).includes(value)
        ? ok
        : refuse(
            `应为 ${values.join('、')} 之一，当前为 "${value}"`,
            `must be one of ${values.join(', ')}, got "${value}"`,
          ),
    parse: (value) => value as Value,
  };
}

function text(maxLength: number): SettingKind<string> {
  return {
    check: (value) =>
      /[\r\n]/.test(value)
        ? refuse('只能是一行', 'must be a single line')
        : value.length > maxLength
          ? refuse(`最多 ${maxLength} 个字符`, `must be at most ${maxLength} characters`)
          : ok,
    parse: String,
  };
}

const flag: SettingKind<boolean> & { choices: readonly SettingChoice[] } = {
  ...choice([
    { value: 'true', label: localized('开', 'On') },
    { value: 'false', label: localized('关', 'Off') },
  ]),
  parse: (value) => value === 'true',
};

/** The student's name: one line of at most 40 characters once trimmed; spaces collapsed. */
const studentName: SettingKind<string> = {
  check: (value) =>
    /[\r\n]/.test(value)
      ? refuse('只能是一行', 'must be a single line')
      : [...value.trim()].length > 40
        ? refuse(
            `最多 40 个字符，当前有 ${[...value.trim()].length} 个`,
            `must be at most 40 characters, got ${[...value.trim()].length}`,
          )
        : ok,
  parse: (value) => value.trim().replace(/\s+/g, ' '),
};

/** The last digits of a student number: '' or 1 to MAX_STUDENT_DIGITS ASCII digits. */
const studentDigits: SettingKind<string> = {
  check: (value) =>
    new RegExp(`^\\d{0,${MAX_STUDENT_DIGITS}}$`).test(value.trim())
      ? ok
      : refuse(
          `应为 1 到 ${MAX_STUDENT_DIGITS} 位数字（0-9，学号的最后几位），当前为 "${value}"`,
          `must be 1 to ${MAX_STUDENT_DIGITS} digits (0-9, the last digits of your student number), got "${value}"`,
        ),
  parse: (value) => value.trim(),
};

/** Keeps a definition's literal field name and value type, so the settings type can be derived. */
function setting<const Field extends string, Value>(
  definition: SettingDefinition<Field, Value>,
): SettingDefinition<Field, Value> {
  return definition;
}

/** Checks one origin of CORS_ORIGINS: scheme://host[:port], no path. */
function checkOrigin(value: string): SettingCheck {
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    return refuse(
      `"${value}" 不是 http://localhost:5173 这样的来源`,
      `"${value}" is not an origin like http://localhost:5173`,
    );
  }
  if (value === '*' || parsed.origin === 'null' || parsed.origin !== value.replace(/\/$/, '')) {
    return refuse(
      `"${value}" 不是 http://localhost:5173 这样的来源（协议://主机[:端口]，不带路径，不能用 *）`,
      `"${value}" is not an origin like http://localhost:5173 (scheme://host[:port], no path, no *)`,
    );
  }
  return ok;
}

/**
 * The ASR modes the product defines, in the order a form offers them, with their names; the
 * recognizer registry says which are available and what each needs.
 */
export const ASR_MODE_CHOICES = [
  {
    value: 'local',
    label: localized('本机离线识别', 'Offline, on this computer'),
    help: localized(
      '不联网、免费，用下载到本机的语音模型；准确度一般。',
      'No internet, free, with a speech model downloaded once; fair accuracy.',
    ),
  },
  {
    value: 'stream',
    label: localized('在线识别 · 火山引擎（豆包语音）', 'Online · Volcengine (Doubao speech)'),
    help: localized(
      '实时、准确；需要火山引擎的 App ID 和 Access Token。',
      'Live and accurate; needs an app id and access token from Volcengine.',
    ),
  },
  {
    value: 'dashscope',
    label: localized('在线识别 · 阿里云百炼', 'Online · Alibaba Cloud Model Studio'),
    help: localized(
      '实时、准确；需要阿里云百炼的 API Key。',
      'Live and accurate; needs an API key of Alibaba Cloud Model Studio.',
    ),
  },
  {
    value: 'cloud',
    label: localized('云端转写', 'Cloud transcription'),
    help: localized(
      '每听到一句就发给转写服务（SiliconFlow、Groq、OpenAI）；需要密钥。',
      'Sends each phrase to a transcription service (SiliconFlow, Groq, OpenAI); needs a key.',
    ),
  },
  {
    value: 'mock',
    label: localized('演示模式', 'Demo mode'),
    help: localized(
      '播放一节示例课，不用麦克风，先试试看；“高级 → 演示模式”里可以换成你自己的讲稿。',
      'Plays a sample class without a microphone, to try the app; Advanced → Demo mode takes your own script.',
    ),
  },
] as const satisfies readonly SettingChoice[];

/** One of {@link ASR_MODES}. */
export type AsrMode = (typeof ASR_MODE_CHOICES)[number]['value'];

/** The ASR modes the product defines; the recognizer registry says which are available. */
export const ASR_MODES: readonly AsrMode[] = ASR_MODE_CHOICES.map((item) => item.value);

/**
 * ASR_MODE values of the original product that name one of {@link ASR_MODES}: its settings
 * dropdown saves `seed-asr` for the online streaming service.
 */
export const ASR_MODE_ALIASES: Readonly<Record<string, AsrMode>> = {
  'seed-asr': 'stream',
};

/** The endpoint path a full streaming URL may end with (`…/api/v3/sauc/bigmodel_async`). */
const STREAM_ENDPOINT_PATH = /\/api\/v3\/sauc\/(bigmodel|bigmodel_async|bigmodel_nostream)\/*$/;

/** The streaming endpoint a full URL names (the original's SEED_ASR_WS_URL holds one), if any. */
function streamEndpointInUrl(value: string): string | undefined {
  try {
    return STREAM_ENDPOINT_PATH.exec(new URL(value).pathname)?.[1];
  } catch {
    return undefined;
  }
}

/** Every main key, in the order the settings form and .env.example show them. */
export const SETTING_DEFINITIONS = [
  setting({
    key: 'ASR_MODE',
    field: 'asrMode',
    group: 'recognition',
    label: localized('识别方式', 'Recognition mode'),
    description:
      "Recognition mode: local (offline, microphone + local model), stream (online streaming ASR; the original product's seed-asr is the same), dashscope (Alibaba Cloud Model Studio real-time recognition, fun-asr-realtime), cloud (OpenAI-compatible transcription), mock (scripted lecture for demos and tests).",
    descriptionZh:
      '识别方式：local（本机离线识别，用麦克风和本机模型）、stream（在线流式识别；原版的 seed-asr 与它相同）、dashscope（阿里云百炼实时识别，fun-asr-realtime）、cloud（兼容 OpenAI 接口的云端转写）、mock（按讲稿播放的示例课，用于演示和测试）。',
    defaultValue: 'local',
    secret: false,
    applies: 'next-class',
    example: 'mock',
    choices: ASR_MODE_CHOICES,
    check: oneOf([...ASR_MODES, ...Object.keys(ASR_MODE_ALIASES)]).check,
    parse: (value): AsrMode =>
      Object.hasOwn(ASR_MODE_ALIASES, value) ? ASR_MODE_ALIASES[value]! : (value as AsrMode),
  }),
  setting({
    key: 'STREAM_ASR_URL',
    aliases: ['SEED_ASR_WS_URL'],
    field: 'streamAsrUrl',
    group: 'streaming-asr',
    label: localized('服务地址', 'Service address'),
    description:
      "Base address of the streaming ASR service (wss://host). A full address ending in /api/v3/sauc/<endpoint> (the original product's SEED_ASR_WS_URL) works too: its endpoint is used.",
    descriptionZh:
      '流式识别服务的基础地址（形如 wss://host）。也可以填以 /api/v3/sauc/<endpoint> 结尾的完整地址（原版的 SEED_ASR_WS_URL 就是这样），这时使用其中的接口。',
    defaultValue: 'wss://openspeech.bytedance.com',
    secret: false,
    applies: 'next-class',
    example: 'wss://openspeech.bytedance.com',
    ...url(['wss:', 'ws:'], { provider: true }),
    parse: (value) => {
      const endpoint = streamEndpointInUrl(value);
      if (!endpoint) return value;
      const base = new URL(value);
      base.pathname = base.pathname.replace(STREAM_ENDPOINT_PATH, '');
      return base.toString().replace(/\/$/, '');
    },
  }),
  setting({
    key: 'STREAM_ASR_ENDPOINT',
    field: 'streamAsrEndpoint',
    group: 'streaming-asr',
    label: localized('接口', 'Endpoint'),
    description:
      'Which streaming endpoint: bigmodel_async (optimised bidirectional, answers on change), bigmodel (bidirectional), bigmodel_nostream. An endpoint named in STREAM_ASR_URL wins.',
    descriptionZh:
      '使用哪个流式接口：bigmodel_async（优化版双向流式，结果有变化时才返回）、bigmodel（双向流式）、bigmodel_nostream（流式输入）。STREAM_ASR_URL 里写了接口时，以那里的为准。',
    defaultValue: 'bigmodel_async',
    secret: false,
    applies: 'next-class',
    example: 'bigmodel_async',
    ...choice([
      {
        value: 'bigmodel_async',
        label: localized('双向流式（优化版）', 'Bidirectional (optimised)'),
      },
      { value: 'bigmodel', label: localized('双向流式', 'Bidirectional') },
      { value: 'bigmodel_nostream', label: localized('流式输入', 'Streaming input') },
    ]),
    parse: (value, values) =>
      (streamEndpointInUrl(values.STREAM_ASR_URL ?? '') ?? value) as
        | 'bigmodel_async'
        | 'bigmodel'
        | 'bigmodel_nostream',
  }),
  setting({
    key: 'STREAM_ASR_APP_KEY',
    aliases: ['SEED_ASR_APP_KEY'],
    field: 'streamAsrAppKey',
    group: 'streaming-asr',
    label: localized('App ID', 'App ID'),
    description: 'Streaming provider application id (X-Api-App-Key).',
    descriptionZh: '流式识别服务商给的应用 ID（X-Api-App-Key）。',
    defaultValue: '',
    secret: true,
    sentTo: 'STREAM_ASR_URL',
    applies: 'next-class',
    example: '1234567890',
    ...text(200),
  }),
  setting({
    key: 'STREAM_ASR_ACCESS_KEY',
    aliases: ['SEED_ASR_ACCESS_KEY'],
    field: 'streamAsrAccessKey',
    group: 'streaming-asr',
    label: localized('Access Token', 'Access token'),
    description: 'Streaming provider access token (X-Api-Access-Key).',
    descriptionZh: '流式识别服务商给的访问令牌（X-Api-Access-Key）。',
    defaultValue: '',
    secret: true,
    sentTo: 'STREAM_ASR_URL',
    applies: 'next-class',
    example: 'your-access-token',
    ...text(500),
  }),
  setting({
    key: 'STREAM_ASR_RESOURCE_ID',
    aliases: ['SEED_ASR_RESOURCE_ID'],
    field: 'streamAsrResourceId',
    group: 'streaming-asr',
    label: localized('资源 ID', 'Resource id'),
    description:
      'Streaming provider resource id: volc.bigasr.sauc.duration (1st generation, hourly), volc.bigasr.sauc.concurrent, volc.seedasr.sauc.duration, …',
    descriptionZh:
      '流式识别服务商的资源 ID：volc.bigasr.sauc.duration（第一代，按小时计费）、volc.bigasr.sauc.concurrent、volc.seedasr.sauc.duration 等。',
    defaultValue: 'volc.bigasr.sauc.duration',
    secret: false,
    applies: 'next-class',
    example: 'volc.bigasr.sauc.duration',
    ...text(200),
  }),
  setting({
    key: 'STREAM_ASR_HOTWORDS',
    field: 'streamAsrHotwords',
    group: 'streaming-asr',
    label: localized('发送热词', 'Send hot words'),
    description:
      'Send hot words to the streaming service: your custom keywords (names) and terms of the active class material, within the protocol limit of 100 tokens.',
    descriptionZh:
      '把热词发给流式识别服务：你自定义的关键词（如人名）和当前课程资料里的术语，不超过协议限制的 100 个 token。',
    defaultValue: 'true',
    secret: false,
    applies: 'next-class',
    example: 'true',
    ...flag,
  }),
  setting({
    key: 'DASHSCOPE_API_KEY',
    field: 'dashscopeApiKey',
    group: 'dashscope-asr',
    label: localized('API 密钥', 'API key'),
    description:
      'API key of Alibaba Cloud Model Studio (DashScope) for ASR_MODE=dashscope, sent as a bearer token.',
    descriptionZh:
      'ASR_MODE=dashscope 使用的阿里云百炼（DashScope）API 密钥，以 Bearer 令牌的形式发送。',
    defaultValue: '',
    secret: true,
    sentTo: 'DASHSCOPE_WS_URL',
    applies: 'next-class',
    example: 'sk-…',
    ...text(500),
  }),
  setting({
    key: 'DASHSCOPE_ASR_MODEL',
    field: 'dashscopeAsrModel',
    group: 'dashscope-asr',
    label: localized('实时识别模型', 'Real-time model'),
    description: 'Real-time recognition model of ASR_MODE=dashscope (16 kHz PCM).',
    descriptionZh: 'ASR_MODE=dashscope 使用的实时识别模型（16 kHz PCM）。',
    defaultValue: 'fun-asr-realtime',
    secret: false,
    applies: 'next-class',
    example: 'fun-asr-realtime',
    ...text(200),
  }),
  setting({
    key: 'DASHSCOPE_WS_URL',
    field: 'dashscopeWsUrl',
    group: 'dashscope-asr',
    label: localized('服务地址', 'Service address'),
    description:
      'WebSocket address of DashScope real-time recognition (Beijing region; wss://dashscope-intl.aliyuncs.com/api-ws/v1/inference for Singapore).',
    descriptionZh:
      'DashScope 实时识别的 WebSocket 地址（默认是北京地域；新加坡地域用 wss://dashscope-intl.aliyuncs.com/api-ws/v1/inference）。',
    defaultValue: 'wss://dashscope.aliyuncs.com/api-ws/v1/inference',
    secret: false,
    applies: 'next-class',
    example: 'wss://dashscope.aliyuncs.com/api-ws/v1/inference',
    ...url(['wss:', 'ws:'], { provider: true }),
  }),
  setting({
    key: 'CLOUD_ASR_BASE_URL',
    field: 'cloudAsrBaseUrl',
    group: 'cloud-asr',
    label: localized('转写服务地址', 'Transcription address'),
    description:
      'OpenAI-compatible API for the cloud mode (POST {base}/audio/transcriptions). Empty: use LLM_BASE_URL.',
    descriptionZh:
      '云端转写使用的兼容 OpenAI 的接口地址（POST {base}/audio/transcriptions）。留空则使用 LLM_BASE_URL。',
    defaultValue: '',
    secret: false,
    fallback: 'LLM_BASE_URL',
    applies: 'next-class',
    example: 'https://api.openai.com/v1',
    ...url(['https:', 'http:'], { provider: true }),
  }),
  setting({
    key: 'CLOUD_ASR_API_KEY',
    field: 'cloudAsrApiKey',
    group: 'cloud-asr',
    label: localized('API 密钥', 'API key'),
    description: 'Key for the cloud transcription API. Empty: use LLM_API_KEY.',
    descriptionZh: '云端转写接口的密钥。留空则使用 LLM_API_KEY。',
    defaultValue: '',
    secret: true,
    sentTo: 'CLOUD_ASR_BASE_URL',
    fallback: 'LLM_API_KEY',
    applies: 'next-class',
    example: 'sk-…',
    ...text(500),
  }),
  setting({
    key: 'CLOUD_ASR_MODEL',
    field: 'cloudAsrModel',
    group: 'cloud-asr',
    label: localized('转写模型', 'Transcription model'),
    description: 'Transcription model of the cloud mode.',
    descriptionZh: '云端转写使用的模型。',
    defaultValue: 'whisper-1',
    secret: false,
    applies: 'next-class',
    example: 'whisper-1',
    ...text(200),
  }),
  setting({
    key: 'CLOUD_ASR_LANGUAGE',
    field: 'cloudAsrLanguage',
    group: 'cloud-asr',
    label: localized('语音的语言', 'Speech language'),
    description:
      'Language of the speech for the cloud mode, as an ISO-639-1 code (zh, en…); empty lets the service detect it.',
    descriptionZh:
      '云端转写时语音的语言，用 ISO-639-1 代码表示（zh、en 等）；留空则由服务自动判断。',
    defaultValue: '',
    secret: false,
    applies: 'next-class',
    example: 'zh',
    check: (value) =>
      /^[a-z]{2,3}$/.test(value)
        ? ok
        : refuse(
            `应为 zh、en 这样的 ISO-639-1 语言代码，当前为 "${value}"`,
            `must be an ISO-639-1 code such as zh or en, got "${value}"`,
          ),
    parse: String,
  }),
  setting({
    key: 'LLM_BASE_URL',
    field: 'llmBaseUrl',
    group: 'llm',
    label: localized('服务地址', 'Service address'),
    description:
      'Base address of the OpenAI-compatible LLM API (rescue, catch-up, notes, folding).',
    descriptionZh: '兼容 OpenAI 的大模型接口的基础地址（用于救场、跟进度、笔记和折叠历史）。',
    defaultValue: 'https://api.deepseek.com/v1',
    secret: false,
    applies: 'now',
    example: 'https://api.deepseek.com/v1',
    ...url(['https:', 'http:'], { provider: true }),
  }),
  setting({
    key: 'LLM_API_KEY',
    field: 'llmApiKey',
    group: 'llm',
    label: localized('API 密钥', 'API key'),
    description: 'LLM API key. Empty: AI features answer LLM_NOT_CONFIGURED.',
    descriptionZh: '大模型的 API 密钥。留空时，AI 功能会返回 LLM_NOT_CONFIGURED。',
    defaultValue: '',
    secret: true,
    sentTo: 'LLM_BASE_URL',
    applies: 'now',
    example: 'sk-…',
    ...text(500),
  }),
  setting({
    key: 'LLM_MODEL',
    field: 'llmModel',
    group: 'llm',
    label: localized('模型', 'Model'),
    description: 'Chat model name.',
    descriptionZh: '对话模型的名称。',
    defaultValue: 'deepseek-chat',
    secret: false,
    applies: 'now',
    example: 'deepseek-chat',
    ...text(200),
  }),
  setting({
    key: 'LLM_TIMEOUT',
    field: 'llmTimeoutMs',
    group: 'llm',
    label: localized('超时（秒）', 'Timeout (s)'),
    description:
      'Seconds one LLM request may take (one retry follows a timeout or a connection failure).',
    descriptionZh: '一次大模型请求最多等待的秒数（超时或连接失败后会重试一次）。',
    defaultValue: '60',
    secret: false,
    applies: 'now',
    example: '60',
    ...decimal(0.1, 600),
    parse: (value) => Math.round(Number(value) * 1000),
  }),
  setting({
    key: 'TRANSLATE_CAPTIONS',
    field: 'translateCaptions',
    group: 'llm',
    label: localized('字幕翻译', 'Translated captions'),
    description:
      'Translates each line of the class into the student’s language with the LLM (off, zh: Chinese, en: English), shown under the line, kept with the class, searchable and exported. Lines already in that language are not sent. Needs LLM_BASE_URL, LLM_API_KEY and LLM_MODEL.',
    descriptionZh:
      '用大模型把课堂的每一句翻译成学生的语言（off 关闭，zh 中文，en 英文），显示在原句下方，随课堂保存，可搜索、可导出。已经是该语言的句子不会发送。需要填写 LLM_BASE_URL、LLM_API_KEY 和 LLM_MODEL。',
    defaultValue: 'off',
    secret: false,
    applies: 'now',
    example: 'en',
    ...choice([
      { value: 'off', label: localized('关', 'Off') },
      {
        value: 'zh',
        label: localized('译成中文', 'Into Chinese'),
        help: costLabel('zh'),
      },
      {
        value: 'en',
        label: localized('译成英文', 'Into English'),
        help: costLabel('en'),
      },
    ]),
  }),
  setting({
    key: 'AUDIO_SAMPLE_RATE',
    field: 'audioSampleRate',
    group: 'audio',
    label: localized('采样率', 'Sample rate'),
    description: 'Capture sample rate in Hz.',
    descriptionZh: '录音的采样率，单位 Hz。',
    defaultValue: '16000',
    secret: false,
    applies: 'next-class',
    example: '16000',
    ...wholeNumber(8000, 48000),
  }),
  setting({
    key: 'AUDIO_CHANNELS',
    field: 'audioChannels',
    group: 'audio',
    label: localized('声道数', 'Channels'),
    description: 'Capture channel count.',
    descriptionZh: '录音的声道数。',
    defaultValue: '1',
    secret: false,
    applies: 'next-class',
    example: '1',
    ...wholeNumber(1, 2),
  }),
  setting({
    key: 'AUDIO_CHUNK_SIZE',
    field: 'audioChunkSize',
    group: 'audio',
    label: localized('音频块字节数', 'Chunk bytes'),
    description: 'Bytes per audio chunk (3200 bytes = 100 ms of 16 kHz 16-bit mono).',
    descriptionZh: '每个音频块的字节数（3200 字节 = 16 kHz、16 位单声道的 100 ms）。',
    defaultValue: '3200',
    secret: false,
    applies: 'next-class',
    example: '3200',
    ...wholeNumber(320, 65536),
  }),
  setting({
    key: 'AUDIO_INPUT',
    field: 'audioInput',
    group: 'audio',
    label: localized('输入设备', 'Input device'),
    description:
      'Audio source of the local, stream and cloud modes: mic (the default microphone, captured by the backend), mic:NAME (the input whose name contains NAME), system (the sound of the computer itself, e.g. an online class in Tencent Meeting or Zoom: on Linux the monitor of the default output through PulseAudio or PipeWire; on macOS and Windows choose Computer sound in the app window instead), system+mic (that and the default microphone, mixed), app (the microphone of the app window: the desktop UI captures it and streams it to the backend, on any OS, no native addon), or file:PATH (a recording: MP3, M4A/AAC, MP4/MOV, WebM, OGG, FLAC or WAV, e.g. a recorded lecture; relative to the app folder).',
    descriptionZh:
      'local、stream 和 cloud 三种方式的音频来源：mic（默认麦克风，由后端录音）、mic:NAME（名称中包含 NAME 的输入设备）、system（电脑自己播放的声音，例如腾讯会议、Zoom 里的网课：Linux 上录默认输出设备的监听源，需要 PulseAudio 或 PipeWire；macOS 和 Windows 请改在应用窗口里选择“电脑声音”）、system+mic（电脑声音和默认麦克风混在一起）、app（应用窗口的麦克风：由桌面界面录音并传给后端，任何系统都能用，不需要原生插件），或 file:PATH（一个录音文件：MP3、M4A/AAC、MP4/MOV、WebM、OGG、FLAC 或 WAV，例如课堂录音；相对路径从应用文件夹算起）。',
    defaultValue: 'mic',
    secret: false,
    applies: 'next-class',
    example: 'file:/home/me/lectures/week3.wav',
    check: (value) => {
      const single = text(1000).check(value);
      if (!single.ok) return single;
      return /^file:\s*$/i.test(value)
        ? refuse(
            'file: 后面要写文件路径，例如 file:/home/me/lecture.wav',
            'file: needs a path, e.g. file:/home/me/lecture.wav',
          )
        : ok;
    },
    parse: String,
  }),
  setting({
    key: 'AUDIO_FILE_PACE',
    field: 'audioFilePace',
    group: 'audio',
    label: localized('录音文件播放速度', 'Recording playback pace'),
    description:
      'How AUDIO_INPUT=file:PATH is played: realtime (like a live class, one second per second) or fast (as fast as recognition goes: transcribe a recording).',
    descriptionZh:
      'AUDIO_INPUT=file:PATH 的播放方式：realtime（像现场上课一样，一秒放一秒）或 fast（识别多快就放多快，用来转写录音）。',
    defaultValue: 'realtime',
    secret: false,
    applies: 'next-class',
    example: 'fast',
    ...choice([
      { value: 'realtime', label: localized('实时（像上课一样）', 'Real time (like a class)') },
      { value: 'fast', label: localized('尽快（转写录音）', 'Fast (transcribe a recording)') },
    ]),
  }),
  setting({
    key: 'KEEP_AUDIO',
    field: 'keepAudio',
    group: 'audio',
    label: localized('保存课堂录音', 'Keep the class audio'),
    description:
      'Keep the audio each class hears in its folder (audio.ogg, Opus at about 24 kbit/s: about 11 MB per class hour), so that any line can be heard again and exported with the class: on or off.',
    descriptionZh:
      '把每节课听到的声音保存在课堂文件夹里（audio.ogg，Opus 约 24 kbit/s：每小时约 11 MB），之后可以重听任意一句、随课堂一起导出：on（保存）或 off（不保存）。',
    defaultValue: 'on',
    secret: false,
    applies: 'next-class',
    example: 'off',
    ...choice([
      { value: 'on', label: localized('保存（每小时约 11 MB）', 'On (about 11 MB an hour)') },
      { value: 'off', label: localized('不保存', 'Off') },
    ]),
  }),
  setting({
    key: 'VAD_ENERGY_THRESHOLD',
    field: 'vadEnergyThreshold',
    group: 'audio',
    label: localized('语音能量阈值', 'Speech energy threshold'),
    description:
      'Speech detection (local and cloud modes): starting energy threshold; audio louder than this is speech (SpeechRecognition energy_threshold).',
    descriptionZh:
      '语音检测（local 和 cloud 方式）的初始能量阈值；比它响的声音算作有人说话（SpeechRecognition 的 energy_threshold）。',
    defaultValue: '220',
    secret: false,
    applies: 'next-class',
    example: '220',
    ...decimal(1, 32767),
  }),
  setting({
    key: 'VAD_DYNAMIC_ENERGY',
    field: 'vadDynamicEnergy',
    group: 'audio',
    label: localized('阈值跟随环境噪声', 'Threshold follows room noise'),
    description:
      'Let the threshold follow the room noise between phrases (SpeechRecognition dynamic_energy_threshold).',
    descriptionZh:
      '在两句话之间让阈值跟着环境噪声自动调整（SpeechRecognition 的 dynamic_energy_threshold）。',
    defaultValue: 'true',
    secret: false,
    applies: 'next-class',
    example: 'true',
    ...flag,
  }),
  setting({
    key: 'VAD_PAUSE_THRESHOLD',
    field: 'vadPauseThreshold',
    group: 'audio',
    label: localized('断句静音（秒）', 'Pause that ends a phrase (s)'),
    description:
      'Seconds of quiet that end a phrase (pause_threshold; at least 0.45, the silence kept around phrases).',
    descriptionZh:
      '安静多少秒算一句话结束（pause_threshold；至少 0.45，即每句话前后保留的静音长度）。',
    defaultValue: '0.9',
    secret: false,
    applies: 'next-class',
    example: '0.9',
    ...decimal(0.45, 10),
  }),
  setting({
    key: 'VAD_PHRASE_TIME_LIMIT',
    field: 'vadPhraseTimeLimit',
    group: 'audio',
    label: localized('最长一句（秒）', 'Longest phrase (s)'),
    description: 'Longest phrase in seconds before it is cut and recognised (0: no limit).',
    descriptionZh: '一句话最长多少秒，超过就截断并识别（0 表示不限制）。',
    defaultValue: '15',
    secret: false,
    applies: 'next-class',
    example: '15',
    ...decimal(0, 120),
  }),
  setting({
    key: 'VAD_CALIBRATION_SECONDS',
    field: 'vadCalibrationSeconds',
    group: 'audio',
    label: localized('噪声校准（秒）', 'Noise calibration (s)'),
    description:
      'Seconds of room noise measured at the start of a class to set the threshold (adjust_for_ambient_noise; 0: off). That audio is not transcribed.',
    descriptionZh:
      '上课开始时测量多少秒的环境噪声来设定阈值（adjust_for_ambient_noise；0 表示关闭）。这段音频不会转写。',
    defaultValue: '1',
    secret: false,
    applies: 'next-class',
    example: '1',
    ...decimal(0, 10),
  }),
  setting({
    key: 'LOCAL_ASR_ENGINE',
    field: 'localAsrEngine',
    group: 'recognition',
    label: localized('离线识别引擎', 'Offline engine'),
    description:
      'Offline engine of ASR_MODE=local: auto (the best model installed for LOCAL_ASR_LANGUAGE: a sherpa-onnx one — SenseVoice, then a streaming model — then Vosk, then for English the system PocketSphinx), sherpa (sherpa-onnx: SenseVoice or a streaming zh-en transducer, SHERPA_MODEL_PATH or an installed one), vosk (Chinese, English and more; VOSK_MODEL_PATH or an installed one) or pocketsphinx (US English only, from the system packages libpocketsphinx3 and pocketsphinx-en-us).',
    descriptionZh:
      'ASR_MODE=local 的离线识别引擎：auto（按 LOCAL_ASR_LANGUAGE 自动选已安装的最好的模型，依次是 sherpa-onnx 的 SenseVoice、sherpa-onnx 的流式模型、Vosk，英语最后还可以用系统的 PocketSphinx）、sherpa（sherpa-onnx：SenseVoice 或中英流式 transducer 模型，用 SHERPA_MODEL_PATH 或已安装的模型）、vosk（中文、英语等多种语言；用 VOSK_MODEL_PATH 或已安装的模型）或 pocketsphinx（只支持美式英语，来自系统软件包 libpocketsphinx3 和 pocketsphinx-en-us）。',
    defaultValue: 'auto',
    secret: false,
    applies: 'next-class',
    example: 'auto',
    ...choice([
      {
        value: 'auto',
        label: localized('自动（用已安装的最好的模型）', 'Automatic (best installed model)'),
      },
      { value: 'vosk', label: localized('Vosk', 'Vosk') },
      {
        value: 'pocketsphinx',
        label: localized('PocketSphinx（仅英语）', 'PocketSphinx (English only)'),
      },
      { value: 'sherpa', label: localized('sherpa-onnx', 'sherpa-onnx') },
    ]),
  }),
  setting({
    key: 'SHERPA_MODEL_PATH',
    field: 'sherpaModelPath',
    group: 'recognition',
    label: localized('sherpa-onnx 模型文件夹', 'sherpa-onnx model folder'),
    description:
      'Folder of a sherpa-onnx model for ASR_MODE=local: SenseVoice (model*.onnx and tokens.txt) or a streaming transducer (encoder*.onnx, decoder*.onnx, joiner*.onnx and tokens.txt). Empty: an installed one (`class-assistant-backend models pull sense-voice-small`).',
    descriptionZh:
      'ASR_MODE=local 使用的 sherpa-onnx 模型文件夹：SenseVoice（model*.onnx 和 tokens.txt）或流式 transducer 模型（encoder*.onnx、decoder*.onnx、joiner*.onnx 和 tokens.txt）。留空则使用已安装的模型（`class-assistant-backend models pull sense-voice-small`）。',
    defaultValue: '',
    secret: false,
    applies: 'next-class',
    example: '/home/me/models/sherpa-onnx-sense-voice-zh-en-ja-ko-yue-2024-07-17',
    ...text(1000),
  }),
  setting({
    key: 'SHERPA_PUNCTUATION_MODEL_PATH',
    field: 'sherpaPunctuationModelPath',
    group: 'recognition',
    label: localized('标点模型文件夹', 'Punctuation model folder'),
    description:
      'Folder (or .onnx file) of a sherpa-onnx CT-Transformer punctuation model: each definite line of a streaming sherpa-onnx model gets its punctuation (live partial text stays without). Empty: an installed one (`class-assistant-backend models pull punct-ct-transformer-zh-en`), else none. SenseVoice punctuates itself. A model that cannot be loaded is logged and the class runs without punctuation.',
    descriptionZh:
      'sherpa-onnx CT-Transformer 标点模型的文件夹（或 .onnx 文件）：流式 sherpa-onnx 模型确定下来的每一行都会加上标点（实时显示、还没确定的文字不加）。留空则使用已安装的模型（`class-assistant-backend models pull punct-ct-transformer-zh-en`），没有就不加。SenseVoice 自己会加标点。模型加载失败时会记入日志，课照常上，只是没有标点。',
    defaultValue: '',
    secret: false,
    applies: 'next-class',
    example: '/home/me/models/sherpa-onnx-punct-ct-transformer-zh-en-vocab272727-2024-04-12',
    ...text(1000),
  }),
  setting({
    key: 'LOCAL_ASR_THREADS',
    field: 'localAsrThreads',
    group: 'recognition',
    label: localized('识别可用 CPU 核数', 'Recognition CPU cores'),
    description: "CPU cores one class's offline recognition may use (sherpa-onnx engine), 1 to 16.",
    descriptionZh: '一节课的离线识别最多可用的 CPU 核数（sherpa-onnx 引擎），1 到 16。',
    defaultValue: '2',
    secret: false,
    applies: 'next-class',
    example: '2',
    ...wholeNumber(1, 16),
  }),
  setting({
    key: 'VOSK_MODEL_PATH',
    field: 'voskModelPath',
    group: 'recognition',
    label: localized('离线模型文件夹', 'Offline model folder'),
    description:
      'Folder of an unpacked Vosk model for ASR_MODE=local (https://alphacephei.com/vosk/models, e.g. vosk-model-small-cn-0.22 or vosk-model-small-en-us-0.15).',
    descriptionZh:
      'ASR_MODE=local 使用的已解压 Vosk 模型文件夹（https://alphacephei.com/vosk/models，例如 vosk-model-small-cn-0.22 或 vosk-model-small-en-us-0.15）。',
    defaultValue: '',
    secret: false,
    applies: 'next-class',
    example: '/home/me/models/vosk-model-small-cn-0.22',
    ...text(1000),
  }),
  setting({
    key: 'LOCAL_ASR_LANGUAGE',
    field: 'localAsrLanguage',
    group: 'recognition',
    label: localized('课堂语言', 'Class language'),
    description:
      'Language of the class for ASR_MODE=local: zh (Chinese) or en (English). With VOSK_MODEL_PATH empty, the local mode uses an installed model of this language (data/models, fetched in the class panel or with `class-assistant-backend models pull`).',
    descriptionZh:
      'ASR_MODE=local 的课堂语言：zh（中文）或 en（英语）。VOSK_MODEL_PATH 留空时，本机识别使用已安装的该语言模型（在 data/models 里，可在上课面板中下载，或用 `class-assistant-backend models pull` 下载）。',
    defaultValue: 'zh',
    secret: false,
    applies: 'next-class',
    example: 'zh',
    ...choice([
      { value: 'zh', label: localized('中文', 'Chinese') },
      { value: 'en', label: localized('英语', 'English') },
    ]),
  }),
  setting({
    key: 'MODELS_BASE_URL',
    field: 'modelsBaseUrl',
    group: 'recognition',
    label: localized('模型镜像地址', 'Model mirror address'),
    description:
      'Your own mirror of the model catalogue, tried first for every file before the official hosts: archives at <base>/<file> (as https://alphacephei.com/vosk/models), models of separate files at <base>/<folder>/<file>. Empty: the official hosts, Hugging Face, hf-mirror and ModelScope in turn. Every file is still checked against its pinned SHA-256.',
    descriptionZh:
      '你自己的模型目录镜像，下载每个文件时先试它，再试官方地址：压缩包放在 <base>/<file>（与 https://alphacephei.com/vosk/models 的布局相同），由多个文件组成的模型放在 <base>/<folder>/<file>。留空则依次使用官方地址、Hugging Face、hf-mirror 和 ModelScope。每个文件仍会按固定的 SHA-256 校验。',
    defaultValue: '',
    secret: false,
    applies: 'now',
    example: 'https://mirror.example.edu/vosk/models',
    ...url(['https:', 'http:'], { download: true }),
  }),
  setting({
    key: 'POCKETSPHINX_MODEL_PATH',
    field: 'pocketsphinxModelPath',
    group: 'recognition',
    label: localized('PocketSphinx 模型文件夹', 'PocketSphinx model folder'),
    description:
      'Folder of the PocketSphinx model for LOCAL_ASR_ENGINE=pocketsphinx, holding en-us/, en-us.lm.bin and cmudict-en-us.dict. Empty: /usr/share/pocketsphinx/model/en-us (Debian).',
    descriptionZh:
      'LOCAL_ASR_ENGINE=pocketsphinx 使用的 PocketSphinx 模型文件夹，里面应有 en-us/、en-us.lm.bin 和 cmudict-en-us.dict。留空则使用 /usr/share/pocketsphinx/model/en-us（Debian）。',
    defaultValue: '',
    secret: false,
    applies: 'next-class',
    example: '/usr/share/pocketsphinx/model/en-us',
    ...text(1000),
  }),
  setting({
    key: 'MOCK_SCRIPT',
    field: 'mockScript',
    group: 'mock',
    label: localized('演示讲稿', 'Demo script'),
    description:
      'Text file the mock mode reads, one spoken line per line (# comments). Empty: the bundled bilingual lecture.',
    descriptionZh:
      '演示模式读取的文本文件，每行是一句要“讲”的话（# 开头的是注释）。留空则使用自带的中英双语示例课。',
    defaultValue: '',
    secret: false,
    applies: 'next-class',
    example: '/home/me/lecture.txt',
    ...text(1000),
  }),
  setting({
    key: 'MOCK_INTERVAL_MS',
    field: 'mockIntervalMs',
    group: 'mock',
    label: localized('每行间隔（毫秒）', 'Line interval (ms)'),
    description: 'Milliseconds between two scripted lines of the mock mode.',
    descriptionZh: '演示模式里两行讲稿之间相隔的毫秒数。',
    defaultValue: '3000',
    secret: false,
    applies: 'next-class',
    example: '3000',
    ...wholeNumber(1, 600000),
  }),
  setting({
    key: 'MOCK_LOOP',
    field: 'mockLoop',
    group: 'mock',
    label: localized('循环播放', 'Loop'),
    description: 'Whether the mock script starts again after its last line.',
    descriptionZh: '演示讲稿放完最后一行后是否从头再来。',
    defaultValue: 'true',
    secret: false,
    applies: 'next-class',
    example: 'true',
    ...flag,
  }),
  setting({
    key: 'KEYWORD_HOMOPHONES',
    field: 'keywordHomophones',
    group: 'recognition',
    label: localized('同音字容错', 'Homophone tolerance'),
    description:
      'Homophone tolerance of keyword alerts: off, pinyin (张珊 matches 张三), fuzzy-pinyin (also zh/z, n/l, an/ang… confusions). Used from the next class or reload_keywords.',
    descriptionZh:
      '关键词提醒的同音字容错：off（关闭）、pinyin（拼音相同即可，张珊能匹配张三）、fuzzy-pinyin（还容许 zh/z、n/l、an/ang 等混淆）。从下一节课或 reload_keywords 之后生效。',
    defaultValue: 'pinyin',
    secret: false,
    applies: 'next-class',
    example: 'pinyin',
    ...choice([
      { value: 'off', label: localized('关闭', 'Off') },
      { value: 'pinyin', label: localized('拼音相同', 'Same pinyin') },
      { value: 'fuzzy-pinyin', label: localized('模糊拼音', 'Fuzzy pinyin') },
    ]),
  }),
  setting({
    key: 'STUDENT_NAME',
    field: 'studentName',
    group: 'recognition',
    label: localized('你的名字', 'Your name'),
    description:
      'Your name, as the teacher calls it (at most 40 characters). A line that says it, or a homophone of it (KEYWORD_HOMOPHONES), raises a roll-call alert meant for you (for_you: true). Empty: not set, and no alert is for you.',
    descriptionZh:
      '你的名字，按老师点名时的叫法（最多 40 个字符）。一句话里说到它或它的同音字（见 KEYWORD_HOMOPHONES）时，发出「叫到你了」的提醒（for_you: true）。留空：未设置，提醒都不算叫到你。',
    defaultValue: '',
    secret: false,
    applies: 'now',
    example: '王晓明',
    ...studentName,
  }),
  setting({
    key: 'STUDENT_NUMBER_DIGITS',
    field: 'studentNumberDigits',
    group: 'recognition',
    label: localized('学号尾号', 'Student number digits'),
    description: `The last digits of your student number, 1 to ${MAX_STUDENT_DIGITS} digits: a roll call of them (尾号是 7, 23号, 二十三号…) is an alert meant for you (for_you: true). Empty: not set.`,
    descriptionZh: `你学号的最后几位（1 到 ${MAX_STUDENT_DIGITS} 位数字）：老师按它点名时（尾号是 7、23号、二十三号……）发出「叫到你了」的提醒（for_you: true）。留空：未设置。`,
    defaultValue: '',
    secret: false,
    applies: 'now',
    example: '07',
    ...studentDigits,
  }),
  setting({
    key: 'CORS_ORIGINS',
    field: 'corsOrigins',
    group: 'server',
    label: localized('允许的网页来源', 'Allowed origins'),
    description:
      'Extra web origins allowed to call the API, comma-separated (the app itself and the original desktop client — tauri://localhost, http://tauri.localhost, http://localhost:1420, http://127.0.0.1:1420 — always are).',
    descriptionZh:
      '另外允许调用 API 的网页来源，用英文逗号分隔（应用本身和原版桌面客户端始终允许：tauri://localhost、http://tauri.localhost、http://localhost:1420、http://127.0.0.1:1420）。',
    defaultValue: '',
    secret: false,
    applies: 'now',
    example: 'http://localhost:5173',
    check: (value) => {
      for (const origin of splitList(value)) {
        const result = checkOrigin(origin);
        if (!result.ok) return result;
      }
      return ok;
    },
    parse: (value) => splitList(value).map((origin) => origin.replace(/\/$/, '')),
  }),
  setting({
    key: 'API_PORT',
    field: 'apiPort',
    group: 'server',
    label: localized('后端端口', 'Backend port'),
    description:
      'Port the backend listens on when it is started without --port (and without CLASS_ASSISTANT_PORT).',
    descriptionZh: '启动后端时没有给 --port（也没有设置 CLASS_ASSISTANT_PORT）时监听的端口。',
    defaultValue: '8765',
    secret: false,
    applies: 'restart',
    example: '8765',
    ...wholeNumber(1, 65535),
  }),
  setting({
    key: 'API_TOKEN',
    field: 'apiToken',
    group: 'server',
    label: localized('API 访问令牌', 'API token'),
    description:
      'Opt-in login for the API. Empty (the default): the API answers any program on this computer, as the original did. Set (16 to 512 letters, digits or - _ . ~ + / =): every route needs it, as `Authorization: Bearer <token>` or the cookie the app window gets when the launcher opens it with the token once in the address; /mcp and POST /api/shutdown keep their own tokens instead.',
    descriptionZh:
      '可选的 API 登录令牌。留空（默认）：本机上的任何程序都能调用 API，与原版相同。设置后（16 到 512 个字母、数字或 - _ . ~ + / = 字符）：每个接口都要带上它，可以用 `Authorization: Bearer <token>` 请求头，也可以用应用窗口得到的 cookie（启动器第一次打开窗口时会在地址里带上令牌）；/mcp 和 POST /api/shutdown 仍使用各自的令牌。',
    defaultValue: '',
    secret: true,
    applies: 'restart',
    example: 'a-long-random-string-of-your-own',
    check: (value) =>
      /^[A-Za-z0-9_.~+/=-]{16,512}$/.test(value)
        ? ok
        : refuse(
            '应为 16 到 512 个字母、数字或 - _ . ~ + / = 字符（不能有空格）',
            'must be 16 to 512 letters, digits or - _ . ~ + / = characters (no spaces)',
          ),
    parse: String,
  }),
  setting({
    key: 'UPLOAD_MAX_MB',
    field: 'uploadMaxBytes',
    group: 'server',
    label: localized('上传上限（MB）', 'Upload limit (MB)'),
    description: 'Largest accepted material upload in MiB.',
    descriptionZh: '上传课程资料的大小上限，单位 MiB。',
    defaultValue: '50',
    secret: false,
    applies: 'now',
    example: '50',
    ...wholeNumber(1, 500),
    parse: (value) => Number(value) * 1024 * 1024,
  }),
  setting({
    key: 'HISTORY_FOLD_ENTRIES',
    field: 'historyFoldEntries',
    group: 'server',
    label: localized('折叠历史的行数', 'Fold history after'),
    description:
      'Transcript entries that trigger folding older lines into the history summary (0 turns folding off).',
    descriptionZh: '转写达到多少条时，把较早的行折叠进历史摘要（0 表示不折叠）。',
    defaultValue: '50',
    secret: false,
    applies: 'next-class',
    example: '50',
    check: (value) => (value === '0' ? ok : wholeNumber(10, 10000).check(value)),
    parse: Number,
  }),
  setting({
    key: 'LOG_LEVEL',
    field: 'logLevel',
    group: 'server',
    label: localized('日志级别', 'Log level'),
    description:
      'Console and startup-log verbosity: fatal, error, warn, info, debug, trace, silent.',
    descriptionZh: '控制台和启动日志的详细程度：fatal、error、warn、info、debug、trace、silent。',
    defaultValue: 'info',
    secret: false,
    applies: 'restart',
    example: 'info',
    ...choice([
      { value: 'fatal', label: localized('致命', 'Fatal') },
      { value: 'error', label: localized('错误', 'Error') },
      { value: 'warn', label: localized('警告', 'Warning') },
      { value: 'info', label: localized('信息', 'Info') },
      { value: 'debug', label: localized('调试', 'Debug') },
      { value: 'trace', label: localized('跟踪', 'Trace') },
      { value: 'silent', label: localized('不输出', 'Silent') },
    ]),
  }),
] as const;

/** The settings the server runs with: file values over defaults, environment over both. */
export type ResolvedSettings = {
  -readonly [Definition in (typeof SETTING_DEFINITIONS)[number] as Definition['field']]: ReturnType<
    Definition['parse']
  >;
} & {
  /** Every main key's effective string value. */
  values: Readonly<Record<string, string>>;
};

const byName = new Map<string, SettingDefinition>(
  SETTING_DEFINITIONS.flatMap((definition: SettingDefinition) =>
    settingNames(definition).map((name) => [name, definition] as const),
  ),
);

/** The definition of a main key or of one of its aliases, or undefined for any other key. */
export function settingDefinition(key: string): SettingDefinition | undefined {
  return byName.get(key);
}

/** Every name a key may have in a file: the main key first, then its aliases. */
export function settingNames(definition: SettingDefinition): string[] {
  return [definition.key, ...(definition.aliases ?? [])];
}

/** Splits a comma-separated list, dropping blanks. */
function splitList(value: string): string[] {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}
