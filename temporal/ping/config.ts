export const PING_QUEUE = 'system-v1';
export const PING_TIMEOUTS = { startToCloseTimeout: '10 seconds', scheduleToCloseTimeout: '1 minute' } as const;
