import { check, CHECKS, describeViolation } from './checker/index';
import type { CheckInput, LedgerRow, Snapshot } from './checker/snapshot';
import type { Op } from './history';

const T0 = Date.parse('2026-11-27T10:00:00Z');
const key = (account: string, holdId: string) => `k:${account}:${holdId}`;

function entry(
  account: string,
  seq: number,
  type: string,
  amount: number,
  after: number,
  extra: Partial<LedgerRow> = {},
): LedgerRow {
  return {
    _id: `${account}:${seq}`,
    op_id: `${type}:${account}:${seq}`,
    user_id: account,
    seq,
    transaction_type: type,
    amount_credits: amount,
    balance_after_credits: after,
    date_created: T0 + seq * 1000,
    ...extra,
  };
}

function op(id: number, o: Partial<Op> & Pick<Op, 'kind'>): Op {
  return { id, agent: 'a1', startedAt: T0 + id, endedAt: T0 + id + 5, status: 200, ...o };
}

/** A consistent world: a bought grant, one paid call captured, one released, a run with its callback, a job, a claim. */
function healthy(): { ops: Op[]; snapshot: Snapshot } {
  const ledger = [
    entry('w1', 1, 'grant', 500, 500, { tx_hash: '0xaa' }),
    entry('w1', 2, 'hold', -5, 495, { request_id: 'r1' }),
    entry('w1', 3, 'purchase', -5, 495, { request_id: 'r1', op_id: 'purchase:w1:r1' }),
    entry('w1', 4, 'hold', -5, 490, { request_id: 'r2' }),
    entry('w1', 5, 'release', 5, 495, { request_id: 'r2' }),
  ];
  const ops = [
    op(1, { kind: 'credit_purchase', ref: 'pay1', facts: { completed: true } }),
    op(2, { kind: 'signed_invoke', account: 'w1', requestId: 'r1', facts: { transaction_id: 'purchase:w1:r1' } }),
    op(3, { kind: 'signed_invoke', account: 'w1', requestId: 'r2', status: 502, error: 'vendor_error' }),
    op(4, { kind: 'webhook_run', ref: 'run1' }),
    op(5, { kind: 'job_reserve', ref: 'res1', facts: { job_id: 'job1' } }),
    op(6, { kind: 'schedule_claim', ref: 'tok1' }),
  ];
  return {
    ops,
    snapshot: {
      at: T0 + 60_000,
      ledger,
      payments: [{ _id: 'pay1', kind: 'credit_purchase', status: 'completed', payer: '0xp', tx_hash: '0xaa' }],
      transfers: [{ tx: '0xaa', from: '0xp', to: '0xm', value: '5000000' }],
      creditPayers: ['0xp'],
      runs: [{ _id: 'run1', status: 'completed', callback_url: 'https://r/h', callback_status: 'delivered' }],
      executions: { run1: 'COMPLETED' },
      callbacks: [
        { runId: 'run1', webhookId: 'msg_1', status: 500 },
        { runId: 'run1', webhookId: 'msg_1', status: 200 },
      ],
      reservations: [{ _id: 'res1', job_id: 'job1', status: 'active', slot: 0 }],
      jobs: [{ _id: 'job1', slots: 1 }],
      claims: [
        {
          _id: 's1:a:1',
          schedule_id: 's1',
          due_at: T0,
          claim_token: 'tok1',
          claimed_at: T0,
          lease_expires_at: T0 + 30_000,
        },
        {
          _id: 's1:a:2',
          schedule_id: 's1',
          due_at: T0,
          claim_token: 'tok2',
          claimed_at: T0 + 40_000,
          lease_expires_at: T0 + 70_000,
        },
      ],
      claimEnds: [],
      vendorDelivered: [key('w1', 'r1')],
      holdBoundMs: 120_000,
    },
  };
}

const input = (w: { ops: Op[]; snapshot: Snapshot }): CheckInput => ({ ...w, faults: [], callKey: key });
const invariants = (w: { ops: Op[]; snapshot: Snapshot }) => check(input(w)).map((v) => v.invariant);

