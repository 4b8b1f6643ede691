import type { paymentIdentifierModel } from './payment-identifier';
import type { settlementNonceModel } from './settlement-nonce';
import type { siwxNonceModel } from './siwx-nonce';
import type { x402DeliveryOutcomeModel } from './x402-delivery-outcome';
import type { x402InFlightModel } from './x402-in-flight';
import type { x402PaymentModel } from './x402-payment';

/** The models this capability owns, under the names the composition root registers them by. */
export interface PaymentsModels {
  x402Payments: ReturnType<typeof x402PaymentModel>;
  settlementNonces: ReturnType<typeof settlementNonceModel>;
  x402InFlight: ReturnType<typeof x402InFlightModel>;
  x402DeliveryOutcomes: ReturnType<typeof x402DeliveryOutcomeModel>;
  paymentIdentifiers: ReturnType<typeof paymentIdentifierModel>;
  siwxNonces: ReturnType<typeof siwxNonceModel>;
}
