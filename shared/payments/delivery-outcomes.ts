/**
 * What a payer retrying an abandoned delivery is told (a 402: pay again). The decision itself is
 * `PaymentRepository.decideDelivery` (one insert per payment) and `recordAbandoned`.
 */
export const DELIVERY_ABANDONED = {
  code: 'delivery_abandoned',
  message:
    'the paid call was interrupted before it answered (the service restarted); this authorization was never settled and nothing was charged; pay again with a new authorization',
} as const;
