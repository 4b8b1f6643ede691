// A stored payment as presenters see it, without importing the model.
export type { PaymentPurpose, X402PaymentDoc, X402PaymentState } from './models/x402-payment';
export { X402_PAYMENT_STATES } from './models/x402-payment';
