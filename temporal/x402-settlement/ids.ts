export function settlementWorkflowId(paymentId: string): string {
  return `x402-settlement:${paymentId}`;
}
