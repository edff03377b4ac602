import { afterEach, describe, expect, it } from 'vitest';
import { ApiError } from './api.ts';
import { backgroundErrorText, describeError } from './errors.ts';
import { setLang } from './i18n.ts';
import { keepSettingFacts } from './setting-facts.ts';

describe('describeError', () => {
  it('sends a missing LLM key to the settings, naming it as the backend does', () => {
    // The key's name as GET /api/settings/definitions sends it.
    keepSettingFacts({
      groups: [],
      asr_modes: [],
      definitions: [
        {
          key: 'LLM_API_KEY',
          aliases: [],
          group: 'llm',
          label: { zh: 'API 密钥', en: 'API key' },
          description: 'LLM API key.',
          descriptions: { zh: '大模型的 API 密钥。', en: 'LLM API key.' },
          default: '',
          secret: true,
          applies: 'now',
          example: 'sk-…',
        },
      ],
    });
    const error = new ApiError('LLM_NOT_CONFIGURED', 503, 'set LLM_API_KEY', {
      field: 'LLM_API_KEY',
    });
    expect(describeError(error, 'zh')).toEqual({
      message: 'AI 助手还没有设置好：请在“设置 → AI 助手”里填写 API 密钥（LLM_API_KEY）。',
      action: 'settings',
    });
  });

  it('offers the demo mode when recognition cannot run, with the backend’s reason', () => {
    const error = new ApiError(
      'RECOGNIZER_UNAVAILABLE',
      503,
      'ASR_MODE=local needs VOSK_MODEL_PATH',
    );
    expect(describeError(error, 'en')).toEqual({
      message: 'This recognition mode is not available.',
      detail: 'ASR_MODE=local needs VOSK_MODEL_PATH',
      action: 'demo',
    });
  });

  it('tells a recognizer that failed to start apart from one that stopped during the class', () => {
    const error = new ApiError('RECOGNIZER_FAILED', 500, 'the sherpa-onnx engine was killed');
    expect(describeError(error, 'zh')).toMatchObject({ message: '识别没能启动（麦克风？）。' });
    expect(describeError(error, 'zh', true)).toMatchObject({
      message: '识别中途停止了。已有的字幕都保留着。',
      detail: 'the sherpa-onnx engine was killed',
    });
    expect(describeError(error, 'en', true).message).toBe(
      'Recognition stopped during the class. The lines so far are kept.',
    );
  });

  it('says plainly when the backend is gone, and passes unknown codes through', () => {
    expect(
      describeError(new ApiError('BACKEND_UNREACHABLE', 0, 'fetch failed'), 'zh').message,
    ).toBe('连不上后端，请稍后重试。');
    expect(describeError(new ApiError('SOMETHING_NEW', 500, 'a new failure'), 'zh')).toEqual({
      message: 'a new failure',
    });
  });
});

describe('backgroundErrorText', () => {
  const crash = {
    source: 'recognizer' as const,
    code: 'RECOGNIZER_FAILED',
    message: 'The sherpa-onnx engine stopped: it was ended by SIGKILL.',
    messages: {
      zh: 'sherpa-onnx 引擎停止了：it was ended by SIGKILL。',
      en: 'The sherpa-onnx engine stopped: it was ended by SIGKILL.',
    },
    mode: 'local',
  };

  afterEach(() => setLang('zh'));

  it('tells a failure during the class in the language of the UI', () => {
    setLang('zh');
    expect(backgroundErrorText(crash, 'local')).toBe(
      '识别出错（local）：sherpa-onnx 引擎停止了：it was ended by SIGKILL。',
    );
    setLang('en');
    expect(backgroundErrorText(crash, 'local')).toBe(
      'Recognition failed (local): The sherpa-onnx engine stopped: it was ended by SIGKILL.',
    );
  });

  it('says whether the class still listens, naming the mode as the backend does', () => {
    keepSettingFacts({
      groups: [],
      definitions: [],
      asr_modes: [
        {
          mode: 'local',
          aliases: [],
          label: { zh: '离线识别', en: 'Offline recognition' },
          audio: ['microphone', 'app', 'file'],
          settings: [],
          model: true,
        },
      ],
    });
    setLang('zh');
    expect(backgroundErrorText({ ...crash, fatal: true }, 'local')).toBe(
      '识别中途停止了（离线识别）：sherpa-onnx 引擎停止了：it was ended by SIGKILL。 已有的字幕都保留着。',
    );
    expect(
      backgroundErrorText({ ...crash, fatal: false, messages: undefined, message: 'late' }, 'x'),
    ).toBe('识别出了点问题（离线识别），仍在继续：late');
    setLang('en');
    expect(backgroundErrorText({ ...crash, fatal: true }, 'local')).toBe(
      'Recognition stopped (Offline recognition): The sherpa-onnx engine stopped: it was ended by SIGKILL. The lines so far are kept.',
    );
    keepSettingFacts({ groups: [], definitions: [], asr_modes: [] });
  });

  it('shows a message the backend has in one language only as it is', () => {
    setLang('zh');
    const { messages: _, ...english } = crash;
    expect(backgroundErrorText({ ...english, mode: undefined }, 'cloud')).toBe(
      '识别出错（cloud）：The sherpa-onnx engine stopped: it was ended by SIGKILL.',
    );
    expect(backgroundErrorText({ source: 'notes', code: 'X', message: 'disk full' }, 'local')).toBe(
      '出错了：disk full',
    );
  });
});
