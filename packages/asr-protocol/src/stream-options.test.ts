import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { isAsrProtocolError } from './errors.ts';
import {
  type AsrStreamOptions,
  checkStreamOptions,
  DEFAULT_ASR_REQUEST,
  DEFAULT_STREAM_OPTIONS,
  withStreamDefaults,
} from './stream-options.ts';

const REQUIRED = { appKey: 'app', accessKey: 'secret', resourceId: 'volc.bigasr.sauc.duration' };

function issuesOf(options: AsrStreamOptions): string[] {
  try {
    checkStreamOptions(options);
  } catch (error) {
    if (isAsrProtocolError(error) && error.code === 'ASR_INVALID_OPTIONS') {
      return (error.issues ?? []).map((issue) => `${issue.path}: ${issue.message}`);
    }
    throw error;
  }
  return [];
}

describe('DEFAULT_STREAM_OPTIONS', () => {
  it('holds every constant default, and cannot be changed by accident', () => {
    expect(DEFAULT_STREAM_OPTIONS).toEqual({
      url: 'wss://openspeech.bytedance.com',
      endpoint: 'bigmodel_async',
      request: DEFAULT_ASR_REQUEST,
      vendorFields: {},
      compression: 'gzip',
      sequenceNumbers: false,
      handshakeTimeoutMs: 10_000,
      finishTimeoutMs: 15_000,
      maxPayloadBytes: 16 * 1024 * 1024,
      WebSocket,
    });
    expect(Object.isFrozen(DEFAULT_STREAM_OPTIONS)).toBe(true);
  });

  it('is what options left out or left undefined get; given options win', () => {
    const resolved = withStreamDefaults({
      ...REQUIRED,
      endpoint: 'bigmodel',
      finishTimeoutMs: undefined as unknown as number,
    });
    expect(resolved).toEqual({ ...DEFAULT_STREAM_OPTIONS, ...REQUIRED, endpoint: 'bigmodel' });
  });
});

describe('checkStreamOptions', () => {
  it('accepts the required options alone', () => {
    expect(issuesOf(REQUIRED)).toEqual([]);
  });

  it('lists every problem at once, naming each option', () => {
    expect(
      issuesOf({
        appKey: '',
        accessKey: 'ok',
        resourceId: 'r',
        compression: 'brotli' as never,
        finishTimeoutMs: 0,
        sequenceNumbers: 'yes' as never,
        signal: {} as AbortSignal,
      }),
    ).toEqual([
      'appKey: must be a non-empty string',
      'compression: must be gzip or none',
      'finishTimeoutMs: must be a positive number of ms, at most 2147483647',
      'sequenceNumbers: must be a boolean',
      'signal: must be an AbortSignal',
    ]);
  });

  it('checks vendor fields: objects of JSON values, no field the schema knows', () => {
    expect(
      issuesOf({
        ...REQUIRED,
        vendorFields: {
          app: { cluster: 'x', nested: { list: [1, Number.NaN] } },
          request: { enable_punc: false, workflow: 'audio_in' },
          audio: 'pcm' as never,
          user: { handler: (() => {}) as never },
        },
      }),
    ).toEqual([
      'vendorFields.app.nested.list[1]: must be a finite number (got NaN)',
      'vendorFields.request.enable_punc: the request schema knows request.enable_punc: set it in the request option, where it is checked',
      'vendorFields.audio: must be an object of fields',
      'vendorFields.user.handler: must be a JSON value (got function)',
    ]);
    expect(issuesOf({ ...REQUIRED, vendorFields: [] as never })).toEqual([
      'vendorFields: must be an object of groups, each an object',
    ]);
  });
});
