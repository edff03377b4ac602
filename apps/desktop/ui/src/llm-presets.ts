// OpenAI-compatible chat services students use for the AI features (rescue, catch-up, notes): a
// preset fills LLM_BASE_URL and LLM_MODEL; the key comes from the provider's console. And where
// the online recognition services hand out their keys.

/** One chat provider. */
export interface LlmPreset {
  id: string;
  name: { zh: string; en: string };
  /** LLM_BASE_URL. */
  baseUrl: string;
  /** LLM_MODEL. */
  model: string;
  /** Where a student gets an API key. */
  keyUrl: string;
}

/**
 * The presets, as each provider documents its OpenAI-compatible API: DeepSeek
 * (https://api.deepseek.com/v1, deepseek-chat — the backend's default), Alibaba Cloud Model
 * Studio's compatible mode (https://dashscope.aliyuncs.com/compatible-mode/v1, qwen-plus),
 * SiliconFlow (https://api.siliconflow.cn/v1) and OpenAI (https://api.openai.com/v1).
 */
export const LLM_PRESETS: readonly LlmPreset[] = [
  {
    id: 'deepseek',
    name: { zh: 'DeepSeek', en: 'DeepSeek' },
    baseUrl: 'https://api.deepseek.com/v1',
    model: 'deepseek-chat',
    keyUrl: 'https://platform.deepseek.com/api_keys',
  },
  {
    id: 'qwen',
    name: { zh: '通义千问（阿里云百炼）', en: 'Qwen (Alibaba Cloud)' },
    baseUrl: 'https://dashscope.aliyuncs.com/compatible-mode/v1',
    model: 'qwen-plus',
    keyUrl: 'https://help.aliyun.com/zh/model-studio/get-api-key',
  },
  {
    id: 'siliconflow',
    name: { zh: 'SiliconFlow 硅基流动', en: 'SiliconFlow' },
    baseUrl: 'https://api.siliconflow.cn/v1',
    model: 'deepseek-ai/DeepSeek-V3',
    keyUrl: 'https://cloud.siliconflow.cn/account/ak',
  },
  {
    id: 'openai',
    name: { zh: 'OpenAI', en: 'OpenAI' },
    baseUrl: 'https://api.openai.com/v1',
    model: 'gpt-4o-mini',
    keyUrl: 'https://platform.openai.com/api-keys',
  },
];

/** Where the keys of the online recognition services are made, by the setting they go in. */
export const KEY_URLS: Readonly<Record<string, string>> = {
  /** Volcengine's speech console: the app's App ID and Access Token. */
  STREAM_ASR_APP_KEY: 'https://console.volcengine.com/speech/app',
  /** Alibaba Cloud Model Studio: an API key. */
  DASHSCOPE_API_KEY: 'https://help.aliyun.com/zh/model-studio/get-api-key',
};
