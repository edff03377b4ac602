import { describe, expect, it } from 'vitest';
import { apiTokenInSettings, authorization } from './api-token.ts';

describe('the API token in the settings file', () => {
  it('is read as the backend reads it: the last line, export, quotes and comments', () => {
    expect(apiTokenInSettings('ASR_MODE=mock\n')).toBe('');
    expect(apiTokenInSettings('API_TOKEN=\n')).toBe('');
    expect(apiTokenInSettings('API_TOKEN=abc-0123456789abcdef\n')).toBe('abc-0123456789abcdef');
    expect(apiTokenInSettings('export API_TOKEN = "q-0123456789abcdef" # mine\r\n')).toBe(
      'q-0123456789abcdef',
    );
    expect(apiTokenInSettings("API_TOKEN='s-0123456789abcdef'\n")).toBe('s-0123456789abcdef');
    expect(apiTokenInSettings('API_TOKEN=u-0123456789abcdef # note\n')).toBe('u-0123456789abcdef');
    expect(
      apiTokenInSettings('API_TOKEN=old-0123456789abcdef\nAPI_TOKEN=new-0123456789abcdef'),
    ).toBe('new-0123456789abcdef');
    expect(apiTokenInSettings('# API_TOKEN=commented-0123456789\nMY_API_TOKEN=other\n')).toBe('');
  });

  it('goes as a bearer header, and nothing without one', () => {
    expect(authorization('t')).toEqual({ authorization: 'Bearer t' });
    expect(authorization('')).toEqual({});
    expect(authorization(undefined)).toEqual({});
  });
});
