/** A payment's identity: the same signed authorization always maps to the same id (and workflow id). */
export function paymentId(parts: { network: string; asset: string; payer: string; nonce: string }): string {
  return [parts.network, parts.asset, parts.payer, parts.nonce].map((p) => p.toLowerCase()).join(':');
}

/** The id of the payment a (shape-checked) payload carries: its accepted network and asset, its authorization's payer and nonce. */
export function payloadPaymentId(p: {
  accepted: { network: string; asset: string };
  payload: { authorization: { from: string; nonce: string } };
}): string {
  return paymentId({
    network: p.accepted.network,
    asset: p.accepted.asset,
    payer: p.payload.authorization.from,
    nonce: p.payload.authorization.nonce,
  });
}
