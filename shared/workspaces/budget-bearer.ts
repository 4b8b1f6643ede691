import { BoundedCache } from '../platform/cache/bounded-cache';
import { errors } from '../platform/errors/index';
import { sha256Hex } from '../platform/ids/index';

/** What the schedule endpoints need from the accounts area (runs' WorkspaceRepository has it). */
export interface BudgetBearerResolver {
  resolveBudgetBearer(
    apiKey: string,
    budgetKey: string,
  ): Promise<{ workspace: { _id: string }; budget: { _id: string; workspace_id: string } } | null>;
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const KEY = /^[\x21-\x39\x3b-\x7e]{1,200}$/; // printable ASCII without ':' or spaces

/**
 * Splits `Authorization: Bearer base64("<api_key>:<budget_key>")` into its two keys, or null when
 * the header is not of that form. Standard base64 (RFC 4648 §4, `+/`), padding optional.
 */
export function parseBudgetBearer(header: string | undefined): { apiKey: string; budgetKey: string } | null {
  const m = /^Bearer\s+(\S+)$/i.exec(header ?? '');
  if (!m || m[1].length > 600) return null;
  const b64 = m[1];
  if (!BASE64.test(b64) || b64.replace(/=+$/, '').length % 4 === 1) return null;
  const text = Buffer.from(b64, 'base64').toString('utf8');
  const i = text.indexOf(':');
  if (i < 0) return null;
  const apiKey = text.slice(0, i);
  const budgetKey = text.slice(i + 1);
  return KEY.test(apiKey) && KEY.test(budgetKey) ? { apiKey, budgetKey } : null;
}

type Resolved = { budgetId: string; workspaceId: string };

/** How long a resolved bearer is reused, and how many are kept (by sha256 of the header). */
export interface BearerCacheOptions {
  ttlMs: number;
  maxEntries: number;
}

/**
 * The budget a schedule bearer speaks for, or a 401 (unknown, malformed, keys of two workspaces).
 * A bearer that resolved is reused for `ttlMs` (three reads less per request, one of them a scan
 * on FerretDB), so revoking its API key takes effect within that time; refusals are never cached.
 */
export class BudgetBearerAuth {
  /** Resolved bearers by sha256 of the header; null when caching is off (no TTL or no entries). */
  private readonly cache: BoundedCache<Resolved> | null;

  constructor(
    private readonly accounts: BudgetBearerResolver,
    opts: BearerCacheOptions = { ttlMs: 0, maxEntries: 0 },
    now: () => number = Date.now,
  ) {
    this.cache =
      opts.ttlMs > 0 && opts.maxEntries > 0 ? new BoundedCache<Resolved>(opts.maxEntries, opts.ttlMs, now) : null;
  }

  async authenticate(header: string | undefined): Promise<Resolved> {
    const keys = parseBudgetBearer(header);
    const invalid = () =>
      errors.unauthorized(
        'budget_bearer_invalid',
        'Authorization: Bearer base64("<api_key>:<budget_key>") with valid keys is required',
      );
    if (!keys) throw invalid();
    const key = this.cache ? sha256Hex(header!) : '';
    const hit = this.cache?.get(key);
    if (hit) return hit;
    const found = await this.accounts.resolveBudgetBearer(keys.apiKey, keys.budgetKey);
    if (!found) {
      this.cache?.delete(key);
      throw invalid();
    }
    const value = { budgetId: found.budget._id, workspaceId: found.workspace._id };
    this.cache?.set(key, value);
    return value;
  }
}
