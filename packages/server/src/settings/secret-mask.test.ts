import { describe, expect, it } from 'vitest';
import { parseEnv, serializeEnv } from './env-file.ts';
import { maskDocument, maskSecret, restoreDocument, unmaskDocument } from './secret-mask.ts';

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

  it('masks by meaning: secret words, key shapes, address passwords, in entries and comments alike', () => {
    const text = [
      'DB_PWD=db-pwd-1',
      'pass_word="two words"',
      'SESSION_COOKIE=sid-0123456789',
      'ＡＰＩ_ＫＥＹ=fullwidth-value-0001',
      '# ＡＰＩ_ＫＥＹ=old-fullwidth-0002',
      'NOTE=sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z',
      'ALERTS=https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXwxyz',
      'DATABASE_URL=postgres://app:db-pass@127.0.0.1:5432/class  # main database',
      '# DATABASE_URL=postgres://app:old-pass@127.0.0.1:5432/old',
      '# an old key sk-proj-Zz9qEf6hIj9kLm2nOp5qRs8tUv1wXy4z, and a token 3f9a1c0d7e5b2a4f6c8e0d1b3a5c7e9f',
      'KEYWORDS_FILE=keywords.txt',
      'PINYIN=true',
      '',
    ].join('\n');
    const masked = serializeEnv(maskDocument(parseEnv(text)));
    expect(masked).toBe(
      [
        'DB_PWD=••••••••',
        'pass_word="••••••••"',
        'SESSION_COOKIE=••••••••6789',
        'ＡＰＩ_ＫＥＹ=••••••••0001',
        '# ＡＰＩ_ＫＥＹ=••••••••0002',
        'NOTE=••••••••Xy4z',
        'ALERTS=https://hooks.slack.com/services/••••••••wxyz',
        'DATABASE_URL=postgres://app:••••••••@127.0.0.1:5432/class  # main database',
        '# DATABASE_URL=postgres://app:••••••••@127.0.0.1:5432/old',
        '# an old key ••••••••Xy4z, and a token ••••••••7e9f',
        'KEYWORDS_FILE=keywords.txt',
        'PINYIN=true',
        '',
      ].join('\n'),
    );
    // Posted back as shown, everything comes back byte for byte.
    expect(serializeEnv(unmaskDocument(parseEnv(masked), parseEnv(text)))).toBe(text);
    // A mask saved with a trailing space (quoted) is still the mask.
    const spaced = masked.replace('SESSION_COOKIE=••••••••6789', 'SESSION_COOKIE="••••••••6789 "');
    expect(serializeEnv(unmaskDocument(parseEnv(spaced), parseEnv(text)))).toContain(
      'SESSION_COOKIE="sid-0123456789"\n',
    );
  });

  it('keeps an address password when the path changes, and refuses a mask that stands for nothing', () => {
    const stored = parseEnv(
      'DATABASE_URL=postgres://app:db-pass@127.0.0.1:5432/class\nDB_PWD=x1\n',
    );
    const moved = restoreDocument(
      parseEnv('DATABASE_URL=postgres://app:••••••••@127.0.0.1:5432/archive\nDB_PWD=••••••••\n'),
      stored,
    );
    expect(moved.unknownMasks).toEqual([]);
    expect(serializeEnv(moved.document)).toBe(
      'DATABASE_URL=postgres://app:db-pass@127.0.0.1:5432/archive\nDB_PWD=x1\n',
    );
    const elsewhere = restoreDocument(
      parseEnv('DATABASE_URL=postgres://app:••••••••@localhost/class\nOTHER_PWD=••••••••\n'),
      stored,
    );
    expect(elsewhere.unknownMasks).toEqual(['DATABASE_URL', 'OTHER_PWD']);
    // Bullets written as text in the file are no mask: posted back unchanged, they are kept.
    const bullets = parseEnv('NOTE=•••• three points\nDB_PWD=••••••••\n');
    const same = restoreDocument(parseEnv(serializeEnv(maskDocument(bullets))), bullets);
    expect(same.unknownMasks).toEqual([]);
    expect(serializeEnv(same.document)).toBe(serializeEnv(bullets));
  });
});
