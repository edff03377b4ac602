/**
 * Addresses a provider URL (where the settings send API keys) may never point at: link-local
 * addresses (169.254.0.0/16, fe80::/10) — where clouds serve instance metadata and credentials —
 * and the well-known metadata names. A local program that could point the LLM or a recognizer
 * there would make the backend fetch the machine's cloud credentials for it.
 */
import { type Localized, localized } from '../language.ts';

/** Host names of cloud metadata services (they resolve to link-local addresses). */
const METADATA_NAMES = new Set([
  'metadata.google.internal',
  'metadata.goog',
  'instance-data',
  'instance-data.ec2.internal',
]);

/**
 * The 8 groups of an IPv6 address as `URL` writes it (bracketed hex, `::` compression; the URL
 * parser turns an embedded IPv4 tail into hex), or undefined when it is not one.
 */
function ipv6Groups(host: string): number[] | undefined {
  if (!host.startsWith('[') || !host.endsWith(']')) return undefined;
  const halves = host.slice(1, -1).split('::');
  if (halves.length > 2) return undefined;
  const parse = (part: string) =>
    part === '' ? [] : part.split(':').map((group) => Number.parseInt(group, 16));
  const head = parse(halves[0]!);
  const tail = halves.length === 2 ? parse(halves[1]!) : [];
  const missing = 8 - head.length - tail.length;
  if (missing < 0 || (halves.length === 1 && missing !== 0)) return undefined;
  const groups = [...head, ...new Array<number>(missing).fill(0), ...tail];
  return groups.every((group) => Number.isInteger(group) && group >= 0 && group <= 0xffff)
    ? groups
    : undefined;
}

/** True for 169.254.0.0/16 written as a dotted IPv4 address. */
function isLinkLocalIpv4(host: string): boolean {
  const match = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(host);
  return match !== null && match[1] === '169' && match[2] === '254';
}

/**
 * True when `hostname` (as `new URL(...).hostname` gives it: IPv6 in brackets) is a link-local
 * address (169.254.0.0/16, fe80::/10, also IPv4-mapped), the IPv6 address of the EC2 metadata
 * service, or a well-known cloud-metadata name.
 *
 * @example
 * isLinkLocalOrMetadataHost('metadata.google.internal'); // true
 */
export function isLinkLocalOrMetadataHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  let linkLocal = isLinkLocalIpv4(host);
  const groups = ipv6Groups(host);
  if (groups) {
    const mappedV4 = groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff;
    linkLocal =
      (groups[0]! & 0xffc0) === 0xfe80 ||
      (mappedV4 && groups[6]! >> 8 === 169 && (groups[6]! & 0xff) === 254) ||
      // The IPv6 address of the EC2 instance metadata service (fd00:ec2::254).
      groups.join(':') === [0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254].join(':');
  }
  return linkLocal || METADATA_NAMES.has(host);
}

/**
 * Why `hostname` (as `new URL(...).hostname` gives it) must not receive API keys, or undefined
 * when it may.
 *
 * @example
 * forbiddenProviderHost('169.254.169.254'); // { zh: '…', en: 'must not point at …' }
 * forbiddenProviderHost('api.deepseek.com'); // undefined
 */
export function forbiddenProviderHost(hostname: string): Localized | undefined {
  if (isLinkLocalOrMetadataHost(hostname)) {
    const host = hostname.toLowerCase().replace(/\.$/, '');
    return localized(
      `不能指向链路本地或云元数据地址（${host}；169.254.0.0/16、fe80::/10）：API 密钥会被发到那里`,
      `must not point at a link-local or cloud-metadata address (${host}; 169.254.0.0/16, fe80::/10): API keys are sent there`,
    );
  }
  return undefined;
}
