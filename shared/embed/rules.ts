/**
 * Pure rules of the embeddable widget: the ids a page path may carry, the host origins an
 * operator may allow, the widget pages' Content-Security-Policy and HTML escaping.
 */

export const BUNDLE_ID = /^bnd_[A-Za-z0-9_-]{1,64}$/;
export const WORKFLOW_ID = /^wf_[A-Za-z0-9_-]{1,64}$/;
export const PRODUCT_ID = /^[0-9a-f]{24}$/;
export const EMBED_TOKEN = /^emb_[A-Za-z0-9_-]{43}$/;

/** A sign-in nonce lives this long; the widget token it buys, this long. */
export const NONCE_TTL_MS = 5 * 60_000;
export const TOKEN_TTL_MS = 30 * 60_000;

export type EmbedTarget =
  { kind: 'workflow'; ref: string } | { kind: 'product'; ref: string } | { kind: 'bundle'; ref: string };

/**
 * An origin as browsers send it (`scheme://host[:port]`, lower case, no path), or null. Only
 * http and https: a `null` or file origin can never be allowed.
 */
export function normalizeOrigin(input: string): string | null {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (url.username || url.password || (url.pathname !== '/' && url.pathname !== '') || url.search || url.hash)
    return null;
  return url.origin;
}

/**
 * The policy of every widget page: our own scripts, styles and fetches only, nothing inline,
 * and framed only by the bundle's allowed origins (none: by nobody).
 */
export function widgetCsp(allowedOrigins: readonly string[]): string {
  const ancestors = allowedOrigins.length ? allowedOrigins.join(' ') : "'none'";
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self'",
    "connect-src 'self'",
    "form-action 'none'",
    "base-uri 'none'",
    `frame-ancestors ${ancestors}`,
  ].join('; ');
}

/** The loader runs on the host page: it may be fetched from anywhere, but nothing else is allowed. */
export const LOADER_CSP = "default-src 'none'";

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text for an HTML text node or a quoted attribute. */
export function escapeHtml(text: unknown): string {
  return String(text ?? '').replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);
}

/** The items of a bundle the widget may use, by kind. */
export function exposes(
  items: ReadonlyArray<{ kind: string; ref: string }>,
  kind: 'workflow' | 'product',
  ref: string,
): boolean {
  return items.some((i) => i.kind === kind && i.ref === ref);
}
