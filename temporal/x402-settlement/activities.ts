import { ApplicationFailure } from '@temporalio/activity';
import type { Address, Hex } from 'viem';
import { LedgerStore } from '../../shared/credits/ledger-store';
import type { Models } from '../../shared/db';
import type { X402PaymentDoc } from '../../shared/db/models/x402-payment';
import type { PaymentSetup } from '../../shared/x402/setup';

export interface SettlementDeps {
  models: Models;
  payments: PaymentSetup;
  creditExpiryDays: number;
  /** Current block on a chain, to bound the log search when reconciling a used authorization. */
  blockNumber(chainId: number): Promise<bigint>;
  /** How far back to look for the transaction that used an authorization (blocks). */
  reconcileWindowBlocks?: bigint;
}

export type SettlementOutcome =
  | { status: 'completed'; txHash: string; grantId?: string }
  | { status: 'failed'; code: string; message: string };

type Step = { ok: true; rec: X402PaymentDoc } | { ok: false; code: string; message: string };

/** Failures that no retry can fix; the payer's authorization was never executed. */
const FINAL = new Set([
  'authorization_expired', 'authorization_not_yet_valid', 'invalid_signature', 'insufficient_balance',
  'amount_mismatch', 'pay_to_mismatch', 'asset_mismatch', 'network_mismatch', 'token_domain_mismatch',
  'unsupported_network', 'asset_not_supported', 'settlement_reverted', 'authorization_canceled',
]);

/**
 * Settles one verified payment: submit, confirm, apply what it bought. Each step reads what the
 * payment record already says and skips what is done, so a retry (after a crash, an RPC error
 * or a pending transaction) resumes where the last attempt stopped and never pays twice.
 */
