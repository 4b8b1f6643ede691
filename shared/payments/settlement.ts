import type { Address, Hex } from 'viem';
import type { LedgerStore } from '../credits/index';
import { logger } from '../platform/logger/index';
import { settlements } from './metrics';
import type { X402PaymentDoc } from './models/x402-payment';
import type { NonceClaims } from './nonce-claims';
import type { PaymentRepository } from './payment-repository';
import { applyPurpose } from './purposes';
import type { SettlementOutcome } from './settlement-engine';
import { isOurTransfer } from './transfer-match';
import { describeChainFailure } from './x402/chain-errors';
import type { AuthorizedTransfer, ChainReader } from './x402/chain-reader';
import type { PaymentRequirements } from './x402/challenge';
import type { AuthorizationRef, CaipNetwork, InProcessFacilitator } from './x402/index';
import type { PaymentSetup } from './x402/setup';

/** What settling a payment works with: the process's repositories (the composition root's) and its payment setup. */
export interface SettlementDeps {
  payments: PaymentRepository;
  ledger: LedgerStore;
  nonces: NonceClaims;
  setup: PaymentSetup;
  creditExpiryDays: number;
  /** A record without `verified_block` (written before it existed): log searches start this far back. */
  reconcileLookbackBlocks?: bigint;
  /** How long one attempt waits for a receipt before looking at why it is missing. */
  receiptWaitMs?: number;
  receiptPollMs?: number;
}

/** The settlement was asked for a payment that has no record: no retry can settle it. */
export class PaymentRecordMissing extends Error {
  readonly code = 'payment_record_missing';
  constructor(readonly paymentId: string) {
    super(`payment ${paymentId} has no record`);
  }
}

/**
 * One attempt could not decide (an RPC error, a pending transaction, a facilitator's retryable
 * refusal): the next attempt resumes from the record. `code` and `message` are one short line
 * without URLs (describeChainFailure); the attempt was already counted and logged.
 */
export class SettlementAttemptFailed extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

type Step = { ok: true; rec: X402PaymentDoc } | { ok: false; code: string; message: string };

/** Failures that no retry can fix; the payer's authorization was never executed. */
const FINAL = new Set([
  'authorization_expired',
  'authorization_not_yet_valid',
  'invalid_signature',
  'insufficient_balance',
  'amount_mismatch',
  'pay_to_mismatch',
  'asset_mismatch',
  'network_mismatch',
  'token_domain_mismatch',
  'unsupported_network',
  'asset_not_supported',
  'settlement_reverted',
  'authorization_canceled',
]);

/** How far behind the wall clock a new block's timestamp may still be. */
const IDLE_CHAIN_GRACE_SECONDS = 120;

/** An attempt that cannot decide yet; it is retried. `type` is its code in the log line. */
class AttemptError extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

const network = (rec: X402PaymentDoc) => rec.network as CaipNetwork;
const ref = (rec: X402PaymentDoc): AuthorizationRef => ({
  network: network(rec),
  asset: rec.asset as Address,
  from: rec.payer as Address,
  nonce: rec.authorization.nonce as Hex,
});
const request = (rec: X402PaymentDoc) => ({
  network: network(rec),
  asset: rec.asset as Address,
  authorization: rec.authorization as never,
  signature: rec.signature as Hex,
});

/** The outcome of a completed record, carrying what its completion wrote (see SettlementCompletion). */
function completedOutcome(done: X402PaymentDoc, balanceAfter?: number): SettlementOutcome {
  return {
    status: 'completed',
    txHash: done.tx_hash!,
    grantId: done.grant_id,
    completion: {
      completedAt: new Date(done.completed_at ?? done.updated_at).toISOString(),
      ...(done.settled_at ? { settledAt: new Date(done.settled_at).toISOString() } : {}),
      ...(done.block_number ? { blockNumber: done.block_number } : {}),
      ...(done.reconciled ? { reconciled: true } : {}),
    },
    ...(balanceAfter !== undefined ? { balanceAfter } : {}),
  };
}

/**
 * Settles one verified payment: submit, confirm, apply what it bought. Each step reads what the
 * payment record already says and skips what is done, so a retry (after a crash, an RPC error
 * or a pending transaction) resumes where the last attempt stopped and never pays twice.
 * Money is only ever counted from the chain: a transaction is ours when it moved exactly the
 * verified amount of the verified asset from the payer to our pay_to (isOurTransfer).
 */
