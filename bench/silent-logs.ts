// Imported first by run.ts: shared/logger reads LOG_LEVEL when it loads.
process.env.LOG_LEVEL ??= 'silent';
export {};
