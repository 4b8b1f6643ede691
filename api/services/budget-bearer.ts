import { errors } from '../../shared/errors';

/** What the schedule endpoints need from the accounts area (runs' WorkspaceRepository has it). */
export interface BudgetBearerResolver {
  resolveBudgetBearer(apiKey: string, budgetKey: string): Promise<{ workspace: { _id: string }; budget: { _id: string; workspace_id: string } } | null>;
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

/** The budget a schedule bearer speaks for, or a 401 (unknown, malformed, keys of two workspaces). */
export class BudgetBearerAuth {
  constructor(private readonly accounts: BudgetBearerResolver) {}

  async authenticate(header: string | undefined): Promise<{ budgetId: string; workspaceId: string }> {
    const keys = parseBudgetBearer(header);
    const invalid = () => errors.unauthorized('budget_bearer_invalid', 'Authorization: Bearer base64("<api_key>:<budget_key>") with valid keys is required');
    if (!keys) throw invalid();
    const found = await this.accounts.resolveBudgetBearer(keys.apiKey, keys.budgetKey);
    if (!found) throw invalid();
    return { budgetId: found.budget._id, workspaceId: found.workspace._id };
  }
}
