/** What a verified payment expects to receive; all as stored on the payment record. */
export interface ExpectedTransfer {
  asset: string;
  payer: string;
  pay_to: string;
  amount_base_units: string;
}

/** A Transfer decoded from the chain. */
export interface ObservedTransfer {
  asset: string;
  from: string;
  to: string;
  value: string;
}

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/**
 * Whether a transaction that used the payer's authorization paid us what was verified: the
 * verified asset, from the payer, to our pay_to, exactly the verified amount. Anything else
 * (the payer front-ran us with another authorization under the same nonce) grants nothing.
 */
export function isOurTransfer(expected: ExpectedTransfer, observed: ObservedTransfer | undefined): boolean {
  if (!observed) return false;
  return (
    same(observed.asset, expected.asset) &&
    same(observed.from, expected.payer) &&
    same(observed.to, expected.pay_to) &&
    BigInt(observed.value) === BigInt(expected.amount_base_units)
  );
}
