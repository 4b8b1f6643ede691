/** What a settlement is started with (its search attributes name payer, network and amount). */
export interface SettlementStart {
  paymentId: string;
  payer: string;
  network: string;
  amountBaseUnits: string;
  wallet?: string;
}

/** What the completion wrote on the payment record (dates as ISO text: the outcome travels as JSON). */
export interface SettlementCompletion {
  completedAt: string;
  settledAt?: string;
  blockNumber?: string;
  reconciled?: boolean;
}

export type SettlementOutcome =
  | {
      status: 'completed';
      txHash: string;
      grantId?: string;
      /** Lets the waiting payer be answered without reading the record again; absent from older outcomes. */
      completion?: SettlementCompletion;
      /** The credited wallet's balance as the grant wrote it; absent when this attempt did not write the grant. */
      balanceAfter?: number;
    }
  | { status: 'failed'; code: string; message: string };

/** What starting a settlement found: it `started` now, was `running`, or `closed` (it ran and ended). */
export type SettlementStartState = 'started' | 'running' | 'closed';

/**
 * The durable settlement of a verified payment, as the payment gate and the settlement sweep
 * see it. A port, so neither needs a workflow engine; temporal/x402-settlement/client.ts
 * implements it.
 */
export interface SettlementEngine {
  /** Starts the payment's settlement once (a second start finds the first). */
  start(s: SettlementStart): Promise<void>;
  /** The outcome if it arrives within waitMs, else undefined (the settlement carries on regardless). */
  await(paymentId: string, waitMs: number): Promise<SettlementOutcome | undefined>;
  /** Starts the settlement unless it exists, and says what it found. */
  ensureStarted(s: SettlementStart): Promise<SettlementStartState>;
  /** Whether a settlement exists for the payment (open or closed, within the engine's retention). */
  exists(paymentId: string): Promise<boolean>;
}
