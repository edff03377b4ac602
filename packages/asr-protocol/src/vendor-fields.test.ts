import { describe, expect, it } from 'vitest';
import type { AsrRequest } from './request-schema.ts';
import { withVendorFields } from './vendor-fields.ts';

const REQUEST: AsrRequest = {
  audio: { format: 'pcm', rate: 16000 },
  request: { model_name: 'bigmodel', show_utterances: true },
};

describe('withVendorFields', () => {
  it('adds fields to their group and new groups beside them, changing neither argument', () => {
    const vendorFields = {
      app: { cluster: 'volcengine_streaming_common' },
      request: { enable_speaker_info: true },
      user: { tenant: 'class-7' },
    };
    expect(withVendorFields(REQUEST, vendorFields)).toEqual({
      audio: { format: 'pcm', rate: 16000 },
      request: { model_name: 'bigmodel', show_utterances: true, enable_speaker_info: true },
      app: { cluster: 'volcengine_streaming_common' },
      user: { tenant: 'class-7' },
    });
    expect(REQUEST.request).toEqual({ model_name: 'bigmodel', show_utterances: true });
    expect(vendorFields.request).toEqual({ enable_speaker_info: true });
  });

  it('sends a group named __proto__ as a field, not as a prototype', () => {
    const vendorFields = JSON.parse('{"__proto__":{"polluted":true}}');
    const payload = withVendorFields(REQUEST, vendorFields);
    expect(JSON.stringify(payload)).toContain('"__proto__":{"polluted":true}');
    expect((payload as { polluted?: unknown }).polluted).toBeUndefined();
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });
});
