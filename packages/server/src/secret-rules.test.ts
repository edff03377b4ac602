import { describe, expect, it } from 'vitest';
import {
  isSecretName,
  looksLikeSecretValue,
  maskSecretsInText,
  readPostedValue,
  shownValue,
} from './secret-rules.ts';

describe('secret names', () => {
  // Every name a user would expect hidden, including the ones four words (KEY, TOKEN, SECRET,
  // PASSWORD as substrings) left in clear.
  const SECRET = [
    'PWD',
    'DB_PWD',
    'MYSQL_PWD',
    'PASS',
    'pass_word',
    'AUTH',
    'AUTH_HEADER',
    'authorization',
    'BEARER',
    'HTTP_AUTH',
    'COOKIE',
    'SESSION_COOKIE',
    'PASSPHRASE',
    'PIN',
    'SIGNING_SALT',
    'ＡＰＩ_ＫＥＹ',
    'ｄｂ＿ｐａｓｓｗｏｒｄ',
    'OPENAI_API_KEY',
    'apiKey',
    'APIKey',
    'github-token',
    'Db.Password',
    'DBPASSWORD',
    'PROXY_PASSWD',
    'SENTRY_DSN',
    'SLACK_WEBHOOK_URL',
    'PRIVATE_KEY',
    'GOOGLE_CREDENTIALS',
    'JWT',
    'REQUEST_SIGNATURE',
    'client secret',
  ];
  // Ordinary settings: a secret word inside a longer word, or a name about a secret's size,
  // time, switch or kind.
  const CLEAR = [
    'PINYIN',
    'PINYIN_MODE',
    'PASSAGE',
    'KEYWORDS',
    'KEYWORDS_FILE',
    'KEYWORD_HOMOPHONES',
    'COMPASS',
    'SPINE',
    'MONKEY_NAME',
    'AUTHOR',
    'PASSENGERS',
    'SESSIONS_DIR',
    'ASR_MODE',
    'LLM_MODEL',
    'LLM_BASE_URL',
    'DATABASE_URL',
    'MAX_TOKENS',
    'SESSION_TIMEOUT',
    'PASSWORD_MIN_LENGTH',
    'AUTH_ENABLED',
    'AUTH_MODE',
    'NOTE',
    'HOTKEY',
  ];

  it.each(SECRET)('%s is secret', (name) => {
    expect(isSecretName(name)).toBe(true);
  });

  it.each(CLEAR)('%s is shown', (name) => {
    expect(isSecretName(name)).toBe(false);
  });
});

