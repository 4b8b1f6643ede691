/** A payment's identity: the same signed authorization always maps to the same id (and workflow id). */
export function paymentId(parts: { network: string; asset: string; payer: string; nonce: string }): string {
  return [parts.network, parts.asset, parts.payer, parts.nonce].map((p) => p.toLowerCase()).join(':');
}
