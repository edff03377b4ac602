import { BlockList, isIP, isIPv4, isIPv6 } from 'node:net';

/**
 * Special-purpose address ranges the http tools refuse unless the policy allows them: every range
 * that reaches the local machine, the local network, cloud metadata services (169.254.169.254) or
 * no real host at all. IPv6 forms that embed an IPv4 address (IPv4-mapped `::ffff:a.b.c.d`,
 * IPv4-compatible `::a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`) are judged by that address.
 */
const SPECIAL_RANGES: ReadonlyArray<[cidr: string, reason: string]> = [
  ['0.0.0.0/8', 'unspecified ("this network")'],
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'shared (carrier-grade NAT)'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local'],
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'IETF protocol assignments'],
  ['192.0.2.0/24', 'documentation'],
  ['192.168.0.0/16', 'private'],
  ['198.18.0.0/15', 'benchmarking'],
  ['198.51.100.0/24', 'documentation'],
  ['203.0.113.0/24', 'documentation'],
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved or broadcast'],
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['64:ff9b:1::/48', 'local-use NAT64'],
  ['100::/64', 'discard-only'],
  ['2001:db8::/32', 'documentation'],
  ['fc00::/7', 'unique local (private)'],
  ['fe80::/10', 'link-local'],
  ['fec0::/10', 'site-local'],
  ['ff00::/8', 'multicast'],
];

const specialLists = SPECIAL_RANGES.map(([cidr, reason]) => {
  const list = new BlockList();
  const [network, prefix] = cidr.split('/') as [string, string];
  list.addSubnet(network, Number(prefix), isIPv4(network) ? 'ipv4' : 'ipv6');
  return { list, reason, family: isIPv4(network) ? 'ipv4' : 'ipv6' };
});

/** Parses an IPv6 address into its eight 16-bit groups (the address must be valid). */
function ipv6Groups(address: string): number[] {
  let text = address.toLowerCase();
  const zone = text.indexOf('%');
  if (zone !== -1) text = text.slice(0, zone);
  const tail: number[] = [];
  const lastColon = text.lastIndexOf(':');
  const last = text.slice(lastColon + 1);
  if (last.includes('.')) {
    const [a, b, c, d] = last.split('.').map(Number) as [number, number, number, number];
    tail.push((a << 8) | b, (c << 8) | d);
    // Two placeholder groups stand for the dotted quad; they are replaced below.
    text = `${text.slice(0, lastColon + 1)}0:0`;
  }
  const [head, rest] = text.includes('::') ? (text.split('::') as [string, string]) : [text, null];
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((h) => parseInt(h, 16)));
  let groups: number[];
  if (rest === null) {
    groups = parse(head);
  } else {
    const left = parse(head);
    const right = parse(rest);
    groups = [...left, ...Array(8 - left.length - right.length).fill(0), ...right];
  }
  if (tail.length) groups.splice(6, 2, ...tail);
  return groups;
}

/** The IPv4 address an IPv6 address embeds (mapped, compatible, NAT64, 6to4), if any. */
export function embeddedIPv4(address: string): string | undefined {
  if (!isIPv6(address)) return undefined;
  const g = ipv6Groups(address);
  const quad = (high: number, low: number) =>
    `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
  const zeros = (from: number, to: number) => g.slice(from, to).every((group) => group === 0);
  if (zeros(0, 5) && g[5] === 0xffff) return quad(g[6] ?? 0, g[7] ?? 0); // ::ffff:a.b.c.d
  if (zeros(0, 6) && ((g[6] ?? 0) !== 0 || (g[7] ?? 0) > 1)) return quad(g[6] ?? 0, g[7] ?? 0); // ::a.b.c.d
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return quad(g[6] ?? 0, g[7] ?? 0); // NAT64
  if (g[0] === 0x2002) return quad(g[1] ?? 0, g[2] ?? 0); // 6to4
  return undefined;
}

/**
 * Why `address` is not a public unicast address (`'loopback'`, `'private'`, …), or `undefined`
 * when it is public.
 */
export function specialAddressReason(address: string): string | undefined {
  const family = isIP(address);
  if (family === 0) return 'not an IP address';
  const embedded = embeddedIPv4(address);
  if (embedded !== undefined) {
    const reason = specialAddressReason(embedded);
    return reason === undefined ? undefined : `${reason} (embedded in ${address})`;
  }
  const type = family === 4 ? 'ipv4' : 'ipv6';
  const bare = address.split('%')[0] as string;
  for (const special of specialLists) {
    if (special.family === type && special.list.check(bare, type)) return special.reason;
  }
  return undefined;
}

/** Parses `policy.http.allowPrivateNetwork` entries (addresses or CIDR ranges) into a list. */
export function buildAllowList(rules: readonly string[]): BlockList {
  const list = new BlockList();
  for (const rule of rules) {
    const [network, prefixText, extra] = rule.trim().split('/');
    const family = network ? isIP(network) : 0;
    const prefix = prefixText === undefined ? undefined : Number(prefixText);
    const maxPrefix = family === 4 ? 32 : 128;
    if (
      !network ||
      family === 0 ||
      extra !== undefined ||
      (prefix !== undefined && (!Number.isInteger(prefix) || prefix < 0 || prefix > maxPrefix))
    ) {
      throw new RangeError(`"${rule}" is not an IP address or CIDR range`);
    }
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (prefix === undefined) list.addAddress(network, type);
    else list.addSubnet(network, prefix, type);
  }
  return list;
}

/**
 * Decides whether the http tools may connect to `address` under `allowPrivateNetwork`; returns the
 * refusal reason or `undefined` when allowed.
 */
export function addressRefusal(
  address: string,
  allowPrivateNetwork: boolean | readonly string[],
  allowList: BlockList | undefined,
): string | undefined {
  const reason = specialAddressReason(address);
  if (reason === undefined || allowPrivateNetwork === true) return undefined;
  if (allowList) {
    const candidates = [address.split('%')[0] as string];
    const embedded = embeddedIPv4(address);
    if (embedded) candidates.push(embedded);
    for (const candidate of candidates) {
      if (allowList.check(candidate, isIPv4(candidate) ? 'ipv4' : 'ipv6')) return undefined;
    }
  }
  return reason;
}
