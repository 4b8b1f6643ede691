import type { LedgerEntry, LedgerStore } from '../credits/index';
import type { PaymentListing, PaymentRepository, X402PaymentState } from '../payments/index';
import { errors } from '../platform/errors/index';
import type { ToolProduct, ToolRepository } from '../tools/index';
import type { OperatorSession } from './service';

/** An operator page holds at most this many rows. */
export const MAX_OPERATOR_PAGE = 100;

const badCursor = () => errors.badRequest('invalid_request', 'the cursor is not one this page gave');

/** The catalog's cursor: the last product's name and id, base64url of their JSON (a name may hold any character). */
function catalogCursor(p: ToolProduct): string {
  return Buffer.from(JSON.stringify([p.name, p.id])).toString('base64url');
}

function parseCatalogCursor(c: string): { name: string; id: string } {
  try {
    const v: unknown = JSON.parse(Buffer.from(c, 'base64url').toString('utf8'));
    if (Array.isArray(v) && v.length === 2 && typeof v[0] === 'string' && typeof v[1] === 'string')
      return { name: v[0], id: v[1] };
  } catch {
    // Not JSON: the same answer as any other cursor this page did not give.
  }
  throw badCursor();
}

/** A settlement's cursor: its creation time (ms, base36) and its id (payment ids hold no `.`). */
function paymentCursor(p: PaymentListing): string {
  return `${p.created_at.getTime().toString(36)}.${p._id}`;
}

function parsePaymentCursor(c: string): { created_at: Date; id: string } {
  const i = c.indexOf('.');
  const ms = parseInt(c.slice(0, i), 36);
  if (i < 1 || !Number.isFinite(ms) || i === c.length - 1) throw badCursor();
  return { created_at: new Date(ms), id: c.slice(i + 1) };
}

/**
 * The service operator's console pages: the whole catalog with its prices, the x402 payments
 * with their status and transaction, any account's ledger. Read-only, and only for an operator
 * session (`ConsoleService.operatorSession`): every method takes one, so no workspace session
 * reaches them. Each is one page of the owning capability's own keyset read, by indexed keys.
 */
export class OperatorConsole {
  constructor(
    private readonly ports: {
      tools: Pick<ToolRepository, 'catalogPage'>;
      payments: Pick<PaymentRepository, 'page'>;
      ledger: Pick<LedgerStore, 'entries' | 'balance'>;
    },
  ) {}

  async catalog(
    _s: OperatorSession,
    i: { cursor?: string; limit: number },
  ): Promise<{ products: ToolProduct[]; next: string | null }> {
    const page = await this.ports.tools.catalogPage({
      after: i.cursor ? parseCatalogCursor(i.cursor) : undefined,
      limit: i.limit,
    });
    const last = page.items[page.items.length - 1];
    return { products: page.items, next: page.more && last ? catalogCursor(last) : null };
  }

  async settlements(
    _s: OperatorSession,
    i: { status?: X402PaymentState; cursor?: string; limit: number },
  ): Promise<{ payments: PaymentListing[]; next: string | null }> {
    const page = await this.ports.payments.page({
      status: i.status,
      before: i.cursor ? parsePaymentCursor(i.cursor) : undefined,
      limit: i.limit,
    });
    const last = page.payments[page.payments.length - 1];
    return { payments: page.payments, next: page.more && last ? paymentCursor(last) : null };
  }

  /** An account's entries, newest first, and its balance now. Wallet addresses are kept lower-case in the ledger. */
  async ledger(
    _s: OperatorSession,
    i: { account: string; before?: number; limit: number },
    now = new Date(),
  ): Promise<{ account: string; balance: number; entries: LedgerEntry[]; next: number | null }> {
    const account = i.account.startsWith('0x') ? i.account.toLowerCase() : i.account;
    const [page, balance] = await Promise.all([
      this.ports.ledger.entries(account, { before: i.before, limit: i.limit }),
      this.ports.ledger.balance(account, now),
    ]);
    return { account, balance: balance.balance, ...page };
  }
}
