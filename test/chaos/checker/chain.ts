import { acknowledged } from '../history';
import type { CheckInput, Violation } from './snapshot';

/**
 * Every transfer a credit-purchase payer made to the merchant is credited exactly once (one
 * grant naming its transaction), and no purchased grant names a transaction that did not pay us.
 */
export function checkSettlements({ ops, snapshot }: CheckInput): Violation[] {
  const out: Violation[] = [];
  const payers = new Set(snapshot.creditPayers.map((p) => p.toLowerCase()));
  const grantsByTx = new Map<string, string[]>();
  for (const e of snapshot.ledger) {
    if (e.transaction_type !== 'grant' || !e.tx_hash) continue;
    const tx = e.tx_hash.toLowerCase();
    grantsByTx.set(tx, [...(grantsByTx.get(tx) ?? []), e._id]);
  }
  const paid = new Set(snapshot.transfers.map((t) => t.tx.toLowerCase()));
  const opsOfPayment = (tx: string) => {
    const payment = snapshot.payments.find((p) => p.tx_hash?.toLowerCase() === tx);
    return ops.filter((o) => o.kind === 'credit_purchase' && payment && o.ref === payment._id);
  };
  for (const t of snapshot.transfers) {
    if (!payers.has(t.from.toLowerCase())) continue;
    const tx = t.tx.toLowerCase();
    const grants = grantsByTx.get(tx) ?? [];
    if (grants.length !== 1) {
      out.push({
        invariant: 'transfer_credited_once',
        message: `transfer ${tx} from ${t.from} (${t.value}) credited ${grants.length} times${grants.length ? `: ${grants.join(', ')}` : ''}`,
        ops: opsOfPayment(tx),
      });
    }
  }
  for (const [tx, grants] of grantsByTx) {
    if (!paid.has(tx)) {
      out.push({
        invariant: 'no_credit_without_transfer',
        message: `grant ${grants.join(', ')} names ${tx}, which moved no token to the merchant`,
        ops: opsOfPayment(tx),
      });
    }
  }
  // An acknowledged completed purchase has its grant.
  for (const o of ops) {
    if (o.kind !== 'credit_purchase' || !acknowledged(o) || o.facts?.completed !== true) continue;
    const payment = snapshot.payments.find((p) => p._id === o.ref);
    const granted = payment?.tx_hash && grantsByTx.has(payment.tx_hash.toLowerCase());
    if (!granted) {
      out.push({
        invariant: 'acknowledged_write_present',
        message: `purchase ${o.ref} acknowledged completed; ${payment ? `payment ${payment.status}, no grant for its transfer` : 'no payment stored'}`,
        ops: [o],
      });
    }
  }
  return out;
}
