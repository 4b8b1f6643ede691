export function expirySweepWorkflowId(tag: string): string {
  return `credit-expiry-sweep:${tag}`;
}
