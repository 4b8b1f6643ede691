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
}

export type StepResult = { ok: true; txHash: string } | { ok: false; code: string; message: string };

/** Failures that no retry can fix; the payer's authorization was never executed. */
const FINAL = new Set([
  'authorization_expired', 'authorization_not_yet_valid', 'invalid_signature', 'insufficient_balance',
  'amount_mismatch', 'pay_to_mismatch', 'asset_mismatch', 'network_mismatch', 'token_domain_mismatch',
  'unsupported_network', 'asset_not_supported', 'settlement_reverted', 'authorization_canceled',
]);

export function createSettlementActivities(deps: SettlementDeps) {
  const records = deps.models.x402Payments;
  const ledger = new LedgerStore(deps.models);

  async function load(id: string): Promise<X402PaymentDoc> {
    const rec = await records.findById(id).lean<X402PaymentDoc>().exec();
    if (!rec) throw ApplicationFailure.nonRetryable(`payment ${id} has no record`, 'payment_record_missing');
    return rec;
  }

  async function save(id: string, fields: Partial<X402PaymentDoc>): Promise<void> {
    await records.updateOne({ _id: id }, { $set: { ...fields, updated_at: new Date() } });
  }

  async function fail(id: string, code: string, message: string): Promise<StepResult> {
    // Frees the purchase request for another payment: a failed payment moved no money.
    await save(id, { status: 'failed', error_code: code, error_message: message, purpose_key: `failed:${id}` });
    return { ok: false, code, message };
  }

  function ref(rec: X402PaymentDoc) {
    return { network: rec.network as `eip155:${number}`, asset: rec.asset as Address, from: rec.payer as Address, nonce: rec.authorization.nonce as Hex };
  }

  /** The chain says this authorization was already used: find and record the transaction that did it. */
  async function reconcile(rec: X402PaymentDoc): Promise<StepResult> {
    const fac = deps.payments.inProcess!;
    const use = await fac.findAuthorizationUse({ ...ref(rec), fromBlock: BigInt(rec.from_block ?? '0') });
    if (!use) throw new Error('authorization is used on chain but its transaction was not found yet');
    if (use.kind === 'canceled') return fail(rec._id, 'authorization_canceled', 'the payer canceled this authorization on chain');
    await save(rec._id, { status: 'submitted', tx_hash: use.txHash, reconciled: true });
    return { ok: true, txHash: use.txHash };
  }

  return {
    /** Broadcasts transferWithAuthorization once; on a retry, finds what the first attempt did. */
    async submitSettlement(id: string): Promise<StepResult> {
      const rec = await load(id);
      if (rec.tx_hash) return { ok: true, txHash: rec.tx_hash };
      if (rec.status === 'failed') return { ok: false, code: rec.error_code ?? 'settlement_failed', message: rec.error_message ?? '' };
      const fac = deps.payments.inProcess;
      const request = {
        network: rec.network as `eip155:${number}`,
        asset: rec.asset as Address,
        authorization: rec.authorization as never,
        signature: rec.signature as Hex,
      };
      if (!fac) {
        // An external facilitator settles in one call; it is idempotent on the authorization itself.
        const res = await deps.payments.facilitator.settlePayment(JSON.parse(rec.payload_json), JSON.parse(rec.requirements_json));
        if (!res.ok) return FINAL.has(res.code) ? fail(id, res.code, res.message) : Promise.reject(new Error(res.message));
        await save(id, { status: 'submitted', tx_hash: res.txHash });
        return { ok: true, txHash: res.txHash };
      }
      if (!rec.from_block) {
        const from = (await deps.blockNumber(rec.chain_id)).toString();
        await save(id, { from_block: from });
        rec.from_block = from;
      }
      if (await fac.authorizationState(ref(rec))) return reconcile(rec);
      const res = await fac.submitSettlement(request);
      if (res.ok) {
        await save(id, { status: 'submitted', tx_hash: res.txHash });
        return { ok: true, txHash: res.txHash };
      }
      if (res.code === 'nonce_already_used') return reconcile(rec);
      if (FINAL.has(res.code)) return fail(id, res.code, res.message);
      throw new Error(`settlement submit failed (${res.code}): ${res.message}`);
    },

    /** Waits for the receipt; a pending transaction is retried with backoff by Temporal. */
    async confirmSettlement(id: string, txHash: string): Promise<StepResult> {
      const rec = await load(id);
      if (rec.status === 'settled' || rec.status === 'completed') return { ok: true, txHash: rec.tx_hash! };
      const fac = deps.payments.inProcess;
      if (!fac) {
        await save(id, { status: 'settled', settled_at: new Date() });
        return { ok: true, txHash };
      }
      const receipt = await fac.waitForReceipt({ network: rec.network as `eip155:${number}`, txHash: txHash as Hex, timeoutMs: 30_000 });
      if (receipt.status === 'pending') throw new Error(`transaction ${txHash} still pending`);
      if (receipt.status === 'reverted') {
        // Someone else's transaction may have used the authorization first: then the money moved anyway.
        if (await fac.authorizationState(ref(rec))) {
          const other = await reconcile({ ...rec, tx_hash: undefined });
          if (!other.ok || other.txHash.toLowerCase() === txHash.toLowerCase()) return other;
          return this.confirmSettlement(id, other.txHash);
        }
        return fail(id, 'settlement_reverted', `transaction ${txHash} reverted`);
      }
      await save(id, { status: 'settled', tx_hash: txHash, block_number: receipt.blockNumber, settled_at: new Date() });
      return { ok: true, txHash };
    },

    /** What the payment bought. Idempotent: the grant id is derived from the payment id. */
    async applyEffect(id: string): Promise<{ grant_id?: string }> {
      const rec = await load(id);
      if (rec.status === 'completed') return { grant_id: rec.grant_id };
      let grantId: string | undefined;
      if (rec.purpose.kind === 'credit_purchase') {
        const { grant } = await ledger.grant({
          wallet: rec.purpose.wallet,
          grantId: `x402:${id}`,
          credits: rec.purpose.credits,
          creditType: 'x402_purchase',
          sourceMetadata: { tx_hash: rec.tx_hash, network: rec.network, payer: rec.payer, token: rec.token_symbol, payment_id: id },
          expiresAt: new Date(Date.now() + deps.creditExpiryDays * 86_400_000),
        });
        grantId = grant._id;
      }
      await save(id, { status: 'completed', completed_at: new Date(), ...(grantId ? { grant_id: grantId } : {}) });
      return { grant_id: grantId };
    },
  };
}

export type SettlementActivities = ReturnType<typeof createSettlementActivities>;
