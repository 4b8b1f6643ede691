import type { DeliveryAction, SettlementSweep, SweepAction } from '../../shared/payments/settlement-sweep';

/** The sweep's use case, built by the composition root over the process's repositories and engines. */
export interface SweepActivityDeps {
  sweep: SettlementSweep;
}

export type { DeliveryAction, SweepAction };

/** The settlement sweep's steps (shared/payments/settlement-sweep.ts); times travel as ISO text. */
export function createSweepActivities({ sweep }: SweepActivityDeps) {
  return {
    /** Verified payments older than `staleSeconds` at `nowIso`, oldest first. */
    findStalePayments(nowIso: string, staleSeconds: number, limit: number): Promise<string[]> {
      return sweep.findStalePayments(new Date(nowIso), staleSeconds, limit);
    },
    /** Starts the payment's settlement if it never started (Temporal was down when it was paid). */
    startStaleSettlement(paymentId: string): Promise<SweepAction> {
      return sweep.startStaleSettlement(paymentId);
    },
    /** Payments still `delivering` past the configured age at `nowIso`, oldest first. */
    findStaleDeliveries(nowIso: string, limit: number): Promise<string[]> {
      return sweep.findStaleDeliveries(new Date(nowIso), limit);
    },
    /** Abandons a delivery whose process died mid-call (never settled, nothing charged). */
    abandonStaleDelivery(paymentId: string): Promise<DeliveryAction> {
      return sweep.abandonStaleDelivery(paymentId);
    },
  };
}

export type SweepActivities = ReturnType<typeof createSweepActivities>;
