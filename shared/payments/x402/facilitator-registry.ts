import type { PaymentFacilitator } from './facilitator-types';

/**
 * Which facilitator verifies and settles a payment, keyed by CAIP-2 network and scheme (as
 * `@x402/core`'s `register()`): `registry.register('eip155:8453', 'exact', remote).register(...)`.
 * A payment on a network/scheme nobody registered is refused (`unsupported_network`).
 */
export class FacilitatorRegistry {
  private readonly byKey = new Map<string, PaymentFacilitator>();

  register(network: string, scheme: string, facilitator: PaymentFacilitator): this {
    this.byKey.set(`${network}|${scheme}`, facilitator);
    return this;
  }

  get(network: string, scheme: string): PaymentFacilitator | undefined {
    return this.byKey.get(`${network}|${scheme}`);
  }

  /** The registered [network, scheme] pairs. */
  keys(): Array<[string, string]> {
    return [...this.byKey.keys()].map((k) => k.split('|') as [string, string]);
  }
}
