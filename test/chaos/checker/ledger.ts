import { acknowledged } from '../history';
import type { CheckInput, LedgerRow, Violation } from './snapshot';

/**
 * Per account: positions 1..n without a gap, each `balance_after` the previous one moved by the
 * entry (a hold takes its credits, a release gives them back, the capture of a hold moves nothing
 * more than what the hold took and the capture left), never negative; and the last balance equals
 * grants minus spends, expirations, revocations and what open holds still reserve.
 */
export function checkBalances({ ops, snapshot }: CheckInput): Violation[] {
  const out: Violation[] = [];
  for (const [account, entries] of byAccount(snapshot.ledger)) {
    const involved = ops.filter((o) => o.account === account);
    const open = new Map<string, number>();
    let balance = 0;
    let granted = 0;
    let spent = 0;
    let expired = 0;
    let revoked = 0;
    for (let i = 0; i < entries.length; i++) {
      const e = entries[i]!;
      if (e.seq !== i + 1) {
        out.push({
          invariant: 'balance_chain',
          message: `${account}: ledger position ${i + 1} missing (next entry is seq ${e.seq})`,
          ops: involved,
        });
        break;
      }
      switch (e.transaction_type) {
        case 'grant':
          balance += e.amount_credits;
          granted += e.amount_credits;
          break;
        case 'hold':
          balance += e.amount_credits;
          open.set(e.request_id ?? '', -e.amount_credits);
          break;
        case 'release':
          balance += e.amount_credits;
          open.delete(e.request_id ?? '');
          break;
        case 'purchase': {
          const held = open.get(e.request_id ?? '');
          if (held !== undefined) {
            balance += held + e.amount_credits;
            open.delete(e.request_id ?? '');
          } else balance += e.amount_credits;
          spent -= e.amount_credits;
          break;
        }
        case 'expiration':
          balance += e.amount_credits;
          expired -= e.amount_credits;
          break;
        case 'revocation':
          balance += e.amount_credits;
          revoked -= e.amount_credits;
          break;
        case 'takeover':
          break;
        default:
          out.push({ invariant: 'balance_chain', message: `${e._id}: unknown entry ${e.transaction_type}`, ops: [] });
      }
      if (e.balance_after_credits !== balance) {
        out.push({
          invariant: 'balance_chain',
          message: `${e._id} (${e.transaction_type} ${e.amount_credits}): balance_after ${e.balance_after_credits}, the chain says ${balance}`,
          ops: involved.filter((o) => o.requestId !== undefined && o.requestId === e.request_id),
        });
        balance = e.balance_after_credits;
      }
      if (e.balance_after_credits < 0) {
        out.push({
          invariant: 'balance_non_negative',
          message: `${e._id}: balance ${e.balance_after_credits} after ${e.transaction_type}`,
          ops: involved,
        });
      }
    }
    const reserved = [...open.values()].reduce((a, b) => a + b, 0);
    const last = entries.at(-1);
    if (last && last.balance_after_credits !== granted - spent - expired - revoked - reserved) {
      out.push({
        invariant: 'balance_identity',
        message: `${account}: balance ${last.balance_after_credits} != grants ${granted} - spends ${spent} - expirations ${expired} - revocations ${revoked} - held ${reserved}`,
        ops: involved,
      });
    }
  }
  return out;
}

/**
 * A paid call is charged at most once per request id, and only when the vendor's answer reached
 * us (the caller could have had the result); a call whose caller was told it failed is not charged.
 */
export function checkCharges({ ops, snapshot, callKey }: CheckInput): Violation[] {
  const out: Violation[] = [];
  const delivered = new Set(snapshot.vendorDelivered);
  const holds = new Set(
    snapshot.ledger.filter((e) => e.transaction_type === 'hold').map((e) => `${e.user_id}\n${e.request_id}`),
  );
  const charges = new Map<string, LedgerRow[]>();
  for (const e of snapshot.ledger) {
    if (e.transaction_type !== 'purchase' || !e.request_id) continue;
    const key = `${e.user_id}\n${e.request_id}`;
    const list = charges.get(key);
    if (list) list.push(e);
    else charges.set(key, [e]);
  }
  for (const [key, entries] of charges) {
    const [account, requestId] = key.split('\n') as [string, string];
    const shown = ops.filter((o) => o.account === account && o.requestId === requestId);
    if (entries.length > 1) {
      out.push({
        invariant: 'charged_at_most_once',
        message: `${account} request ${requestId} charged ${entries.length} times (${entries.map((e) => e._id).join(', ')})`,
        ops: shown,
      });
    }
    if (holds.has(key) && !delivered.has(callKey(account, requestId))) {
      out.push({
        invariant: 'charged_only_with_result',
        message: `${account} request ${requestId} charged (${entries[0]!._id}) but the vendor never delivered an answer for it`,
        ops: shown,
      });
    }
    const toldFailed = shown.filter((o) => o.status >= 400 && o.status !== 409 && o.status !== 401);
    if (toldFailed.length > 0 && !shown.some(acknowledged)) {
      out.push({
        invariant: 'charged_only_with_result',
        message: `${account} request ${requestId} charged (${entries[0]!._id}) though its caller was told ${toldFailed.map((o) => `${o.status} ${o.error ?? ''}`).join(', ')}`,
        ops: shown,
      });
    }
  }
  // A receipt names the charge it was issued for.
  for (const o of ops) {
    const r = o.facts?.receipt_transaction;
    if (!acknowledged(o) || r === undefined || r === null) continue;
    if (r !== `credits:${String(o.facts?.transaction_id)}`) {
      out.push({
        invariant: 'receipt_matches_charge',
        message: `receipt for ${String(r)} answered with charge ${String(o.facts?.transaction_id)}`,
        ops: [o],
      });
    }
  }
  // An acknowledged charge is on the ledger.
  for (const o of ops) {
    const tx = o.facts?.transaction_id;
    if (!acknowledged(o) || typeof tx !== 'string') continue;
    if (!snapshot.ledger.some((e) => e.op_id === tx)) {
      out.push({
        invariant: 'acknowledged_write_present',
        message: `charge ${tx} acknowledged, not on the ledger`,
        ops: [o],
      });
    }
  }
  return out;
}

/** No hold stays open past the healer's bound. */
export function checkOpenHolds({ ops, snapshot }: CheckInput): Violation[] {
  const out: Violation[] = [];
  for (const [account, entries] of byAccount(snapshot.ledger)) {
    const open = new Map<string, LedgerRow>();
    for (const e of entries) {
      if (e.transaction_type === 'hold') open.set(e.request_id ?? '', e);
      else if ((e.transaction_type === 'release' || e.transaction_type === 'purchase') && e.request_id)
        open.delete(e.request_id);
    }
    for (const [requestId, hold] of open) {
      const age = snapshot.at - hold.date_created;
      if (age > snapshot.holdBoundMs) {
        out.push({
          invariant: 'no_stale_hold',
          message: `${account} hold ${requestId} open for ${Math.round(age / 1000)} s (bound ${Math.round(snapshot.holdBoundMs / 1000)} s)`,
          ops: ops.filter((o) => o.account === account && o.requestId === requestId),
        });
      }
    }
  }
  return out;
}

function byAccount(ledger: LedgerRow[]): Map<string, LedgerRow[]> {
  const m = new Map<string, LedgerRow[]>();
  for (const e of ledger) {
    const list = m.get(e.user_id);
    if (list) list.push(e);
    else m.set(e.user_id, [e]);
  }
  for (const list of m.values()) list.sort((a, b) => a.seq - b.seq);
  return m;
}
