import type { InvokeOutput } from '../../shared/tools/index';

/** The spec's Tool invoke success envelope (credits mode adds what was charged). */
export function invokeSuccessBody(out: InvokeOutput) {
  return {
    success: true as const,
    response: out.response,
    ...(out.warnings && out.warnings.length > 0 ? { warnings: out.warnings } : {}),
    credits_charged: out.credits_charged,
    transaction_id: out.transaction_id,
  };
}

export function budgetBody(b: {
  wallet: string;
  per_call_credits: number | null;
  daily_credits: number | null;
  set_by: string;
  updated_at: Date;
}) {
  return {
    success: true,
    data: {
      wallet_address: b.wallet,
      per_call_credits: b.per_call_credits,
      daily_credits: b.daily_credits,
      set_by: b.set_by,
      updated_at: b.updated_at.toISOString(),
    },
  };
}