export class PaymentSettlement {
  private readonly payments: PaymentRepository;
  private readonly nonces: NonceClaims;
  private readonly receiptWaitMs: number;
  private readonly receiptPollMs: number;

  constructor(private readonly deps: SettlementDeps) {
    this.payments = deps.payments;
    this.nonces = deps.nonces;
    this.receiptWaitMs = deps.receiptWaitMs ?? 20_000;
    this.receiptPollMs = deps.receiptPollMs ?? 250;
  }

  /**
   * One attempt at the payment's settlement. A final answer is the outcome (completed, or failed
   * with its code: nothing was charged); an attempt that cannot decide yet throws
   * SettlementAttemptFailed, and a payment without a record PaymentRecordMissing.
   */
  async settle(id: string): Promise<SettlementOutcome> {
    const rec = await this.payments.byId(id);
    if (!rec) throw new PaymentRecordMissing(id);
    if (rec.status === 'failed')
      return { status: 'failed', code: rec.error_code ?? 'settlement_failed', message: rec.error_message ?? '' };
    try {
      const outcome = await this.run(rec);
      settlements.inc({ result: outcome.status });
      if (outcome.status === 'failed')
        logger.warn('settlement failed', { code: outcome.code, reason: outcome.message, payment_id: id });
      return outcome;
    } catch (err) {
      // One short line per failed attempt, and a failure without viem's error (ABI, calldata,
      // RPC URL with its key) for whoever retries it.
      settlements.inc({ result: 'attempt_failed' });
      const { code, message } = describeChainFailure(err);
      const latest = await this.payments.byId(id).catch(() => null);
      logger.warn('settlement attempt failed', {
        code,
        reason: message,
        payment_id: id,
        ...(latest?.tx_hash ? { tx_hash: latest.tx_hash } : {}),
      });
      throw new SettlementAttemptFailed(code, message);
    }
  }

  private async run(start: X402PaymentDoc): Promise<SettlementOutcome> {
    const rec = await this.withVerifiedBlock(start, this.chainFor(start));
    const fac = this.deps.setup.inProcess;
    let step: Step;
    if (fac) {
      step = await this.submit(rec, fac);
      if (step.ok) step = await this.confirm(step.rec, fac);
    } else {
      step = await this.settleRemote(rec);
    }
    if (!step.ok) return { status: 'failed', code: step.code, message: step.message };
    const { done, balanceAfter } = await this.applyEffect(step.rec);
    return completedOutcome(done, balanceAfter);
  }

  private async fail(
    rec: X402PaymentDoc,
    code: string,
    message: string,
    extra: Partial<X402PaymentDoc> = {},
  ): Promise<Step> {
    // Frees the purchase request for another payment: a failed payment moved no money to us.
    await this.payments.update(rec, {
      ...extra,
      status: 'failed',
      error_code: code,
      error_message: message,
      purpose_key: `failed:${rec._id}`,
    });
    return { ok: false, code, message };
  }

  private chainFor(rec: X402PaymentDoc): ChainReader | undefined {
    const chain = this.deps.setup.chain;
    return chain?.serves(rec.network) ? chain : undefined;
  }

  /** Where log searches start: the block at verification, recorded on the first attempt when the gate did not. */
  private async withVerifiedBlock(rec: X402PaymentDoc, chain: ChainReader | undefined): Promise<X402PaymentDoc> {
    if (rec.verified_block || !chain) return rec;
    const latest = await chain.blockNumber(network(rec));
    const back = this.deps.reconcileLookbackBlocks ?? 10_000n;
    return this.payments.update(rec, { verified_block: (latest > back ? latest - back : 0n).toString() });
  }

  /**
   * Accepts `txHash` as this payment's settlement only if it moved what was verified to us.
   * Anything else is the payer (or someone) spending the authorization elsewhere: fail, grant nothing.
   */
  private async adopt(
    rec: X402PaymentDoc,
    chain: ChainReader,
    txHash: Hex,
    extra: Partial<X402PaymentDoc> = {},
    known?: AuthorizedTransfer,
  ): Promise<Step> {
    const moved = known ?? (await chain.authorizedTransfer({ ...ref(rec), txHash }));
    if (!isOurTransfer(rec, moved)) {
      const what = moved ? `moved ${moved.value} from ${moved.from} to ${moved.to}` : 'did not transfer to us under it';
      return this.fail(
        rec,
        'authorization_used_elsewhere',
        `the authorization was used by transaction ${txHash}, which ${what}; nothing was received, nothing is granted`,
        { conflicting_tx_hash: txHash.toLowerCase() },
      );
    }
    return {
      ok: true,
      rec: {
        ...rec,
        ...extra,
        status: 'settled',
        tx_hash: txHash.toLowerCase(),
        block_number: moved!.blockNumber,
        settled_at: new Date(),
      },
    };
  }

