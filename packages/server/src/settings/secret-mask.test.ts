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

  it('masks every key whose name looks secret, in any spelling, separator and quoting', () => {
    const text = [
      'OPENAI_API_KEY=sk-openai-0123456789',
      'MY_LLM_API_KEY="sk-mine-0123456789"',
      'llm_api_key=sk-lower-0123456789',
      'export GITHUB_TOKEN=ghp_0123456789abcdef',
      'Db.Password = hunter2-hunter2',
      'apiKey=sk-camel-0123456789',
      'LLM_API_KEY: sk-colon-0123456789',
      "PROXY_SECRET 'sk-space-0123456789'",
      '# OPENAI_API_KEY: sk-commented-0123456789',
      'KEYWORD_HOMOPHONES=pinyin',
      '# One KEY=value per line: a comment, not a key',
      '# SEED_ASR_ACCESS_KEY and SEED_ASR_APP_KEY lines are read as aliases',
      '# LLM_API_KEY sk-commented-with-a-space-0123',
      '',
    ].join('\n');
    const masked = serializeEnv(maskDocument(parseEnv(text)));
    expect(masked).toBe(
      [
        'OPENAI_API_KEY=••••••••6789',
        'MY_LLM_API_KEY="••••••••6789"',
        'llm_api_key=••••••••6789',
        'export GITHUB_TOKEN=••••••••cdef',
        'Db.Password = ••••••••ter2',
        'apiKey=••••••••6789',
        'LLM_API_KEY: ••••••••6789',
        "PROXY_SECRET '••••••••6789'",
        '# OPENAI_API_KEY: ••••••••6789',
        'KEYWORD_HOMOPHONES=pinyin',
        '# One KEY=value per line: a comment, not a key',
        '# SEED_ASR_ACCESS_KEY and SEED_ASR_APP_KEY lines are read as aliases',
        '# LLM_API_KEY ••••••••0123',
        '',
      ].join('\n'),
    );
    expect(masked).not.toMatch(/sk-|ghp_|hunter2/);
    // What comes back masked is restored byte for byte.
    expect(serializeEnv(unmaskDocument(parseEnv(masked), parseEnv(text)))).toBe(text);
  });
});
