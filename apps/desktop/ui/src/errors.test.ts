import { describe, expect, it } from 'vitest';
import { ApiError } from './api.ts';
import { describeError } from './errors.ts';

describe('describeError', () => {
  it('sends a missing LLM key to the settings', () => {
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

  it('says plainly when the backend is gone, and passes unknown codes through', () => {
    expect(
      describeError(new ApiError('BACKEND_UNREACHABLE', 0, 'fetch failed'), 'zh').message,
    ).toBe('连不上后端，请稍后重试。');
    expect(describeError(new ApiError('SOMETHING_NEW', 500, 'a new failure'), 'zh')).toEqual({
      message: 'a new failure',
    });
  });
});