  /** The chain says this authorization was used: find the transaction (bounded log windows from the verified block) and check it. */
  private async reconcile(rec: X402PaymentDoc, chain: ChainReader): Promise<Step> {
    const use = await chain.findAuthorizationUse({ ...ref(rec), fromBlock: BigInt(rec.verified_block ?? '0') });
    if (!use)
      throw new AttemptError(
        'authorization_use_not_found',
        'the authorization is used on chain but its transaction was not found yet',
      );
    if (use.kind === 'canceled')
      return this.fail(rec, 'authorization_canceled', 'the payer canceled this authorization on chain');
    return this.adopt(rec, chain, use.txHash, { reconciled: true });
  }

  /**
   * Reads what the chain decided about the authorization: used (reconcile), or expired unused
   * (nothing can ever be charged: fail). Undefined when it is still open. Chain time decides:
   * no block at or after the latest one can execute an authorization past its validBefore.
   */
  private async decideOnChain(rec: X402PaymentDoc, chain: ChainReader): Promise<Step | undefined> {
    const chainNow = await this.chainTime(rec, chain);
    if (await chain.authorizationState(ref(rec))) return this.reconcile(rec, chain);
    if (chainNow >= BigInt(rec.authorization.validBefore)) {
      return this.fail(
        rec,
        'authorization_expired_unsettled',
        `the authorization expired (validBefore ${rec.authorization.validBefore}) before it was settled; nothing was charged`,
      );
    }
    return undefined;
  }

  /**
   * A lower bound for the timestamp of any block still to come: the latest block's, or the wall
   * clock minus a grace when the chain mines no empty blocks (anvil automine) and sits idle.
   */
  private async chainTime(rec: X402PaymentDoc, chain: ChainReader): Promise<bigint> {
    const block = await chain.latestBlock(network(rec));
    const wall = BigInt(Math.floor(Date.now() / 1000) - IDLE_CHAIN_GRACE_SECONDS);
    return block.timestamp > wall ? block.timestamp : wall;
  }

  // ------------------------------------------------------------------ in-process facilitator

  /**
   * The simulation and the nonce inputs (the chain's pending nonce, the highest claim so far):
   * independent reads, one round trip, not four. The highest claim is only where the claim
   * starts looking; its unique insert decides.
   */
  private prepareReads(rec: X402PaymentDoc, fac: InProcessFacilitator) {
    const address = fac.settlementAddress(rec.chain_id);
    const chainKey = fac.chain.chainKey(network(rec));
    return Promise.all([
      fac.prepareSettlement(request(rec)),
      chainKey,
      fac.chain.accountNonce(network(rec), address, 'pending'),
      chainKey.then((key) => this.nonces.highest(key, address)),
    ]);
  }

  /** Simulates, claims an account nonce in the store, signs, records the hash, then broadcasts. */
  private async submitNew(
    rec: X402PaymentDoc,
    fac: InProcessFacilitator,
    reads?: Awaited<ReturnType<PaymentSettlement['prepareReads']>>,
  ): Promise<Step> {
    const chain = fac.chain;
    const [prepared, chainKey, chainNext, top] = reads ?? (await this.prepareReads(rec, fac));
    if (!prepared.ok) {
      if (prepared.code === 'nonce_already_used' || prepared.code === 'authorization_expired') {
        // Maybe our own earlier attempt, maybe someone else's transaction: the chain decides.
        const decided = await this.decideOnChain(rec, chain);
        if (decided) return decided;
        throw new AttemptError(prepared.code, prepared.message);
      }
      if (FINAL.has(prepared.code)) return this.fail(rec, prepared.code, prepared.message);
      throw new AttemptError(prepared.code, prepared.message);
    }
    const claim = await this.nonces.claim({
      chainKey,
      address: prepared.from,
      paymentId: rec._id,
      chainNext,
      top,
      sign: (n) => fac.signSettlement(prepared, n),
    });
    // The hash is recorded while the transaction goes out: the claim already holds both, so an
    // attempt that dies in between finds it (submit) and sends the same transaction again.
    // 'nonce_taken' means a transaction from outside the claims used this nonce: confirm sees it replaced.
    const sent = chain.sendRaw(network(rec), claim.raw_tx as Hex).then(
      () => undefined,
      (err: unknown) => ({ err }),
    );
    const saved = await this.payments.update(rec, { status: 'submitted', tx_hash: claim.tx_hash });
    const failed = await sent;
    if (failed) throw failed.err;
    return { ok: true, rec: saved };
  }

