import { type LookupAddress, promises as dns } from 'node:dns';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import tls from 'node:tls';
import ipaddr from 'ipaddr.js';
import { inClientSpan, tracingOn } from '../tracing/index';
import { judgeAddress } from './address-policy';

/**
 * The target may not be called: not a URL, not https, a non-public address, or no address. Final:
 * retrying cannot help. `message` is what the URL's owner may read (it lands in records they
 * see); `detail` is for the operator's log only: what the host resolved to is our resolver's
 * answer, and inside a private network it maps the network (which internal names exist, where).
 */
export class RefusedTarget extends Error {
  override name = 'RefusedTarget';
  constructor(
    message: string,
    readonly detail: string = message,
  ) {
    super(message);
  }
}

/** One refusal for every host that does not resolve to public addresses only: no resolver answer is told. */
export const NOT_PUBLIC = "the URL's host does not resolve to a public address";

/** The answer's body passed `maxResponseBytes`; the connection was closed there. */
export class ResponseTooLarge extends Error {
  override name = 'ResponseTooLarge';
}

/** No whole answer within `timeoutMs`; the connection was closed. */
export class TimedOut extends Error {
  override name = 'TimedOut';
}

/** Keep-alive connection pools for an operator's own targets (see `operatorTarget`). */
export interface TargetAgents {
  http: http.Agent;
  https: https.Agent;
}

export function keepAliveAgents(maxSockets = 256): TargetAgents {
  return {
    http: new http.Agent({ keepAlive: true, maxSockets }),
    https: new https.Agent({ keepAlive: true, maxSockets }),
  };
}

export interface OutboundRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  headers?: Record<string, string>;
  body?: string;
  /** The whole exchange, connect to last byte. */
  timeoutMs: number;
  /**
   * Read at most this much of the answer. 0: the status and headers are the answer; the connection
   * is closed there and the body never read.
   */
  maxResponseBytes?: number;
  allowLoopback?: boolean;
  /** Plain http, for loopback development endpoints only (with allowLoopback). */
  allowHttp?: boolean;
  /** Extra trusted CAs (tests' self-signed receivers). */
  ca?: string | Buffer;
  signal?: AbortSignal;
  /** Resolves a host name to all its addresses (tests inject one); default: the system resolver. */
  resolve?: (host: string) => Promise<LookupAddress[]>;
  /**
   * The target is the operator's own choice (a tool vendor's endpoint set with the admin CLI), not
   * a caller's: no address policy and plain http allowed, as configured; connections are kept
   * alive in these pools. Time, size and redirect bounds still hold.
   */
  operatorTarget?: TargetAgents;
}

export interface OutboundResponse {
  status: number;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

const defaultResolve = (host: string) => dns.lookup(host, { all: true, verbatim: true });

/**
 * The one way our workers call a URL someone else chose (callbacks, nodes): resolves the host
 * once, refuses unless every address is public unicast (address-policy.ts), then connects to the
 * address it checked (a lookup pinned on the request, so a second DNS answer cannot rebind it),
 * with SNI and certificate checks for the original host name. Redirects are not followed; the
 * answer is read up to `maxResponseBytes`; the whole exchange is bounded by `timeoutMs`.
 * Tool vendors go through it too, as `operatorTarget`s (their URLs are the operator's choice).
 */
export function safeRequest(url: string, o: OutboundRequest): Promise<OutboundResponse> {
  if (!tracingOn() || !URL.canParse(url)) return request(url, o);
  // The exchange is a span of the caller's trace, and the other side gets its traceparent.
  return inClientSpan(o.method, new URL(url), (traceHeaders) =>
    request(url, { ...o, headers: { ...o.headers, ...traceHeaders } }),
  );
}

async function request(url: string, o: OutboundRequest): Promise<OutboundResponse> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw new RefusedTarget('not a URL');
  }
  const plain = target.protocol === 'http:';
  if (o.operatorTarget) {
    if (!plain && target.protocol !== 'https:') throw new RefusedTarget('only http and https URLs are allowed');
    return exchange(target, o, { agent: plain ? o.operatorTarget.http : o.operatorTarget.https });
  }
  if (target.protocol !== 'https:' && !(plain && o.allowHttp && o.allowLoopback))
    throw new RefusedTarget('only https URLs are allowed');
  if (target.username || target.password) throw new RefusedTarget('credentials in the URL are not allowed');
  const host = target.hostname.replace(/^\[|\]$/g, '');
  const addresses = ipaddr.isValid(host)
    ? [{ address: host, family: host.includes(':') ? 6 : 4 }]
    : await (o.resolve ?? defaultResolve)(host).catch((err: Error) => {
        throw new RefusedTarget(NOT_PUBLIC, `cannot resolve ${host}: ${err.message}`);
      });
  if (addresses.length === 0) throw new RefusedTarget(NOT_PUBLIC, `${host} has no address`);
  const verdicts = addresses.map((a) => judgeAddress(a.address, { allowLoopback: o.allowLoopback }));
  const refused = verdicts.find((v) => !v.ok);
  if (refused && !refused.ok)
    throw new RefusedTarget(
      NOT_PUBLIC,
      ipaddr.isValid(host)
        ? refused.reason
        : `${host} resolves to ${addresses.map((a) => a.address).join(', ')}: ${refused.reason}`,
    );
  if (plain && !verdicts.every((v) => v.ok && ipaddr.parse(v.address).range() === 'loopback'))
    throw new RefusedTarget('plain http is allowed to loopback only');
  const pinned = verdicts[0] as { address: string; family: 4 | 6 };
  const lookup: LookupFunction = (_hostname, options, callback) => {
    if ((options as { all?: boolean }).all)
      (callback as (e: null, a: LookupAddress[]) => void)(null, [{ address: pinned.address, family: pinned.family }]);
    else callback(null, pinned.address, pinned.family);
  };
  return exchange(target, o, {
    lookup,
    servername: plain || ipaddr.isValid(host) ? undefined : host,
    ca: o.ca ? [...tls.rootCertificates, o.ca] : undefined,
    agent: false,
  });
}

