/** The activity of bench/temporal-floor-workflows.ts: returns at once. */
export async function noop(): Promise<void> {}
