import type { Hex } from 'viem';
import { insertOnce } from '../platform/db/index';
import type { PaymentsModels as Models } from './models/index';
import type { SettlementNonceDoc } from './models/settlement-nonce';

export type NonceClaim = SettlementNonceDoc;

/**
 * Account nonces of a settlement key, decided once in the store for every worker process
 * (viem's nonce manager only knows its own process). A claim is an insert under
 * `<chain key>:<address>:<nonce>`; the loser of a race takes the next number.
 */
export class NonceClaims {
  constructor(private readonly models: Pick<Models, 'settlementNonces'>) {}

  /** The payment's live claim (the newest not superseded), if it has one. */
  async forPayment(paymentId: string): Promise<NonceClaim | null> {
    return this.models.settlementNonces
      .findOne({ payment_id: paymentId, superseded: { $ne: true } })
      .sort({ nonce: -1 })
      .lean<NonceClaim>()
      .exec();
  }

  async highest(chainKey: string, address: string): Promise<number | undefined> {
    const top = await this.models.settlementNonces
      .findOne({ chain_key: chainKey, address: address.toLowerCase() })
      .sort({ nonce: -1 })
      .lean<NonceClaim>()
      .exec();
    return top?.nonce;
  }

  /**
   * Claims the lowest free nonce at or above `chainNext` (the chain's pending nonce) and above
   * every claim made so far, signing the transaction for it before the insert so a claim always
   * carries what to broadcast. `top`: highest() as the caller just read it, for the first try
   * (a stale one only costs a refused insert and a fresh read).
   */
  async claim(input: {
    chainKey: string;
    address: string;
    paymentId: string;
    chainNext: number;
    top?: number | undefined;
    sign: (nonce: number) => Promise<{ raw: Hex; txHash: Hex }>;
    now?: Date;
  }): Promise<NonceClaim> {
    const address = input.address.toLowerCase();
    for (let attempt = 0; attempt < 100; attempt++) {
      const top = attempt === 0 && 'top' in input ? input.top : await this.highest(input.chainKey, address);
      const nonce = Math.max(input.chainNext, top === undefined ? 0 : top + 1);
      const { raw, txHash } = await input.sign(nonce);
      const doc: NonceClaim = {
        _id: `${input.chainKey}:${address}:${nonce}`,
        chain_key: input.chainKey,
        address,
        nonce,
        payment_id: input.paymentId,
        tx_hash: txHash.toLowerCase(),
        raw_tx: raw,
        created_at: input.now ?? new Date(),
      };
      if (await insertOnce(this.models.settlementNonces, doc)) return doc;
    }
    throw new Error(`could not claim a nonce for ${address} on ${input.chainKey} after 100 tries`);
  }

  /** The claim's nonce was consumed by another transaction: the payment needs a new claim. */
  async supersede(claimId: string): Promise<void> {
    await this.models.settlementNonces.updateOne({ _id: claimId }, { $set: { superseded: true } }).exec();
  }
}