describe('secret values', () => {
  const SECRET = [
    'sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z',
    'sk-0123456789abcdefghij',
    'sk-ant-api03-AbCdEf0123456789xyz',
    'sk_live_51HqLyjWDarjtT1zdp7dc',
    'ghp_16C7e42F292c6912E7710c838347Ae178B4a',
    'gho_16C7e42F292c6912E7710c838347Ae178B4a',
    'ghs_16C7e42F292c6912E7710c838347Ae178B4a',
    'github_pat_11ABCDEFG0123456789_abcdefghijklmnop',
    'xoxb-1234567890-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx',
    'xoxp-1234567890-abcdef',
    'AKIAIOSFODNN7EXAMPLE',
    'AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW',
    'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
    'https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX',
    'https://discord.com/api/webhooks/123456789012345678/AbCdEfGhIjKlMnOpQrStUvWxYz',
    '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
    'Zm9vYmFyQmF6UXV4MTIzNDU2Nzg5MEFCQ0RFRkdISUo0NTY3',
    'my old key was sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z',
  ];
  const CLEAR = [
    'deepseek-chat',
    'gpt-4o-mini',
    'https://api.deepseek.com/v1',
    'wss://openspeech.bytedance.com',
    '/home/me/class-assistant/models/vosk-model-small-cn-0.22',
    'all-MiniLM-L6-v2-sentence-transformers-model',
    'volc.bigasr.sauc.duration',
    'http://localhost:5173,http://127.0.0.1:1420',
    'sk-learn-tutorial-notes-for-class',
    '16000',
    'true',
    'mock',
    '00000000000000000000000000000000',
    'abcdefabcdefabcdefabcdefabcdefabcdef',
  ];

  it.each(SECRET)('%s looks like a key', (value) => {
    expect(looksLikeSecretValue(value)).toBe(true);
    const shown = shownValue(value, false);
    expect(shown).toContain('••••••••');
    expect(shown.length).toBeLessThan(value.length);
  });

  it.each(CLEAR)('%s is shown', (value) => {
    expect(looksLikeSecretValue(value)).toBe(false);
    expect(shownValue(value, false)).toBe(value);
  });

  it('hides the password of any address and keeps the rest, so the user can tell which it is', () => {
    expect(shownValue('postgres://u:pw@h/db', false)).toBe('postgres://u:••••••••@h/db');
    expect(shownValue('http://proxy-user:p%40ss@proxy.local:3128', false)).toBe(
      'http://proxy-user:••••••••@proxy.local:3128',
    );
    expect(shownValue('redis://:s3cret@cache:6379/0', false)).toBe(
      'redis://:••••••••@cache:6379/0',
    );
    // A raw @ in the password: the password runs to the last @ of the address.
    expect(shownValue('mysql://root:a@b@db.local/app', false)).toBe(
      'mysql://root:••••••••@db.local/app',
    );
    expect(shownValue('https://user@example.test/x', false)).toBe('https://user@example.test/x');
    // A webhook keeps its host.
    expect(
      shownValue(
        'https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXwxyz',
        false,
      ),
    ).toBe('https://hooks.slack.com/services/••••••••wxyz');
    // A secret name masks the whole value.
    expect(shownValue('postgres://u:pw@h/db', true)).toBe('••••••••h/db');
  });

  it('masks addresses and keys inside free text, and nothing else', () => {
    expect(
      maskSecretsInText(
        'Cannot reach https://me:hunter2@asr.local/v1 with sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z (HTTP 401)',
      ),
    ).toBe('Cannot reach https://me:••••••••@asr.local/v1 with ••••••••Xy4z (HTTP 401)');
    const ordinary = 'class 20260101-090000 at /home/me/data, model vosk-model-small-cn-0.22';
    expect(maskSecretsInText(ordinary)).toBe(ordinary);
  });
});

describe('a posted value read against the stored one', () => {
  const KEY = 'sk-live-0123456789abcdef';

  it('keeps the stored key when the mask comes back, with spaces around it or NFKC-folded', () => {
    for (const posted of [
      '••••••••cdef',
      '••••••••cdef ',
      ' ••••••••cdef\t',
      '••••••••ｃｄｅｆ',
      '••••••••',
    ]) {
      expect(readPostedValue(posted, KEY, true), JSON.stringify(posted)).toEqual({ kind: 'kept' });
    }
    expect(readPostedValue('sk-new-key', KEY, true)).toEqual({ kind: 'typed' });
    expect(readPostedValue('••••••••abcd', KEY, true)).toEqual({ kind: 'unknown-mask' });
    expect(readPostedValue('••••••••cdef', '', true)).toEqual({ kind: 'unknown-mask' });
    // Bullets stored as text (not a mask) posted back as they are.
    expect(readPostedValue('•••• three points', '•••• three points', false)).toEqual({
      kind: 'kept',
    });
  });

  it('gives a masked address its stored password back for the same address only', () => {
    const stored = 'postgres://u:pw@db.local:5432/app';
    expect(readPostedValue('postgres://u:••••••••@db.local:5432/app ', stored, false)).toEqual({
      kind: 'kept',
    });
    expect(readPostedValue('postgres://u:••••••••@db.local:5432/other', stored, false)).toEqual({
      kind: 'restored',
      value: 'postgres://u:pw@db.local:5432/other',
    });
    expect(readPostedValue('postgres://u:••••••••@elsewhere.local/app', stored, false)).toEqual({
      kind: 'unknown-mask',
    });
    expect(readPostedValue('postgres://v:••••••••@db.local:5432/app', stored, false)).toEqual({
      kind: 'unknown-mask',
    });
  });
});
