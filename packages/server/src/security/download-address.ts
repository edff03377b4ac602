/**
 * Where model downloads may connect. A model host (MODELS_BASE_URL, a `--url`) may be public, on
 * the private network or on this machine — a school's mirror is often one of the last two — but
 * never a link-local or cloud-metadata address, where clouds hand out the machine's credentials.
 * A redirect may not lead from a public host to a private, loopback or link-local one: a public
 * server must not be able to point the backend at the student's own network.
 *
 * Decided from the URL and the addresses its host resolves to, before anything is connected.
 */
import { BlockList, isIP } from 'node:net';
import { type Localized, localized } from '../language.ts';
import type { HttpHop } from '../network/http-fetch.ts';
import { isLinkLocalOrMetadataHost } from './provider-address.ts';

/** What kind of network an address is on. */
export type AddressKind = 'public' | 'private' | 'loopback' | 'link-local';

const RANGES: ReadonlyArray<[network: string, prefix: number, kind: AddressKind]> = [
  ['0.0.0.0', 8, 'loopback'],
  ['127.0.0.0', 8, 'loopback'],
  ['::', 128, 'loopback'],
  ['::1', 128, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['fe80::', 10, 'link-local'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'private'],
  ['172.16.0.0', 12, 'private'],
  ['192.168.0.0', 16, 'private'],
  ['fc00::', 7, 'private'],
  ['fec0::', 10, 'private'],
  // Multicast and reserved: no model host there either.
  ['224.0.0.0', 3, 'private'],
  ['ff00::', 8, 'private'],
];

const lists = (['loopback', 'link-local', 'private'] as const).map((kind) => {
  const list = new BlockList();
  for (const [network, prefix, of] of RANGES) {
    if (of === kind) list.addSubnet(network, prefix, isIP(network) === 6 ? 'ipv6' : 'ipv4');
  }
  return { kind, list };
});

/**
 * The kind of an IP address as a resolver answers it (IPv6 without brackets; IPv4-mapped IPv6
 * addresses count as their IPv4 address).
 *
 * @example
 * addressKind('127.0.0.1'); // 'loopback'
 */
export function addressKind(address: string): AddressKind {
  const bare = address.replace(/^\[|\]$/g, '').split('%')[0]!;
  const family = isIP(bare);
  if (family === 0) return 'private';
  if (family === 6 && isLinkLocalOrMetadataHost(`[${bare}]`)) return 'link-local';
  const type = family === 6 ? 'ipv6' : 'ipv4';
  for (const { kind, list } of lists) if (list.check(bare, type)) return kind;
  return 'public';
}

const noMetadata = (host: string) =>
  localized(
    `模型下载地址不能指向链路本地或云元数据地址（${host}；169.254.0.0/16、fe80::/10）。局域网或本机的镜像可以使用`,
    `a model download must not point at a link-local or cloud-metadata address (${host}; 169.254.0.0/16, fe80::/10). A mirror on the local network or this machine is fine`,
  );

/**
 * Why a model URL's host may not be downloaded from, judged from the URL alone (MODELS_BASE_URL,
 * a `--url`), or undefined.
 *
 * @example
 * forbiddenDownloadHost('169.254.169.254'); // { zh: '…', en: 'a model download must not …' }
 * forbiddenDownloadHost('192.168.1.20'); // undefined: a mirror on the school's network
 */
export function forbiddenDownloadHost(hostname: string): Localized | undefined {
  return isLinkLocalOrMetadataHost(hostname)
    ? noMetadata(hostname.toLowerCase().replace(/\.$/, ''))
    : undefined;
}

/**
 * Why one hop of a download may not be connected, or undefined: any link-local or metadata
 * address; and, for a redirect (`previous` given) from a host with only public addresses, any
 * address that is not public.
 *
 * @example
 * downloadHopRefusal({ url, addresses: ['192.168.1.20'] }, { url: first, addresses: ['203.0.113.7'] });
 * // { zh: '…', en: 'refused a redirect from …' }
 */
export function downloadHopRefusal(
  hop: HttpHop,
  previous: HttpHop | undefined,
): Localized | undefined {
  const forbidden = forbiddenDownloadHost(hop.url.hostname);
  if (forbidden) return forbidden;
  const kinds = hop.addresses.map((address) => ({ address, kind: addressKind(address) }));
  const linkLocal = kinds.find((entry) => entry.kind === 'link-local');
  if (linkLocal) return noMetadata(`${hop.url.hostname} → ${linkLocal.address}`);
  if (!previous || previous.addresses.length === 0) return undefined;
  const fromPublic = previous.addresses.every((address) => addressKind(address) === 'public');
  const inside = kinds.find((entry) => entry.kind !== 'public');
  if (fromPublic && inside) {
    const from = previous.url.host;
    const to = `${hop.url.host} → ${inside.address}`;
    return localized(
      `拒绝了从公网主机 ${from} 到${inside.kind === 'loopback' ? '本机' : '内网'}地址（${to}）的重定向`,
      `refused a redirect from the public host ${from} to a ${inside.kind} address (${to})`,
    );
  }
  return undefined;
}
