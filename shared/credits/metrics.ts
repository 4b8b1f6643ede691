import { Counter } from 'prom-client';
import { registry } from '../platform/metrics/registry';

const entries = new Counter({
  name: 'credit_ledger_entries_total',
  help: 'Ledger entries written, by type (hold = held, purchase = captured or spent, release = released, grant, expiration, revocation)',
  labelNames: ['type'] as const,
  registers: [registry],
});

const credits = new Counter({
  name: 'credit_ledger_credits_total',
  help: 'Credits moved by ledger entries written, by entry type',
  labelNames: ['type'] as const,
  registers: [registry],
});

/** One ledger entry this process wrote (never a replayed one). */
export function recordLedgerEntry(type: string, amountCredits: number): void {
  entries.inc({ type });
  credits.inc({ type }, Math.abs(amountCredits));
}
