import { promises as dns, type LookupAddress } from 'node:dns';
import https from 'node:https';
import tls from 'node:tls';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { judgeAddress } from './address-policy';

export class RefusedTarget extends Error {
  override name = 'RefusedTarget';
}

export interface SafePostOptions {
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
  allowLoopback?: boolean;
  /** Extra trusted CAs (tests' self-signed receiver). */
  ca?: string | Buffer;
  signal?: AbortSignal;
  /** Resolves a host name to all its addresses (tests inject one); default: the system resolver. */
  resolve?: (host: string) => Promise<LookupAddress[]>;
}

export interface PostResult {
  status: number;
  retryAfter: string | null;
  location: string | null;
}

const defaultResolve = (host: string) => dns.lookup(host, { all: true, verbatim: true });

/**
 * POSTs to an HTTPS URL without being a proxy into our network: resolves the host once,
 * refuses unless every address is public unicast (address-policy.ts), then connects to the
 * address it checked (a lookup pinned on the request, so a second DNS answer cannot rebind it),
 * with SNI and certificate checks for the original host name. Redirects are not followed.
 */
export async function safePost(url: string, o: SafePostOptions): Promise<PostResult> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw new RefusedTarget('not a URL');
  }
  if (target.protocol !== 'https:') throw new RefusedTarget('only https URLs are allowed');
  if (target.username || target.password) throw new RefusedTarget('credentials in the URL are not allowed');
  const host = target.hostname.replace(/^\[|\]$/g, '');
  const addresses = ipaddr.isValid(host) ? [{ address: host, family: host.includes(':') ? 6 : 4 }] : await (o.resolve ?? defaultResolve)(host).catch((err: Error) => {
    throw new RefusedTarget(`cannot resolve ${host}: ${err.message}`);
  });
  if (addresses.length === 0) throw new RefusedTarget(`${host} has no address`);
  const verdicts = addresses.map((a) => judgeAddress(a.address, { allowLoopback: o.allowLoopback }));
  const refused = verdicts.find((v) => !v.ok);
  if (refused && !refused.ok) throw new RefusedTarget(`refused: ${refused.reason}`);
  const pinned = verdicts[0] as { address: string; family: 4 | 6 };
  const lookup: LookupFunction = (_hostname, options, callback) => {
    if ((options as { all?: boolean }).all) (callback as (e: null, a: LookupAddress[]) => void)(null, [{ address: pinned.address, family: pinned.family }]);
    else callback(null, pinned.address, pinned.family);
  };

  return new Promise<PostResult>((resolve, reject) => {
    const req = https.request(
      {
        protocol: 'https:',
        hostname: host,
        port: target.port || 443,
        path: `${target.pathname}${target.search}`,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(o.body).toString(), 'user-agent': 'agent-commerce-callbacks/1', ...o.headers },
        lookup,
        servername: ipaddr.isValid(host) ? undefined : host,
        ca: o.ca ? [...tls.rootCertificates, o.ca] : undefined,
        agent: false,
        signal: o.signal,
        timeout: o.timeoutMs,
      },
      (res) => {
        res.resume();
        res.on('error', () => undefined);
        resolve({ status: res.statusCode ?? 0, retryAfter: headerOf(res.headers['retry-after']), location: headerOf(res.headers.location) });
      },
    );
    const deadline = setTimeout(() => req.destroy(new Error(`no answer within ${o.timeoutMs} ms`)), o.timeoutMs);
    req.on('close', () => clearTimeout(deadline));
    req.on('timeout', () => req.destroy(new Error(`no answer within ${o.timeoutMs} ms`)));
    req.on('error', reject);
    req.end(o.body);
  });
}

function headerOf(v: string | string[] | undefined): string | null {
  return Array.isArray(v) ? (v[0] ?? null) : (v ?? null);
}
