// Pure decisions from URLs and made-up resolver answers: nothing here is connected.
import { describe, expect, it } from 'vitest';
import { addressKind, downloadHopRefusal, forbiddenDownloadHost } from './download-address.ts';

const hop = (url: string, addresses: string[]) => ({ url: new URL(url), addresses });

describe('addressKind', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['::1', 'loopback'],
    ['0.0.0.0', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['169.254.169.254', 'link-local'],
    ['fe80::1', 'link-local'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['fd00:ec2::254', 'link-local'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.20', 'private'],
    ['100.64.0.1', 'private'],
    ['fd12:3456::1', 'private'],
    ['::ffff:192.168.1.20', 'private'],
    ['8.8.8.8', 'public'],
    ['2001:4860:4860::8888', 'public'],
  ])('%s is %s', (address, kind) => {
    expect(addressKind(address)).toBe(kind);
  });
});

describe('forbiddenDownloadHost (MODELS_BASE_URL, --url: the URL alone)', () => {
  it.each([
    'http://169.254.169.254/vosk',
    'http://[fe80::1]/vosk',
    'http://metadata.google.internal/vosk',
  ])('refuses %s', (url) => {
    expect(forbiddenDownloadHost(new URL(url).hostname)?.en).toContain(
      'link-local or cloud-metadata',
    );
  });

  it.each([
    'https://alphacephei.com/vosk/models',
    'http://192.168.1.20/vosk',
    'http://10.0.0.5:8080/models',
    'http://127.0.0.1:9000/models',
    'http://mirror.school.lan/models',
  ])('allows %s (a mirror the user chose)', (url) => {
    expect(forbiddenDownloadHost(new URL(url).hostname)).toBeUndefined();
  });
});

describe('downloadHopRefusal', () => {
  const publicHost = hop('https://cdn.example.org/m.zip', ['8.8.8.8']);

  it('allows a first hop on the private network or this machine', () => {
    expect(downloadHopRefusal(hop('http://mirror.lan/m.zip', ['192.168.1.20']), undefined)).toBe(
      undefined,
    );
    expect(downloadHopRefusal(hop('http://localhost:9000/m.zip', ['127.0.0.1']), undefined)).toBe(
      undefined,
    );
  });

  it('refuses a name that resolves to a link-local address, first hop or redirect', () => {
    const metadata = hop('http://models.school.test/m.zip', ['169.254.169.254']);
    expect(downloadHopRefusal(metadata, undefined)?.en).toContain(
      'models.school.test → 169.254.169.254',
    );
    expect(
      downloadHopRefusal(metadata, hop('http://127.0.0.1/m.zip', ['127.0.0.1']))?.en,
    ).toContain('link-local');
  });

  it('refuses a name answering with a public and a link-local address', () => {
    expect(
      downloadHopRefusal(hop('http://both.test/m.zip', ['8.8.8.8', 'fe80::1']), undefined),
    ).toBeDefined();
  });

  it.each([
    ['private', '192.168.1.20'],
    ['loopback', '127.0.0.1'],
    ['private', '10.0.0.1'],
    ['loopback', '::1'],
  ])('refuses a redirect from a public host to a %s address (%s)', (kind, address) => {
    const refusal = downloadHopRefusal(hop('http://inside.test/m.zip', [address]), publicHost);
    expect(refusal?.en).toBe(
      `refused a redirect from the public host cdn.example.org to a ${kind} address (inside.test → ${address})`,
    );
    expect(refusal?.zh).toContain('cdn.example.org');
  });

  it('allows redirects from public to public, and within a private mirror', () => {
    expect(
      downloadHopRefusal(hop('https://files.example.net/m.zip', ['1.1.1.1']), publicHost),
    ).toBeUndefined();
    expect(
      downloadHopRefusal(
        hop('http://files.lan/m.zip', ['192.168.1.21']),
        hop('http://mirror.lan/m.zip', ['192.168.1.20']),
      ),
    ).toBeUndefined();
  });
});
