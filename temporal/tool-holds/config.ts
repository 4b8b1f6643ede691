export const TOOLS_QUEUE = 'tools-v1';
export const HOLD_HEAL_SCHEDULE_ID = 'tool-hold-healer';
export const HOLD_HEAL_EVERY = '1 minute';
export const HOLD_HEAL_BATCH = 100;
export const HOLD_HEAL_TIMEOUTS = { startToCloseTimeout: '1 minute' } as const;
export const HOLD_HEAL_RETRY = {
  initialInterval: '1 second',
  backoffCoefficient: 2,
  maximumInterval: '1 minute',
  maximumAttempts: 20,
} as const;
