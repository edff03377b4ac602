// Turns a failed call into words for the student, and a way out where there is one: the settings
// for a missing LLM key, the demo mode when the recognizer or the microphone cannot run.
import { isApiError } from './api.ts';
import { lang, t } from './i18n.ts';
import { modeName, settingLabel } from './setting-facts.ts';
import type { BackgroundError } from './types.ts';

/** What to tell the student about an error. */
export interface ErrorDescription {
  message: string;
  /** The backend's own explanation, when it adds something. */
  detail?: string;
  /** The technical cause (a system's own words), shown only behind "details". */
  technical?: string;
  action?: 'settings' | 'demo';
}

/** Localised headlines for the backend's codes; the backend's message follows as detail. */
const HEADLINES: Record<string, { zh: string; en: string }> = {
  LLM_UNREACHABLE: { zh: '连不上 AI 服务（LLM_BASE_URL）。', en: 'Cannot reach the AI service.' },
  LLM_AUTH_FAILED: {
    zh: 'AI 服务拒绝了密钥（LLM_API_KEY）。',
    en: 'The AI service refused the key.',
  },
  LLM_TIMEOUT: { zh: 'AI 服务太久没有回答。', en: 'The AI service took too long.' },
  LLM_RATE_LIMITED: {
    zh: 'AI 服务请求太频繁，请稍后再试。',
    en: 'Too many requests; try again soon.',
  },
  LLM_ERROR: { zh: 'AI 服务出错了。', en: 'The AI service failed.' },
  LLM_CANCELLED: { zh: 'AI 请求已取消。', en: 'The AI request was cancelled.' },
  LLM_BAD_RESPONSE: { zh: 'AI 的回答无法使用。', en: 'The AI answer could not be used.' },
  TRANSCRIPT_EMPTY: { zh: '还没有课堂字幕。', en: 'There is no transcript yet.' },
  RECOGNIZER_UNAVAILABLE: {
    zh: '当前识别方式不可用。',
    en: 'This recognition mode is not available.',
  },
  RECOGNIZER_FAILED: {
    zh: '识别没能启动（麦克风？）。',
    en: 'Recognition could not start (microphone?).',
  },
  // RECOGNIZER_FAILED once a class is under way: the recognizer ran and then stopped.
  RECOGNIZER_STOPPED: {
    zh: '识别中途停止了。已有的字幕都保留着。',
    en: 'Recognition stopped during the class. The lines so far are kept.',
  },
  UPLOAD_LEGACY_FORMAT: {
    zh: '旧格式（.ppt/.doc）：请另存为 .pptx 或 .docx。',
    en: 'Old format: save it as .pptx or .docx.',
  },
  UPLOAD_UNSUPPORTED_TYPE: {
    zh: '只支持 .pptx、.pdf、.docx。',
    en: 'Only .pptx, .pdf and .docx are supported.',
  },
  UPLOAD_TOO_LARGE: {
    zh: '文件太大（UPLOAD_MAX_MB）。',
    en: 'The file is too large (UPLOAD_MAX_MB).',
  },
  UPLOAD_ENCRYPTED: { zh: '文件有密码保护，请先去掉密码。', en: 'The file is password-protected.' },
  UPLOAD_NO_TEXT: { zh: '文件里没有可读的文字（扫描件？）。', en: 'No readable text (a scan?).' },
  UPLOAD_CORRUPT: { zh: '文件已损坏，无法读取。', en: 'The file is damaged.' },
  UPLOAD_CONTENT_MISMATCH: {
    zh: '文件内容与扩展名不符。',
    en: 'The content does not match the extension.',
  },
  SETTINGS_INVALID: { zh: '设置不正确，没有保存。', en: 'A setting is wrong; nothing was saved.' },
};

const DEMO_CODES = new Set([
  'RECOGNIZER_UNAVAILABLE',
  'AUDIO_DEVICE_UNAVAILABLE',
  'NATIVE_MODULE_MISSING',
  'RECOGNIZER_FAILED',
  'MIC_CAPTURE_UNAVAILABLE',
]);

/**
 * Describes any error thrown by the API helpers. `classStarted`: a class is under way (running or
 * paused), so a recognizer failure means recognition stopped, not that it could not start.
 */
export function describeError(
  error: unknown,
  language: 'zh' | 'en',
  classStarted = false,
): ErrorDescription {
  if (!isApiError(error)) {
    return { message: t('errorGeneric', { message: (error as Error)?.message ?? String(error) }) };
  }
  if (error.code === 'LLM_NOT_CONFIGURED') {
    const field = error.field ?? 'LLM_API_KEY';
    return {
      message: t('errorLlmNotConfigured', { label: settingLabel(field), key: field }),
      action: 'settings',
    };
  }
  if (error.code === 'BACKEND_UNREACHABLE') return { message: t('errorBackendUnreachable') };
  if (error.code === 'STREAM_INTERRUPTED') return { message: t('errorInterrupted') };
  const headlineCode =
    classStarted && error.code === 'RECOGNIZER_FAILED' ? 'RECOGNIZER_STOPPED' : error.code;
  const headline = HEADLINES[headlineCode]?.[language];
  const description: ErrorDescription = headline
    ? { message: headline, detail: error.message }
    : { message: error.message };
  if (error.technical) description.technical = error.technical;
  if (DEMO_CODES.has(error.code)) description.action = 'demo';
  else if (error.code.startsWith('LLM_AUTH') || error.code === 'LLM_UNREACHABLE')
    description.action = 'settings';
  return description;
}

/**
 * The toast of a failure during a class (`error.raised`), in the UI's language when the backend
 * sent the message in both; `mode` is the class's ASR_MODE when the event names none. A
 * recognizer failure says whether the class still listens (`fatal`), the mode by its name.
 */
export function backgroundErrorText(error: BackgroundError, mode: string): string {
  const message = error.messages?.[lang()] ?? error.message;
  if (error.source !== 'recognizer') return t('errorGeneric', { message });
  const name = modeName(error.mode ?? mode);
  if (error.fatal === true) return t('recognizerStoppedToast', { mode: name, message });
  if (error.fatal === false) return t('recognizerHiccup', { mode: name, message });
  return t('recognizerFailed', { mode: name, message });
}
