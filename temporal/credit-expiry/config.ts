export const CREDITS_QUEUE = 'credits-v1';
export const EXPIRY_SCHEDULE_ID = 'credit-expiry-sweep';
export const EXPIRY_SWEEP_EVERY = '5 minutes';
export const EXPIRY_BATCH = 100;
export const EXPIRY_TIMEOUTS = { startToCloseTimeout: '1 minute' } as const;
