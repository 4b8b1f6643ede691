import { isIP } from 'node:net';

/** What Express's `trust proxy` setting takes: a boolean, a hop count, or addresses/subnets/preset names. */
export type TrustProxy = boolean | number | string[];

const PRESETS = new Set(['loopback', 'linklocal', 'uniquelocal']);

function isAddressOrSubnet(item: string): boolean {
  if (PRESETS.has(item)) return true;
  const [addr, bits, ...rest] = item.split('/');
  if (rest.length > 0) return false;
  const family = isIP(addr);
  if (!family) return false;
  if (bits === undefined) return true;
  if (!/^\d{1,3}$/.test(bits)) return false;
  return Number(bits) <= (family === 4 ? 32 : 128);
}

/** Parses TRUST_PROXY; throws with what it accepts when the value is none of it. */
export function parseTrustProxy(raw: string | undefined): TrustProxy {
  const value = (raw ?? '').trim();
  if (value === '' || value === 'false') return false;
  if (value === 'true') return true;
  if (/^\d+$/.test(value)) return Number(value);
  const items = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = items.filter((i) => !isAddressOrSubnet(i));
  if (bad.length > 0 || items.length === 0) {
    throw new Error(
      `not understood: ${bad.join(', ') || value}; use true, false, a hop count, or a comma list of addresses, CIDR subnets and loopback/linklocal/uniquelocal`,
    );
  }
  return items;
}
