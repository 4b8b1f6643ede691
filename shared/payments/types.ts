// A stored payment as presenters see it, without importing the model.
export type { PaymentPurpose, X402PaymentDoc } from './models/x402-payment';
