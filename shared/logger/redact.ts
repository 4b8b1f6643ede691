import { english } from 'viem/accounts';

/** Fields whose whole value is a secret. */
export const SECRET_KEY = /(private_?key|privatekey|mnemonic|seed|secret|password|authorization|signature|token|x-payment|payment-signature)/i;

/**
 * Fields whose value is a public hash (transaction, block) or an id built from public values:
 * left readable, operators need them. Matched on the field name, so a key can never pass as one
 * by its value alone.
 */
export const PUBLIC_HASH_KEY = /^(tx_?hash|txhash|tx|transaction(_?hash)?|transactionhash|block_?hash|blockhash|hash|payment_id|workflow_id|run_id)$/i;

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

/**
 * Free text: mnemonics go, and any 64-hex (0x or not) goes unless the words right before it
 * label it a hash ("tx", "txHash", "transaction", "hash"). A key in text is never labelled so.
 */
export function redactText(text: string): string {
  const masked = text.replace(HEX64, (match, _prefix, offset: number) =>
    HASH_LABEL.test(text.slice(Math.max(0, offset - 24), offset)) ? match : match.startsWith('0x') ? '0x[redacted]' : '[redacted]',
  );
  return redactMnemonics(masked);
}

/** Masks values under secret-looking keys, keys and mnemonics in text; leaves public hashes readable. */
export function redact(value: unknown, depth = 0, key?: string): unknown {
  if (depth > 6) return '[depth]';
  if (typeof value === 'string') return key && PUBLIC_HASH_KEY.test(key) && /^(0x)?[0-9a-fA-F:x]+$|^[\w:.-]+$/.test(value) ? value : redactText(value);
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1, key));
  if (value && typeof value === 'object' && !(value instanceof Error)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      out[k] = SECRET_KEY.test(k) ? '[redacted]' : redact(v, depth + 1, k);
    }
    return out;
  }
  return value;
}
