import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { envKeys, getEnvValue, parseEnv, serializeEnv, setEnvValue } from './env-file.ts';

const SAMPLE = [
  '# Class Assistant settings',
  '',
  'ASR_MODE=local',
  'export LLM_BASE_URL = "https://api.deepseek.com/v1"   # the provider',
  "LLM_MODEL='deepseek-chat'",
  'MY_OWN_KEY=keep me # inline comment',
  'not a setting line',
  'MULTI="line one',
  'line two"',
  'ESCAPED="tab\\there \\"quoted\\""',
  'EMPTY=',
  'LAST=no newline at the end',
].join('\r\n');

describe('parseEnv / serializeEnv', () => {
  it('gives back the exact input: CRLF, comments, quotes, export, spacing, invalid lines', () => {
    expect(serializeEnv(parseEnv(SAMPLE))).toBe(SAMPLE);
  });

  it('decodes values the dotenv way', () => {
    const document = parseEnv(SAMPLE);
    expect(getEnvValue(document, 'ASR_MODE')).toBe('local');
    expect(getEnvValue(document, 'LLM_BASE_URL')).toBe('https://api.deepseek.com/v1');
    expect(getEnvValue(document, 'LLM_MODEL')).toBe('deepseek-chat');
    expect(getEnvValue(document, 'MY_OWN_KEY')).toBe('keep me');
    expect(getEnvValue(document, 'MULTI')).toBe('line one\r\nline two');
    expect(getEnvValue(document, 'ESCAPED')).toBe('tab\there "quoted"');
    expect(getEnvValue(document, 'EMPTY')).toBe('');
    expect(getEnvValue(document, 'MISSING')).toBeUndefined();
    expect(document.lines.find((line) => line.kind === 'invalid')?.raw).toBe('not a setting line');
  });

  it('lets the last assignment of a key win', () => {
    const document = parseEnv('A=1\nA=2\n');
    expect(getEnvValue(document, 'A')).toBe('2');
    expect(envKeys(document)).toEqual(['A']);
  });

  test.prop([fc.string({ unit: 'binary', maxLength: 300 })])('round-trips any text', (text) => {
    expect(serializeEnv(parseEnv(text))).toBe(text);
  });

  test.prop([
    fc.array(
      fc.oneof(
        fc.constantFrom('', '# comment', '  # indented', 'garbage line', 'export X=1'),
        fc
          .tuple(fc.constantFrom('A', 'B', 'C'), fc.string({ maxLength: 20 }))
          .map(([key, value]) => `${key}=${value}`),
      ),
      { maxLength: 12 },
    ),
    fc.constantFrom('\n', '\r\n', '\r'),
    fc.string({ unit: 'binary', maxLength: 40 }),
  ])('setting a value changes that value only and reads back', (lines, eol, value) => {
    const text = lines.join(eol);
    const document = setEnvValue(parseEnv(text), 'B', value);
    const reparsed = parseEnv(serializeEnv(document));
    expect(getEnvValue(reparsed, 'B')).toBe(value);
    for (const key of ['A', 'C'])
      expect(getEnvValue(reparsed, key)).toBe(getEnvValue(parseEnv(text), key));
  });
});

describe('setEnvValue', () => {
  it('rewrites only the value token, keeping quotes, spacing and the inline comment', () => {
    const document = setEnvValue(parseEnv(SAMPLE), 'LLM_BASE_URL', 'http://localhost:11434/v1');
    expect(serializeEnv(document)).toBe(
      SAMPLE.replace('"https://api.deepseek.com/v1"', '"http://localhost:11434/v1"'),
    );
  });

  it('quotes a value that needs it and keeps an unquoted style otherwise', () => {
    expect(serializeEnv(setEnvValue(parseEnv('K=a\n'), 'K', 'b c # d'))).toBe('K="b c # d"\n');
    expect(serializeEnv(setEnvValue(parseEnv('K=a # note\n'), 'K', 'plain'))).toBe(
      'K=plain # note\n',
    );
    expect(serializeEnv(setEnvValue(parseEnv("K='a'\n"), 'K', "it's"))).toBe('K="it\'s"\n');
  });

  it('appends a missing key with the file’s own newline style, after a last line without one', () => {
    expect(serializeEnv(setEnvValue(parseEnv('A=1\r\nB=2'), 'C', 'x'))).toBe(
      'A=1\r\nB=2\r\nC=x\r\n',
    );
    expect(serializeEnv(setEnvValue(parseEnv(''), 'C', 'x'))).toBe('C=x\n');
  });

  it('leaves the document untouched when the value is the same', () => {
    const document = parseEnv(SAMPLE);
    expect(serializeEnv(setEnvValue(document, 'LLM_MODEL', 'deepseek-chat'))).toBe(SAMPLE);
  });
});