  private async submit(rec: X402PaymentDoc, fac: InProcessFacilitator): Promise<Step> {
    if (rec.tx_hash) return { ok: true, rec };
    // An earlier attempt claimed and signed, then died before recording the hash. The chain reads
    // a new submission needs go out alongside (reads only: nothing is claimed, signed or sent
    // until this payment is known to hold no claim), so the first attempt pays one round trip.
    const [claim, reads] = await Promise.all([
      this.nonces.forPayment(rec._id),
      this.prepareReads(rec, fac).then(
        (r) => ({ ok: true as const, r }),
        (err: unknown) => ({ ok: false as const, err }),
      ),
    ]);
    if (claim) {
      const saved = await this.payments.update(rec, { status: 'submitted', tx_hash: claim.tx_hash });
      await fac.chain.sendRaw(network(rec), claim.raw_tx as Hex);
      return { ok: true, rec: saved };
    }
    if (!reads.ok) throw reads.err;
    return this.submitNew(rec, fac, reads.r);
  }

  /** Polls the receipt for a while; stops early when the node does not know the transaction (dropped). */
  private async awaitReceipt(chain: ChainReader, rec: X402PaymentDoc) {
    const deadline = Date.now() + this.receiptWaitMs;
    for (let i = 0; ; i++) {
      const r = await chain.outcomeOf({ ...ref(rec), txHash: rec.tx_hash as Hex });
      if (r.receipt.status !== 'pending' || Date.now() >= deadline) return r;
      if (i % 4 === 0 && !(await chain.knowsTransaction(network(rec), rec.tx_hash as Hex))) return r;
      await new Promise((resolve) => setTimeout(resolve, this.receiptPollMs));
    }
  }

  private async confirm(rec: X402PaymentDoc, fac: InProcessFacilitator): Promise<Step> {
    if (rec.status === 'settled' || rec.status === 'completed') return { ok: true, rec };
    const chain = fac.chain;
    const txHash = rec.tx_hash as Hex;
    const { receipt, transfer } = await this.awaitReceipt(chain, rec);
    if (receipt.status === 'confirmed') return this.adopt(rec, chain, txHash, {}, transfer);
    if (receipt.status === 'reverted') {
      // Someone else's transaction may have used the authorization first: reconcile checks whether it paid us.
      if (await chain.authorizationState(ref(rec))) return this.reconcile(rec, chain);
      if (
        receipt.blockTimestamp !== undefined &&
        BigInt(receipt.blockTimestamp) >= BigInt(rec.authorization.validBefore)
      ) {
        return this.fail(
          rec,
          'authorization_expired_unsettled',
          `transaction ${txHash} was mined after the authorization expired (validBefore ${rec.authorization.validBefore}) and reverted; nothing was charged`,
        );
      }
      return this.fail(rec, 'settlement_reverted', `transaction ${txHash} reverted; nothing was charged`);
    }
    return this.unconfirmed(rec, fac);
  }

