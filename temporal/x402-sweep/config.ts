import { SETTLEMENT_QUEUE } from '../x402-settlement/config';

/** The sweep runs beside the settlements it starts (the queue with x402 configured). */
export const SWEEP_QUEUE = SETTLEMENT_QUEUE;
export const SWEEP_SCHEDULE_ID = 'x402-settlement-sweep';
export const SWEEP_EVERY = '1 minute';
export const SWEEP_BATCH = 100;
/** A verified payment older than this with no settlement running is stale (X402_SWEEP_STALE_SECONDS). */
export const DEFAULT_STALE_SECONDS = 120;
export const SWEEP_TIMEOUTS = { startToCloseTimeout: '30 seconds' } as const;
