import { ApplicationFailure } from '@temporalio/activity';
import { ApplicationFailureCategory } from '@temporalio/common';
import {
  PaymentRecordMissing,
  type PaymentSettlement,
  SettlementAttemptFailed,
} from '../../shared/payments/settlement';
import type { SettlementOutcome } from '../../shared/payments/settlement-engine';

/** The settlement use case, built by the composition root over the process's repositories. */
export interface SettlementActivityDeps {
  settlement: Pick<PaymentSettlement, 'settle'>;
}

export type { SettlementOutcome };

/** The use case's refusals as Temporal failures: a missing record is final, an undecided attempt retried. */
function asFailure(err: unknown): unknown {
  if (err instanceof PaymentRecordMissing) return ApplicationFailure.nonRetryable(err.message, err.code);
  // A failure without viem's error (ABI, calldata, RPC URL with its key) in the workflow history;
  // BENIGN keeps the SDK's own line at debug (the use case logged one short line).
  if (err instanceof SettlementAttemptFailed)
    return ApplicationFailure.create({
      message: `${err.code}: ${err.message}`,
      type: err.code,
      category: ApplicationFailureCategory.BENIGN,
    });
  return err;
}

/** Settles one verified payment (shared/payments/settlement.ts): submit, confirm, apply what it bought. */
export function createSettlementActivities({ settlement }: SettlementActivityDeps) {
  return {
    async settlePayment(id: string): Promise<SettlementOutcome> {
      try {
        return await settlement.settle(id);
      } catch (err) {
        throw asFailure(err);
      }
    },
  };
}

export type SettlementActivities = ReturnType<typeof createSettlementActivities>;
