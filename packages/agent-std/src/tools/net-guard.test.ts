import { describe, expect, test } from 'vitest';
import { addressRefusal, buildAllowList, embeddedIPv4, specialAddressReason } from './net-guard.ts';

describe('special address classification', () => {
  test.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.20.30.40', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.0.1', 'private'],
    ['100.64.0.1', 'shared (carrier-grade NAT)'],
    ['169.254.169.254', 'link-local'],
    ['0.0.0.0', 'unspecified ("this network")'],
    ['224.0.0.251', 'multicast'],
    ['255.255.255.255', 'reserved or broadcast'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['fe80::1%eth0', 'link-local'],
    ['fd00::1', 'unique local (private)'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback (embedded in ::ffff:127.0.0.1)'],
    ['::ffff:a00:1', 'private (embedded in ::ffff:a00:1)'],
    ['0:0:0:0:0:ffff:192.168.1.1', 'private (embedded in 0:0:0:0:0:ffff:192.168.1.1)'],
    ['::127.0.0.1', 'loopback (embedded in ::127.0.0.1)'],
    ['64:ff9b::7f00:1', 'loopback (embedded in 64:ff9b::7f00:1)'],
    ['2002:a9fe:a9fe::1', 'link-local (embedded in 2002:a9fe:a9fe::1)'],
  ])('%s is %s', (address, reason) => {
    expect(specialAddressReason(address)).toBe(reason);
  });

  test.each(['8.8.8.8', '1.1.1.1', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])(
    '%s is public',
    (address) => {
      expect(specialAddressReason(address)).toBeUndefined();
    },
  );

  test('embedded IPv4 is found only in the embedding forms', () => {
    expect(embeddedIPv4('::ffff:1.2.3.4')).toBe('1.2.3.4');
    expect(embeddedIPv4('2001:db8::1')).toBeUndefined();
    expect(embeddedIPv4('1.2.3.4')).toBeUndefined();
  });
});

describe('allow lists', () => {
  test('addresses and CIDR ranges admit exactly what they name', () => {
    const list = buildAllowList(['127.0.0.1', '10.1.0.0/16', 'fd00::/8']);
    expect(addressRefusal('127.0.0.1', ['x'], list)).toBeUndefined();
    expect(addressRefusal('::ffff:127.0.0.1', ['x'], list)).toBeUndefined();
    expect(addressRefusal('127.0.0.2', ['x'], list)).toBe('loopback');
    expect(addressRefusal('10.1.200.3', ['x'], list)).toBeUndefined();
    expect(addressRefusal('10.2.0.1', ['x'], list)).toBe('private');
    expect(addressRefusal('fd12::1', ['x'], list)).toBeUndefined();
    expect(addressRefusal('8.8.8.8', false, undefined)).toBeUndefined();
    expect(addressRefusal('10.0.0.1', true, undefined)).toBeUndefined();
  });

  test('malformed rules are refused', () => {
    for (const rule of ['localhost', '10.0.0.0/33', '10.0.0.0/8/1', '::1/129', '']) {
      expect(() => buildAllowList([rule])).toThrow(RangeError);
    }
  });
});
