import ipaddr from 'ipaddr.js';

/**
 * Which IP addresses a callback may reach: public unicast only. ipaddr.js names the special
 * ranges (loopback, private, linkLocal (incl. 169.254.169.254 metadata), carrierGradeNat,
 * multicast, unspecified, uniqueLocal (incl. fd00:ec2::254 metadata), reserved, …); IPv4-mapped
 * IPv6 (::ffff:a.b.c.d) is judged as the IPv4 address it carries.
 */
export type AddressVerdict = { ok: true; address: string; family: 4 | 6 } | { ok: false; reason: string };

export function judgeAddress(raw: string, opts: { allowLoopback?: boolean } = {}): AddressVerdict {
  if (!ipaddr.isValid(raw)) return { ok: false, reason: `not an IP address: ${raw}` };
  let addr = ipaddr.parse(raw);
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress())
    addr = (addr as ipaddr.IPv6).toIPv4Address();
  const range = addr.range();
  const family = addr.kind() === 'ipv4' ? 4 : 6;
  if (range === 'unicast') return { ok: true, address: addr.toString(), family };
  if (range === 'loopback' && opts.allowLoopback) return { ok: true, address: addr.toString(), family };
  return { ok: false, reason: `${raw} is a ${range} address` };
}