/**
 * One request and its answer, bounded in time (connect to last byte) and size; never follows a
 * redirect. A request sent on a kept-alive connection the server closed meanwhile (it closes idle
 * connections after its own timeout, and the two closes can cross) fails with ECONNRESET before
 * any answer: it is sent once more on a fresh connection, within the same time bound. Only pooled
 * targets reuse connections: vendors, whose calls carry an idempotency key.
 */
async function exchange(
  target: URL,
  o: OutboundRequest,
  connect: Pick<https.RequestOptions, 'lookup' | 'servername' | 'ca' | 'agent'>,
): Promise<OutboundResponse> {
  const started = Date.now();
  try {
    return await exchangeOnce(target, o, connect);
  } catch (err) {
    if (!(err instanceof StaleConnection)) throw err;
    const left = o.timeoutMs - (Date.now() - started);
    if (left <= 0) throw new TimedOut(`no answer within ${o.timeoutMs} ms`);
    return exchangeOnce(target, { ...o, timeoutMs: left }, connect);
  }
}

/** A reused connection was closed under a request before any answer (see exchange). */
class StaleConnection extends Error {}

function exchangeOnce(
  target: URL,
  o: OutboundRequest,
  connect: Pick<https.RequestOptions, 'lookup' | 'servername' | 'ca' | 'agent'>,
): Promise<OutboundResponse> {
  const plain = target.protocol === 'http:';
  const limit = o.maxResponseBytes ?? 0;
  const headers: Record<string, string> = { 'user-agent': 'agent-commerce/1', ...o.headers };
  if (o.body !== undefined) headers['content-length'] = Buffer.byteLength(o.body).toString();

  return new Promise<OutboundResponse>((resolve, reject) => {
    // Runs until the exchange is over (the last byte read, or the connection closed at the head):
    // a server that sends its headers and then trickles its body must not hold the socket past it.
    const deadline = setTimeout(() => {
      const err = new TimedOut(`no answer within ${o.timeoutMs} ms`);
      fail(err);
      req.destroy(err);
    }, o.timeoutMs);
    const settle =
      <T>(fn: (v: T) => void) =>
      (v: T) => {
        clearTimeout(deadline);
        fn(v);
      };
    const ok = settle(resolve);
    const fail = settle(reject);
    let answered = false;
    const req = (plain ? http : https).request(
      {
        protocol: target.protocol,
        hostname: target.hostname.replace(/^\[|\]$/g, ''),
        port: target.port || (plain ? 80 : 443),
        path: `${target.pathname}${target.search}`,
        method: o.method,
        headers,
        signal: o.signal,
        ...connect,
      },
      (res) => {
        answered = true;
        res.on('error', fail);
        if (limit === 0) {
          // The status is the answer: settle on the head and close the connection there. Draining a
          // body nobody reads would let the server keep the socket (and the worker's slot) as long as
          // it keeps sending, past any deadline of ours.
          ok({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.alloc(0) });
          req.destroy();
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > limit) req.destroy(new ResponseTooLarge(`the answer is larger than ${limit} bytes`));
          else chunks.push(chunk);
        });
        res.on('end', () => ok({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      },
    );
    req.on('error', (err: NodeJS.ErrnoException) => {
      const stale = req.reusedSocket && !answered && (err.code === 'ECONNRESET' || err.code === 'EPIPE');
      fail(stale ? new StaleConnection(err.message) : err);
    });
    req.end(o.body);
  });
}

export function headerOf(v: string | string[] | undefined): string | null {
  return Array.isArray(v) ? (v[0] ?? null) : (v ?? null);
}