export function createSettlementActivities(deps: SettlementDeps) {
  const records = deps.models.x402Payments;
  const ledger = new LedgerStore(deps.models);

  async function save(rec: X402PaymentDoc, fields: Partial<X402PaymentDoc>): Promise<X402PaymentDoc> {
    const updated_at = new Date();
    await records.updateOne({ _id: rec._id }, { $set: { ...fields, updated_at } });
    return { ...rec, ...fields, updated_at };
  }

  async function fail(rec: X402PaymentDoc, code: string, message: string): Promise<Step> {
    // Frees the purchase request for another payment: a failed payment moved no money.
    await save(rec, { status: 'failed', error_code: code, error_message: message, purpose_key: `failed:${rec._id}` });
    return { ok: false, code, message };
  }

  function ref(rec: X402PaymentDoc) {
    return { network: rec.network as `eip155:${number}`, asset: rec.asset as Address, from: rec.payer as Address, nonce: rec.authorization.nonce as Hex };
  }

  /** The chain says this authorization was already used: find and record the transaction that did it. */
  async function reconcile(rec: X402PaymentDoc): Promise<Step> {
    const fac = deps.payments.inProcess!;
    // An authorization is only valid for minutes (maxTimeoutSeconds), so its use is recent.
    const latest = await deps.blockNumber(rec.chain_id);
    const window = deps.reconcileWindowBlocks ?? 10_000n;
    const use = await fac.findAuthorizationUse({ ...ref(rec), fromBlock: latest > window ? latest - window : 0n });
    if (!use) throw new Error('authorization is used on chain but its transaction was not found yet');
    if (use.kind === 'canceled') return fail(rec, 'authorization_canceled', 'the payer canceled this authorization on chain');
    return { ok: true, rec: await save(rec, { status: 'submitted', tx_hash: use.txHash, reconciled: true }) };
  }

  /** Broadcasts transferWithAuthorization once; the hash is recorded before anything waits on it. */
  async function submit(rec: X402PaymentDoc): Promise<Step> {
    if (rec.tx_hash) return { ok: true, rec };
    const fac = deps.payments.inProcess;
    if (!fac) {
      // An external facilitator settles in one call; it is idempotent on the authorization itself.
      const res = await deps.payments.facilitator.settlePayment(JSON.parse(rec.payload_json), JSON.parse(rec.requirements_json));
      if (!res.ok) {
        if (FINAL.has(res.code)) return fail(rec, res.code, res.message);
        throw new Error(`external settlement failed (${res.code}): ${res.message}`);
      }
      return { ok: true, rec: await save(rec, { status: 'settled', tx_hash: res.txHash.toLowerCase(), settled_at: new Date() }) };
    }
    // No pre-check of the authorization's state: submit simulates first, and a used nonce
    // (our own earlier attempt that died before recording its hash) comes back as a value.
    const res = await fac.submitSettlement({
      network: rec.network as `eip155:${number}`,
      asset: rec.asset as Address,
      authorization: rec.authorization as never,
      signature: rec.signature as Hex,
    });
    if (res.ok) return { ok: true, rec: await save(rec, { status: 'submitted', tx_hash: res.txHash }) };
    if (res.code === 'nonce_already_used') return reconcile(rec);
    if (FINAL.has(res.code)) return fail(rec, res.code, res.message);
    throw new Error(`settlement submit failed (${res.code}): ${res.message}`);
  }

  /** Waits for the receipt; a pending transaction throws, and Temporal retries with backoff. */
  async function confirm(rec: X402PaymentDoc): Promise<Step> {
    if (rec.status === 'settled' || rec.status === 'completed') return { ok: true, rec };
    const fac = deps.payments.inProcess!;
    const txHash = rec.tx_hash as Hex;
    const receipt = await fac.waitForReceipt({ network: rec.network as `eip155:${number}`, txHash, timeoutMs: 30_000 });
    if (receipt.status === 'pending') throw new Error(`transaction ${txHash} still pending`);
    if (receipt.status === 'reverted') {
      // Someone else's transaction may have used the authorization first: then the money moved anyway.
      if (await fac.authorizationState(ref(rec))) {
        const other = await reconcile({ ...rec, tx_hash: undefined });
        if (!other.ok || other.rec.tx_hash!.toLowerCase() === txHash.toLowerCase()) return other;
        return confirm(other.rec);
      }
      return fail(rec, 'settlement_reverted', `transaction ${txHash} reverted`);
    }
    return { ok: true, rec: { ...rec, status: 'settled', block_number: receipt.blockNumber, settled_at: new Date() } };
  }

  /** What the payment bought. Idempotent: the grant id is derived from the payment id. */
  async function applyEffect(rec: X402PaymentDoc): Promise<X402PaymentDoc> {
    if (rec.status === 'completed') return rec;
    let grantId: string | undefined;
    if (rec.purpose.kind === 'credit_purchase') {
      const { grant } = await ledger.grant({
        wallet: rec.purpose.wallet,
        grantId: `x402:${rec._id}`,
        credits: rec.purpose.credits,
        creditType: 'x402_purchase',
        sourceMetadata: { tx_hash: rec.tx_hash, network: rec.network, payer: rec.payer, token: rec.token_symbol, payment_id: rec._id },
        expiresAt: new Date(Date.now() + deps.creditExpiryDays * 86_400_000),
      });
      grantId = grant._id;
    }
    // One write records both the settlement and its effect.
    return save(rec, {
      status: 'completed',
      block_number: rec.block_number,
      settled_at: rec.settled_at,
      completed_at: new Date(),
      ...(grantId ? { grant_id: grantId } : {}),
    });
  }

  return {
    async settlePayment(id: string): Promise<SettlementOutcome> {
      const rec = await records.findById(id).lean<X402PaymentDoc>().exec();
      if (!rec) throw ApplicationFailure.nonRetryable(`payment ${id} has no record`, 'payment_record_missing');
      if (rec.status === 'failed') return { status: 'failed', code: rec.error_code ?? 'settlement_failed', message: rec.error_message ?? '' };
      const submitted = await submit(rec);
      if (!submitted.ok) return { status: 'failed', code: submitted.code, message: submitted.message };
      const confirmed = await confirm(submitted.rec);
      if (!confirmed.ok) return { status: 'failed', code: confirmed.code, message: confirmed.message };
      const done = await applyEffect(confirmed.rec);
      return { status: 'completed', txHash: done.tx_hash!, grantId: done.grant_id };
    },
  };
}

export type SettlementActivities = ReturnType<typeof createSettlementActivities>;
