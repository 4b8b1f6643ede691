import { logger } from '../platform/logger/index';
import { DELIVERY_ABANDONED } from './delivery-outcomes';
import type { PaymentRepository } from './payment-repository';
import { purposeWallet } from './purposes';
import type { SettlementEngine, SettlementStartState } from './settlement-engine';

export interface SettlementSweepDeps {
  payments: PaymentRepository;
  settlements: Pick<SettlementEngine, 'ensureStarted' | 'exists'>;
  /** A payment `delivering` this long is taken for a delivery whose process died (X402_DELIVERING_STALE_SECONDS). */
  deliveringStaleSeconds: number;
}

/** What the sweep did with one stale payment. */
export type SweepAction = SettlementStartState | 'skipped';
/** What the sweep did with one stale delivery. */
export type DeliveryAction = 'abandoned' | 'delivered' | 'settling' | 'skipped';

/**
 * Payments verified but never settled (the workflow engine was unreachable when they came) get
 * their settlement started; paid calls left `delivering` by a process that died mid-call are
 * abandoned (never settled). Each step reads the record again, so a retry or a second sweep is harmless.
 */
export class SettlementSweep {
  constructor(private readonly deps: SettlementSweepDeps) {}

  /** Verified payments older than `staleSeconds` at `now`, oldest first. */
  findStalePayments(now: Date, staleSeconds: number, limit: number): Promise<string[]> {
    return this.deps.payments.idsInStateBefore('verified', new Date(now.getTime() - staleSeconds * 1000), limit);
  }

  /**
   * Starts the payment's settlement if it never started. The settlement decides the rest: it
   * settles, reconciles, or fails an expired authorization with `authorization_expired_unsettled`.
   */
  async startStaleSettlement(paymentId: string): Promise<SweepAction> {
    const rec = await this.deps.payments.byId(paymentId);
    if (!rec || rec.status !== 'verified') return 'skipped';
    const state = await this.deps.settlements.ensureStarted({
      paymentId: rec._id,
      payer: rec.payer,
      network: rec.network,
      amountBaseUnits: rec.amount_base_units,
      wallet: purposeWallet(rec.purpose),
    });
    if (state === 'closed') {
      logger.warn('stale payment has a closed settlement workflow; needs an operator', {
        payment_id: paymentId,
        code: 'settlement_closed_unfinished',
      });
    }
    return state;
  }

  /** Payments still `delivering` (a paid call in progress) past the configured age at `now`, oldest first. */
  findStaleDeliveries(now: Date, limit: number): Promise<string[]> {
    const before = new Date(now.getTime() - this.deps.deliveringStaleSeconds * 1000);
    return this.deps.payments.idsInStateBefore('delivering', before, limit);
  }

  /**
   * Abandons a delivery whose process died mid-call (no money moved: a delivering payment is
   * settled only once delivered): recorded failed, so the payer's retry of the authorization
   * gets a clear 402 and its in-flight claim stops counting. Never when a settlement exists for
   * it, and never against a delivery recorded first (one insert decides).
   */
  async abandonStaleDelivery(paymentId: string): Promise<DeliveryAction> {
    const { payments } = this.deps;
    if ((await payments.stateOf(paymentId)) !== 'delivering') return 'skipped';
    if (await this.deps.settlements.exists(paymentId)) return 'settling';
    if ((await payments.decideDelivery(paymentId, 'abandoned')) === 'delivered') return 'delivered';
    await payments.recordAbandoned(paymentId, DELIVERY_ABANDONED.code, DELIVERY_ABANDONED.message);
    logger.warn('abandoned a paid call left delivering; nothing was settled', {
      payment_id: paymentId,
      code: DELIVERY_ABANDONED.code,
    });
    return 'abandoned';
  }
}