  /** Not mined after a wait: used by another transaction, replaced, dropped, expired, or just slow. */
  private async unconfirmed(rec: X402PaymentDoc, fac: InProcessFacilitator): Promise<Step> {
    const chain = fac.chain;
    const txHash = rec.tx_hash as Hex;
    const claim = await this.nonces.forPayment(rec._id);
    const accountNext = claim ? await chain.accountNonce(network(rec), claim.address as Address, 'latest') : undefined;
    const chainNow = await this.chainTime(rec, chain);
    if (await chain.authorizationState(ref(rec))) return this.reconcile(rec, chain);
    // Read after the account nonce: if it was mined meanwhile, this sees it.
    if ((await chain.receipt(network(rec), txHash)).status !== 'pending') return this.confirm(rec, fac);
    const expired = chainNow >= BigInt(rec.authorization.validBefore);
    const expiredFail = () =>
      this.fail(
        rec,
        'authorization_expired_unsettled',
        `transaction ${txHash} was not mined before the authorization expired (validBefore ${rec.authorization.validBefore}); nothing was charged`,
      );

    if (claim && accountNext !== undefined && accountNext > claim.nonce) {
      // Our nonce was consumed by another transaction: ours can never be mined. Send anew under a new claim.
      await this.nonces.supersede(claim._id);
      const moved = await this.payments.update(
        rec,
        { status: 'verified', replaced_tx_hashes: [...(rec.replaced_tx_hashes ?? []), txHash] },
        ['tx_hash'],
      );
      if (expired) return expiredFail();
      const again = await this.submitNew(moved, fac);
      if (!again.ok) return again;
      throw new AttemptError(
        'settlement_replaced',
        `transaction ${txHash} was replaced; resubmitted as ${again.rec.tx_hash}`,
      );
    }
    const known = await chain.knowsTransaction(network(rec), txHash);
    // Dropped from the pool: rebroadcast the same signed transaction. Even once expired it must be
    // mined (and revert), or its claimed nonce would stay a gap that blocks every later settlement.
    if (!known && claim) await chain.sendRaw(network(rec), claim.raw_tx as Hex);
    if (expired) return expiredFail();
    throw new AttemptError(
      'settlement_pending',
      `transaction ${txHash} not mined yet${known ? '' : '; it was dropped and has been rebroadcast'}`,
    );
  }

  // ------------------------------------------------------------------ remote facilitator

  /**
   * An external facilitator settles in one call. Once it was asked, a timeout or an error may
   * hide a broadcast: every later attempt asks the chain first and never assumes nothing moved.
   */
  private async settleRemote(rec: X402PaymentDoc): Promise<Step> {
    if (rec.tx_hash) return { ok: true, rec: { ...rec, status: 'settled' } };
    const chain = this.chainFor(rec);
    if (rec.settle_requested_at && chain) {
      const decided = await this.decideOnChain(rec, chain);
      if (decided) return decided;
    }
    const asked = rec.settle_requested_at ? rec : await this.payments.update(rec, { settle_requested_at: new Date() });
    const requirements = JSON.parse(asked.requirements_json) as PaymentRequirements;
    const facilitator =
      this.deps.setup.facilitators.get(requirements.network, requirements.scheme) ?? this.deps.setup.facilitator;
    const res = await facilitator.settlePayment(JSON.parse(asked.payload_json), requirements);
    if (res.ok) {
      if (!chain)
        return {
          ok: true,
          rec: { ...asked, status: 'settled', tx_hash: res.txHash.toLowerCase(), settled_at: new Date() },
        };
      // The facilitator's word is checked like any other transaction.
      if (await chain.authorizedTransfer({ ...ref(asked), txHash: res.txHash }))
        return this.adopt(asked, chain, res.txHash);
      return this.reconcile(asked, chain);
    }
    if (chain) {
      const decided = await this.decideOnChain(asked, chain);
      if (decided) return decided;
    }
    if (FINAL.has(res.code)) return this.fail(asked, res.code, res.message);
    throw new AttemptError(res.code, `external settlement failed: ${res.message}`);
  }

  // ------------------------------------------------------------------ effect

  /** What the payment bought. Idempotent: the grant id is derived from the payment id. */
  private async applyEffect(rec: X402PaymentDoc): Promise<{ done: X402PaymentDoc; balanceAfter?: number }> {
    if (rec.status === 'completed') return { done: rec };
    const { grantId, balanceAfter } = await applyPurpose(rec, {
      ledger: this.deps.ledger,
      creditExpiryDays: this.deps.creditExpiryDays,
    });
    // One write records both the settlement and its effect.
    const done = await this.payments.update(rec, {
      status: 'completed',
      tx_hash: rec.tx_hash,
      block_number: rec.block_number,
      settled_at: rec.settled_at,
      completed_at: new Date(),
      ...(rec.reconciled ? { reconciled: true } : {}),
      ...(grantId ? { grant_id: grantId } : {}),
    });
    return { done, ...(balanceAfter !== undefined ? { balanceAfter } : {}) };
  }
}
