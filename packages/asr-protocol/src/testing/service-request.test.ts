// How the test server reads requests from clients it did not write: no socket here.
import { describe, expect, it } from 'vitest';
import { buildHotwordsContext } from '../corpus-context.ts';
import type { AsrEndpoint } from '../endpoints.ts';
import type { JsonObject } from '../frame-codec.ts';
import { readServiceRequest } from './service-request.ts';

const read = (payload: object, endpoint: AsrEndpoint = 'bigmodel_async') =>
  readServiceRequest(payload as JsonObject, endpoint);

describe('accepted with warnings', () => {
  it('reads a clean request with no warnings', () => {
    expect(
      read({ audio: { format: 'pcm', rate: 16000 }, request: { model_name: 'bigmodel' } }),
    ).toEqual({
      ok: true,
      request: { audio: { format: 'pcm', rate: 16000 }, request: { model_name: 'bigmodel' } },
      warnings: [],
    });
  });

  it('drops unknown fields at every level, naming each', () => {
    const reading = read({
      app: { appid: '1', token: 't' },
      user: { uid: 'u', tenant: 'x' },
      audio: { format: 'pcm', bitrate: 256 },
      request: {
        model_name: 'bigmodel',
        reqid: 'r-1',
        workflow: 'audio_in,resample',
        sequence: 1,
        corpus: { boosting_table_name: '', extra_table: 'y' },
      },
    });
    expect(reading.ok && reading.request).toEqual({
      user: { uid: 'u' },
      audio: { format: 'pcm' },
      request: { model_name: 'bigmodel', corpus: { boosting_table_name: '' } },
    });
    expect(reading.warnings.map((warning) => [warning.path, warning.kind])).toEqual([
      ['user.tenant', 'unknown-field'],
      ['audio.bitrate', 'unknown-field'],
      ['request.corpus.extra_table', 'unknown-field'],
      ['request.reqid', 'unknown-field'],
      ['request.workflow', 'unknown-field'],
      ['request.sequence', 'unknown-field'],
      ['app', 'unknown-field'],
    ]);
  });

  it('reads legacy spellings and fills in the model name, saying so', () => {
    const reading = read({
      audio: { format: 'pcm', codec: 'pcm', sample_rate: 16000, bits: 16 },
      request: { show_utterances: true },
    });
    expect(reading).toEqual({
      ok: true,
      request: {
        audio: { format: 'pcm', codec: 'raw', rate: 16000, bits: 16 },
        request: { model_name: 'bigmodel', show_utterances: true },
      },
      warnings: [
        {
          path: 'audio.codec',
          kind: 'legacy-value',
          message: 'legacy value "pcm", read as "raw"',
        },
        {
          path: 'audio.sample_rate',
          kind: 'legacy-field',
          message: 'legacy field, read as audio.rate',
        },
        {
          path: 'request.model_name',
          kind: 'missing-field',
          message: 'missing; the service assumes bigmodel',
        },
      ],
    });
  });

  it('ignores options the endpoint does not support, and a language it does not list', () => {
    const bidirectional = read(
      {
        audio: { format: 'pcm' },
        request: { model_name: 'bigmodel', enable_nonstream: true, show_volume: true },
      },
      'bigmodel',
    );
    expect(bidirectional.ok && bidirectional.request.request).toEqual({ model_name: 'bigmodel' });
    expect(bidirectional.warnings.map((warning) => [warning.path, warning.kind])).toEqual([
      ['request.enable_nonstream', 'ignored-on-endpoint'],
      ['request.show_volume', 'ignored-on-endpoint'],
    ]);
    const nostream = read(
      { audio: { format: 'pcm', language: 'zh-CN' }, request: { model_name: 'bigmodel' } },
      'bigmodel_nostream',
    );
    expect(nostream.ok && nostream.request.audio).toEqual({ format: 'pcm' });
    expect(nostream.warnings).toEqual([
      {
        path: 'audio.language',
        kind: 'unknown-value',
        message: '"zh-CN" is not a listed language; recognised as if unset',
      },
    ]);
  });

  it('does not change the payload it was given', () => {
    const payload = { app: { appid: '1' }, audio: { format: 'pcm', codec: 'pcm' }, request: {} };
    read(payload);
    expect(payload).toEqual({
      app: { appid: '1' },
      audio: { format: 'pcm', codec: 'pcm' },
      request: {},
    });
  });
});

describe('refused with the service codes', () => {
  it.each<[string, object, number, RegExp]>([
    [
      'a sample rate of 8 kHz',
      { audio: { format: 'pcm', rate: 8000 } },
      45000151,
      /audio\.rate: must be 16000/,
    ],
    [
      'a legacy sample rate of 8 kHz',
      { audio: { format: 'pcm', sample_rate: 8000 } },
      45000151,
      /audio\.rate: must be 16000/,
    ],
    [
      'a legacy sample rate that disagrees with rate',
      { audio: { format: 'pcm', rate: 16000, sample_rate: 8000 } },
      45000151,
      /audio\.sample_rate: disagrees with audio\.rate/,
    ],
    [
      'an unknown format',
      { audio: { format: 'flac' } },
      45000151,
      /audio\.format: must be pcm, wav, ogg or mp3/,
    ],
    [
      'ogg without opus',
      { audio: { format: 'ogg', codec: 'pcm' } },
      45000151,
      /audio\.codec: must be opus/,
    ],
    ['8-bit samples', { audio: { format: 'pcm', bits: 8 } }, 45000151, /audio\.bits/],
    ['a missing audio group', { app: { appid: '1' } }, 45000001, /^audio: is required/],
  ])('%s', (_name, groups, code, message) => {
    const reading = read({ request: { model_name: 'bigmodel' }, ...groups });
    expect(reading.ok).toBe(false);
    expect(!reading.ok && reading.serviceCode).toBe(code);
    expect(!reading.ok && reading.message).toMatch(message);
  });

  it('refuses a missing request group, a wrong model and a bad option value with 45000001', () => {
    for (const request of [
      undefined,
      { model_name: 'x' },
      { model_name: 'bigmodel', end_window_size: 100 },
    ]) {
      const reading = read({ audio: { format: 'pcm' }, request });
      expect(!reading.ok && reading.serviceCode, JSON.stringify(request)).toBe(45000001);
    }
  });

  it("refuses hot words over the endpoint's limit, keeping the warnings found so far", () => {
    const words = Array.from({ length: 120 }, (_, index) => `术语${index}`);
    const reading = read({
      app: { appid: '1' },
      audio: { format: 'pcm' },
      request: { model_name: 'bigmodel', corpus: { context: buildHotwordsContext(words) } },
    });
    expect(reading.ok).toBe(false);
    expect(!reading.ok && reading.serviceCode).toBe(45000001);
    expect(!reading.ok && reading.message).toMatch(/^request\.corpus\.context: /);
    expect(reading.warnings.map((warning) => warning.path)).toEqual(['app']);
  });
});
