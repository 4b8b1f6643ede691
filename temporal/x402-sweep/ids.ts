export function settlementSweepWorkflowId(tag: string): string {
  return `x402-settlement-sweep:${tag}`;
}