describe('the chaos checker (pure): a consistent history passes, each crafted violation fails', () => {
  it('finds nothing wrong in a consistent history', () => {
    expect(check(input(healthy()))).toEqual([]);
  });

  it('a gap in the ledger, a wrong balance_after, a negative balance, a broken identity', () => {
    const gap = healthy();
    gap.snapshot.ledger.splice(1, 1);
    expect(invariants(gap)).toContain('balance_chain');

    const wrong = healthy();
    wrong.snapshot.ledger[2] = { ...wrong.snapshot.ledger[2]!, balance_after_credits: 490 };
    expect(invariants(wrong)).toContain('balance_chain');

    const negative = healthy();
    negative.snapshot.ledger.push(entry('w1', 6, 'purchase', -600, -105, { request_id: 'big' }));
    expect(invariants(negative)).toEqual(expect.arrayContaining(['balance_non_negative']));
  });

  it('a request id charged twice, and a charge whose vendor never answered or whose caller was told it failed', () => {
    const twice = healthy();
    twice.snapshot.ledger.push(
      entry('w1', 6, 'purchase', -5, 490, { request_id: 'r1', op_id: 'purchase:w1:r1:again' }),
    );
    const v = check(input(twice)).find((x) => x.invariant === 'charged_at_most_once');
    expect(v?.ops.map((o) => o.id)).toEqual([2]);
    expect(describeViolation(v!)).toContain('op #2 signed_invoke');

    const noAnswer = healthy();
    noAnswer.snapshot.vendorDelivered = [];
    expect(invariants(noAnswer)).toEqual(['charged_only_with_result']);

    const toldFailed = healthy();
    toldFailed.snapshot.ledger[4] = {
      ...toldFailed.snapshot.ledger[4]!,
      transaction_type: 'purchase',
      amount_credits: -5,
      balance_after_credits: 490,
    };
    toldFailed.snapshot.vendorDelivered.push(key('w1', 'r2'));
    expect(invariants(toldFailed)).toContain('charged_only_with_result');
  });

  it('a charge told failed, then answered on a retry of its request id, is no violation; a receipt naming another charge is', () => {
    const retried = healthy();
    retried.ops[1] = { ...retried.ops[1]!, status: 503, error: 'store_unavailable', facts: undefined };
    retried.ops.push(
      op(7, { kind: 'signed_invoke', account: 'w1', requestId: 'r1', facts: { transaction_id: 'purchase:w1:r1' } }),
    );
    expect(check(input(retried))).toEqual([]);
    const toldOnly = healthy();
    toldOnly.ops[1] = { ...toldOnly.ops[1]!, status: 503, error: 'store_unavailable', facts: undefined };
    expect(invariants(toldOnly)).toEqual(['charged_only_with_result']);

    const receipt = healthy();
    receipt.ops[1] = {
      ...receipt.ops[1]!,
      kind: 'mcp_credits_call',
      facts: { transaction_id: 'purchase:w1:r1', receipt_transaction: 'credits:purchase:w1:r9' },
    };
    expect(invariants(receipt)).toEqual(['receipt_matches_charge']);
    receipt.ops[1]!.facts!.receipt_transaction = 'credits:purchase:w1:r1';
    expect(check(input(receipt))).toEqual([]);
  });

  it('an acknowledged charge missing from the ledger', () => {
    const w = healthy();
    w.ops[1] = { ...w.ops[1]!, facts: { transaction_id: 'purchase:w1:lost' } };
    expect(invariants(w)).toEqual(['acknowledged_write_present']);
  });

  it('a hold open past the bound (one younger than the bound is fine)', () => {
    const w = healthy();
    w.snapshot.ledger.push(entry('w1', 6, 'hold', -5, 490, { request_id: 'r3' }));
    expect(CHECKS.checkOpenHolds(input(w))).toEqual([]);
    w.snapshot.at = T0 + 10 * 60_000;
    expect(invariants(w)).toEqual(['no_stale_hold']);
  });

  it('a transfer credited twice, one never credited, a grant without a transfer, an acknowledged purchase without its grant', () => {
    const twice = healthy();
    twice.snapshot.ledger.push(entry('w1', 6, 'grant', 500, 995, { tx_hash: '0xaa' }));
    expect(invariants(twice)).toContain('transfer_credited_once');

    const never = healthy();
    never.snapshot.transfers.push({ tx: '0xbb', from: '0xp', to: '0xm', value: '5000000' });
    expect(invariants(never)).toEqual(['transfer_credited_once']);

    const unpaid = healthy();
    unpaid.snapshot.transfers = [];
    expect(invariants(unpaid)).toEqual(['no_credit_without_transfer']);

    const lost = healthy();
    lost.snapshot.payments[0] = { ...lost.snapshot.payments[0]!, tx_hash: undefined, status: 'submitted' };
    expect(invariants(lost)).toEqual(['acknowledged_write_present']);
  });

  it('a run lost, one not terminal, one whose Temporal execution disagrees, a callback never accepted or under two webhook-ids', () => {
    const lost = healthy();
    lost.snapshot.runs = [];
    expect(invariants(lost)).toEqual(['acknowledged_write_present']);

    const stuck = healthy();
    stuck.snapshot.runs[0] = { ...stuck.snapshot.runs[0]!, status: 'running' };
    expect(invariants(stuck)).toEqual(['run_terminal']);

    const disagree = healthy();
    disagree.snapshot.executions.run1 = 'FAILED';
    expect(invariants(disagree)).toEqual(['run_matches_execution']);

    const undelivered = healthy();
    undelivered.snapshot.callbacks = undelivered.snapshot.callbacks.filter((c) => c.status !== 200);
    expect(invariants(undelivered)).toEqual(['callback_delivered']);

    const twoIds = healthy();
    twoIds.snapshot.callbacks[0] = { ...twoIds.snapshot.callbacks[0]!, webhookId: 'msg_2' };
    expect(invariants(twoIds)).toEqual(['callback_one_webhook_id']);
  });

  it('a job slot given twice, more live reservations than slots, an acknowledged reservation lost', () => {
    const twice = healthy();
    twice.snapshot.jobs[0] = { _id: 'job1', slots: 2 };
    twice.snapshot.reservations.push({ _id: 'res2', job_id: 'job1', status: 'completed', slot: 0 });
    expect(invariants(twice)).toEqual(['job_slot_once']);

    const over = healthy();
    over.snapshot.reservations.push({ _id: 'res2', job_id: 'job1', status: 'active', slot: 1 });
    expect(invariants(over)).toEqual(['job_slot_once']);

    const lost = healthy();
    lost.snapshot.reservations = [];
    expect(invariants(lost)).toEqual(['acknowledged_write_present']);
  });

  it('an occurrence held by two live claims (an ended or lapsed claim does not count), an acknowledged claim lost', () => {
    const overlap = healthy();
    overlap.snapshot.claims[1] = { ...overlap.snapshot.claims[1]!, claimed_at: T0 + 10_000 };
    expect(invariants(overlap)).toEqual(['occurrence_one_live_claim']);
    overlap.snapshot.claimEnds = [{ _id: 's1:a:1', kind: 'released', at: T0 + 5_000 }];
    expect(invariants(overlap)).toEqual([]);

    const lost = healthy();
    lost.snapshot.claims = lost.snapshot.claims.slice(1);
    expect(invariants(lost)).toEqual(['acknowledged_write_present']);
  });
});
