import { describe, expect, it } from 'vitest';
import { forbiddenProviderHost } from './provider-address.ts';

const host = (url: string) => new URL(url).hostname;

describe('forbiddenProviderHost', () => {
  it.each([
    'http://169.254.169.254/latest/meta-data',
    'http://169.254.0.1/',
    'http://2852039166/',
    'http://[fe80::1]/',
    'http://[FEBF:ffff::1]/',
    'http://[::ffff:169.254.169.254]/',
    'http://[fd00:ec2::254]/',
    'http://metadata.google.internal/',
    'http://metadata.google.internal./',
  ])('refuses %s', (url) => {
    expect(forbiddenProviderHost(host(url))?.en).toContain('link-local or cloud-metadata');
  });

  it.each([
    'https://api.deepseek.com/v1',
    'http://127.0.0.1:11434/v1',
    'http://[::1]:8000/v1',
    'http://169.253.1.1/',
    'http://[fec0::1]/',
    'http://192.168.1.10:8000/v1',
    'wss://dashscope.aliyuncs.com/api-ws/v1/inference',
  ])('allows %s', (url) => {
    expect(forbiddenProviderHost(host(url))).toBeUndefined();
  });
});
