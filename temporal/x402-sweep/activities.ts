import type { Models } from '../../shared/composition/models';
import { decideDelivery, DELIVERY_ABANDONED, recordAbandoned } from '../../shared/payments/delivery-outcomes';
import type { X402PaymentDoc } from '../../shared/payments/models/x402-payment';
import { purposeWallet } from '../../shared/payments/purposes';
import { logger } from '../../shared/platform/logger/index';
import type { TemporalHandle } from '../connection';
import { ensureSettlementStarted, settlementExists } from '../x402-settlement/client';

export interface SweepDeps {
  models: Pick<Models, 'x402Payments' | 'x402DeliveryOutcomes'>;
  temporal: TemporalHandle;
  /** A payment `delivering` this long is taken for a delivery whose process died (X402_DELIVERING_STALE_SECONDS). */
  deliveringStaleSeconds: number;
}

/** What the sweep did with one stale payment. */
export type SweepAction = 'started' | 'running' | 'closed' | 'skipped';
/** What the sweep did with one stale delivery. */
export type DeliveryAction = 'abandoned' | 'delivered' | 'settling' | 'skipped';

export function createSweepActivities(deps: SweepDeps) {
  const records = deps.models.x402Payments;
  return {
    /** Verified payments older than `staleSeconds` at `nowIso`, oldest first. */
    async findStalePayments(nowIso: string, staleSeconds: number, limit: number): Promise<string[]> {
      const before = new Date(new Date(nowIso).getTime() - staleSeconds * 1000);
      const stale = await records
        .find({ status: 'verified', created_at: { $lt: before } }, { _id: 1 })
        .sort({ created_at: 1 })
        .limit(limit)
        .lean<Array<Pick<X402PaymentDoc, '_id'>>>()
        .exec();
      return stale.map((r) => r._id);
    },

    /**
     * Starts the payment's settlement if it never started (Temporal was down when it was paid).
     * The settlement decides the rest: it settles, reconciles, or fails an expired
     * authorization with `authorization_expired_unsettled`, visibly in the Temporal UI.
     */
    async startStaleSettlement(paymentId: string): Promise<SweepAction> {
      const rec = await records.findById(paymentId).lean<X402PaymentDoc>().exec();
      if (!rec || rec.status !== 'verified') return 'skipped';
      const state = await ensureSettlementStarted(deps.temporal, {
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
    },

    /** Payments still `delivering` (a paid call in progress) past the configured age at `nowIso`, oldest first. */
    async findStaleDeliveries(nowIso: string, limit: number): Promise<string[]> {
      const before = new Date(new Date(nowIso).getTime() - deps.deliveringStaleSeconds * 1000);
      const stale = await records
        .find({ status: 'delivering', created_at: { $lt: before } }, { _id: 1 })
        .sort({ created_at: 1 })
        .limit(limit)
        .lean<Array<Pick<X402PaymentDoc, '_id'>>>()
        .exec();
      return stale.map((r) => r._id);
    },

    /**
     * Abandons a delivery whose process died mid-call (no money moved: a delivering payment is
     * settled only once delivered): recorded failed, so the payer's retry of the authorization
     * gets a clear 402 and its in-flight claim stops counting. Never when a settlement workflow
     * exists for it, and never against a delivery recorded first (one insert decides).
     */
    async abandonStaleDelivery(paymentId: string): Promise<DeliveryAction> {
      const rec = await records.findById(paymentId, { status: 1 }).lean<Pick<X402PaymentDoc, 'status'>>().exec();
      if (!rec || rec.status !== 'delivering') return 'skipped';
      if (await settlementExists(deps.temporal, paymentId)) return 'settling';
      if ((await decideDelivery(deps.models, paymentId, 'abandoned')) === 'delivered') return 'delivered';
      await recordAbandoned(deps.models, paymentId, DELIVERY_ABANDONED.code, DELIVERY_ABANDONED.message);
      logger.warn('abandoned a paid call left delivering; nothing was settled', {
        payment_id: paymentId,
        code: DELIVERY_ABANDONED.code,
      });
      return 'abandoned';
    },
  };
}

export type SweepActivities = ReturnType<typeof createSweepActivities>;
