import { english } from 'viem/accounts';

/** Fields whose whole value is a secret. */
export const SECRET_KEY =
  /(private_?key|privatekey|mnemonic|seed|secret|password|authorization|signature|token|x-payment|payment-signature)/i;

/**
 * Fields whose value is a public hash (transaction, block) or an id built from public values:
 * left readable, operators need them. Matched on the field name, so a key can never pass as one
 * by its value alone.
 */
export const PUBLIC_HASH_KEY =
  /^(tx_?hash|txhash|tx|transaction(_?hash)?|transactionhash|block_?hash|blockhash|hash|payment_id|workflow_id|run_id)$/i;

const WORDS = new Set(english);
const MIN_MNEMONIC_WORDS = 12;

/** 64 hex digits, with or without 0x, not part of a longer hex run: the shape of a private key (and of a tx hash). */
const HEX64 = /(?<![0-9a-fA-Fx])(0x)?[0-9a-fA-F]{64}(?![0-9a-fA-F])/g;
/** Text just before a 64-hex that says it is a hash: "tx 0x…", "txHash=0x…", "transaction: 0x…", "hash \"0x…". */
const HASH_LABEL = /(?:\btx|txn|transaction|hash)(?:[_ -]?(?:hash|id))?["'\s:=#(]{0,4}$/i;

/** Runs of 12 or more BIP-39 words separated only by whitespace (12/15/18/21/24 are mnemonics; longer runs hide one too). */
function redactMnemonics(text: string): string {
  const spans: Array<[number, number]> = [];
  let run: Array<[number, number]> = [];
  const close = () => {
    if (run.length >= MIN_MNEMONIC_WORDS) spans.push([run[0][0], run[run.length - 1][1]]);
    run = [];
  };
  for (const m of text.matchAll(/[A-Za-z]+/g)) {
    const start = m.index;
    const end = start + m[0].length;
    const joined = run.length > 0 && /^\s+$/.test(text.slice(run[run.length - 1][1], start));
    if (!WORDS.has(m[0].toLowerCase())) {
      close();
      continue;
    }
    if (!joined) close();
    run.push([start, end]);
  }
  close();
  let out = text;
  for (const [start, end] of spans.reverse()) out = `${out.slice(0, start)}[redacted mnemonic]${out.slice(end)}`;
  return out;
}

/** A URL in free text (RPC endpoints, vendor and callback URLs). */
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]{1,15}:\/\/[^\s"'<>`]+/gi;
/** A path segment shaped like an API key (Alchemy's /v2/<key>, Infura's /v3/<key>): long, with digits. */
const KEYISH_SEGMENT = /^(?=[^/]*\d)[A-Za-z0-9_-]{16,}$/;

/** Keeps a URL's scheme, host, port and plain path; its credentials, key-shaped segments and query values go. */
function redactUrl(url: string): string {
  const m = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)([^?#]*)(\?[^#]*)?(#.*)?$/i.exec(url);
  if (!m) return url;
  const [, scheme, authority, path, query = '', fragment = ''] = m;
  const host = authority.includes('@') ? `[redacted]@${authority.slice(authority.lastIndexOf('@') + 1)}` : authority;
  const safePath = path
    .split('/')
    .map((seg) => (KEYISH_SEGMENT.test(seg) ? '[redacted]' : seg))
    .join('/');
  const safeQuery = query.replace(/([?&][^=&]*)=[^&]*/g, '$1=[redacted]');
  return `${scheme}${host}${safePath}${safeQuery}${fragment ? '#[redacted]' : ''}`;
}

/**
 * Free text: URLs lose credentials, key-shaped path segments and query values; mnemonics go, and any 64-hex (0x or not) goes unless the words right before it
 * label it a hash ("tx", "txHash", "transaction", "hash"). A key in text is never labelled so.
 */
export function redactText(text: string): string {
  const masked = text
    .replace(URL_IN_TEXT, redactUrl)
    .replace(HEX64, (match, _prefix, offset: number) =>
      HASH_LABEL.test(text.slice(Math.max(0, offset - 24), offset))
        ? match
        : match.startsWith('0x')
          ? '0x[redacted]'
          : '[redacted]',
    );
  return redactMnemonics(masked);
}

/**
 * What one logged value may hold: text past MAX_LOG_TEXT is replaced by its length (a cut could
 * leave part of a key or a mnemonic unredacted at the edge), bytes by their count, and a walk
 * stops after MAX_LOG_ITEMS items in one object or array and MAX_LOG_NODES values in all. A log
 * line stays small whatever it is handed (a rendered template, a payload's bytes).
 */
export const MAX_LOG_TEXT = 8192;
export const MAX_LOG_ITEMS = 100;
export const MAX_LOG_NODES = 2000;

/** Masks values under secret-looking keys, keys and mnemonics in text; leaves public hashes readable. Bounded (MAX_LOG_*). */
export function redact(value: unknown, depth = 0, key?: string, budget = { nodes: MAX_LOG_NODES }): unknown {
  if (depth > 6) return '[depth]';
  if (--budget.nodes < 0) return '[more]';
  if (typeof value === 'string') {
    if (value.length > MAX_LOG_TEXT) return `[text of ${value.length} characters]`;
    return key && PUBLIC_HASH_KEY.test(key) && /^(0x)?[0-9a-fA-F:x]+$|^[\w:.-]+$/.test(value)
      ? value
      : redactText(value);
  }
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) return `[${value.byteLength} bytes]`;
  if (Array.isArray(value)) {
    const out = value.slice(0, MAX_LOG_ITEMS).map((v) => redact(v, depth + 1, key, budget));
    if (value.length > MAX_LOG_ITEMS) out.push(`[${value.length - MAX_LOG_ITEMS} more items]`);
    return out;
  }
  if (value instanceof Error) return redact(describeError(value), depth + 1, undefined, budget);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    let n = 0;
    for (const k in value) {
      if (!Object.hasOwn(value, k)) continue;
      if (n++ === MAX_LOG_ITEMS) {
        out['[more]'] = 'further fields left out';
        break;
      }
      out[k] = SECRET_KEY.test(k) ? '[redacted]' : redact((value as Record<string, unknown>)[k], depth + 1, k, budget);
    }
    return out;
  }
  return value;
}

/**
 * What a log line may say about an unexpected error: its name, its message (redacted by the
 * logger like any text) and its stack frames only. Never `err.stack` whole nor the error's own
 * fields: viem's RPC errors carry the RPC URL, request bodies and headers there.
 */
export function describeError(err: unknown): { error_name: string; error: string; frames?: string } {
  if (!(err instanceof Error)) return { error_name: typeof err, error: String(err) };
  const frames = (err.stack ?? '')
    .split('\n')
    .filter((line) => /^\s+at /.test(line))
    .slice(0, 12)
    .map((line) => line.trim())
    .join('\n');
  return { error_name: err.name, error: err.message, ...(frames ? { frames } : {}) };
}
