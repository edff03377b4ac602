// The settings' names in plain words, in the UI's language (the key itself is for the advanced
// view and for the settings file).
import { lang } from './i18n.ts';

const LABELS: Record<string, { zh: string; en: string }> = {
  ASR_MODE: { zh: '识别方式', en: 'Recognition mode' },
  LOCAL_ASR_LANGUAGE: { zh: '课堂语言', en: 'Class language' },
  VOSK_MODEL_PATH: { zh: '离线模型文件夹', en: 'Offline model folder' },
  LOCAL_ASR_ENGINE: { zh: '离线识别引擎', en: 'Offline engine' },
  SHERPA_MODEL_PATH: { zh: 'sherpa-onnx 模型文件夹', en: 'sherpa-onnx model folder' },
  SHERPA_PUNCTUATION_MODEL_PATH: { zh: '标点模型文件夹', en: 'Punctuation model folder' },
  LOCAL_ASR_THREADS: { zh: '识别可用 CPU 核数', en: 'Recognition CPU cores' },
  KEYWORD_HOMOPHONES: { zh: '同音字容错', en: 'Homophone tolerance' },
  LLM_BASE_URL: { zh: '服务地址', en: 'Service address' },
  LLM_API_KEY: { zh: 'API 密钥', en: 'API key' },
  LLM_MODEL: { zh: '模型', en: 'Model' },
  LLM_TIMEOUT: { zh: '超时（秒）', en: 'Timeout (s)' },
  STREAM_ASR_URL: { zh: '服务地址', en: 'Service address' },
  STREAM_ASR_ENDPOINT: { zh: '接口', en: 'Endpoint' },
  STREAM_ASR_APP_KEY: { zh: 'App ID', en: 'App ID' },
  STREAM_ASR_ACCESS_KEY: { zh: 'Access Token', en: 'Access token' },
  STREAM_ASR_RESOURCE_ID: { zh: '资源 ID', en: 'Resource id' },
  DASHSCOPE_API_KEY: { zh: 'API 密钥', en: 'API key' },
  DASHSCOPE_ASR_MODEL: { zh: '实时识别模型', en: 'Real-time model' },
  DASHSCOPE_WS_URL: { zh: '服务地址', en: 'Service address' },
  CLOUD_ASR_BASE_URL: { zh: '转写服务地址', en: 'Transcription address' },
  CLOUD_ASR_API_KEY: { zh: 'API 密钥', en: 'API key' },
  CLOUD_ASR_MODEL: { zh: '转写模型', en: 'Transcription model' },
  AUDIO_SAMPLE_RATE: { zh: '采样率', en: 'Sample rate' },
  AUDIO_CHANNELS: { zh: '声道数', en: 'Channels' },
  AUDIO_CHUNK_SIZE: { zh: '音频块字节数', en: 'Chunk bytes' },
  AUDIO_INPUT: { zh: '输入设备', en: 'Input device' },
  MOCK_SCRIPT: { zh: '演示讲稿', en: 'Demo script' },
  MOCK_INTERVAL_MS: { zh: '每行间隔（毫秒）', en: 'Line interval (ms)' },
  MOCK_LOOP: { zh: '循环播放', en: 'Loop' },
  API_PORT: { zh: '后端端口', en: 'Backend port' },
  CORS_ORIGINS: { zh: '允许的网页来源', en: 'Allowed origins' },
  API_TOKEN: { zh: 'API 访问令牌', en: 'API token' },
  UPLOAD_MAX_MB: { zh: '上传上限（MB）', en: 'Upload limit (MB)' },
  HISTORY_FOLD_ENTRIES: { zh: '折叠历史的行数', en: 'Fold history after' },
  LOG_LEVEL: { zh: '日志级别', en: 'Log level' },
};

/** The plain name of a setting in the UI's language, or the key when it has none. */
export function settingLabel(key: string): string {
  return LABELS[key]?.[lang()] ?? key;
}
