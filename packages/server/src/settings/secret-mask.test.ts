import { describe, expect, it } from 'vitest';
import { parseEnv, serializeEnv } from './env-file.ts';
import { maskDocument, maskSecret, unmaskDocument } from './secret-mask.ts';

describe('secret masking', () => {
  it('masks long secrets to their last four characters and short ones entirely', () => {
    expect(maskSecret('')).toBe('');
    expect(maskSecret('short')).toBe('••••••••');
    expect(maskSecret('sk-0123456789abcd')).toBe('••••••••abcd');
  });

  it('masks assignments and commented-out values of secret keys, and restores them', () => {
    const stored = parseEnv(
      'LLM_API_KEY=sk-0123456789abcd\n# LLM_API_KEY=sk-old-old-old-1111\nLLM_MODEL=deepseek-chat\n',
    );
    const masked = serializeEnv(maskDocument(stored));
    expect(masked).toBe(
      'LLM_API_KEY=••••••••abcd\n# LLM_API_KEY=••••••••1111\nLLM_MODEL=deepseek-chat\n',
    );
    expect(masked).not.toContain('sk-');
    // Posting the masked text back keeps both stored values; a typed value is taken as typed.
    expect(serializeEnv(unmaskDocument(parseEnv(masked), stored))).toBe(serializeEnv(stored));
    const edited = masked.replace('LLM_API_KEY=••••••••abcd', 'LLM_API_KEY=sk-new');
    expect(serializeEnv(unmaskDocument(parseEnv(edited), stored))).toContain(
      'LLM_API_KEY=sk-new\n',
    );
  });
});
