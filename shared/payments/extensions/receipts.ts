import {
  type EIP712SignedReceipt,
  OFFER_RECEIPT,
  type ReceiptPayload,
  signReceiptEIP712,
  type SignTypedDataFn,
} from '@x402/extensions/offer-receipt';
import type { Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';

export { OFFER_RECEIPT };
export type SignedReceipt = EIP712SignedReceipt;

/** What a receipt attests: who paid, for which resource, on which network, by which transaction. */
export interface ReceiptFacts {
  resourceUrl: string;
  payer: string;
  network: string;
  /** The settlement's transaction hash, or `credits:<ledger transaction id>` for a credit debit. */
  transaction: string;
  /**
   * When the payment settled: a replay of the same payment then answers the very same receipt
   * (signatures are deterministic). Defaults to now (a credit debit, issued once).
   */
  issuedAt?: Date;
}

/**
 * Signs offer-and-receipt receipts (EIP-712, the extension's domain and types) with the service's
 * key, so a payer can later prove what it paid for to anyone, offline, against the published
 * signer address. The transaction is always included: our receipts are for verifiability.
 */
export class ReceiptIssuer {
  private readonly account;
  private readonly signTypedData: SignTypedDataFn;

  constructor(privateKey: Hex) {
    this.account = privateKeyToAccount(privateKey);
    this.signTypedData = (p) => this.account.signTypedData(p as Parameters<typeof this.account.signTypedData>[0]);
  }

  /** The address every receipt recovers to (published in discovery and /supported). */
  get signer(): string {
    return this.account.address;
  }

  async issue(facts: ReceiptFacts): Promise<SignedReceipt> {
    const payload: ReceiptPayload = {
      version: 1,
      network: facts.network,
      resourceUrl: facts.resourceUrl,
      payer: facts.payer.toLowerCase(),
      issuedAt: Math.floor((facts.issuedAt ?? new Date()).getTime() / 1000),
      transaction: facts.transaction,
    };
    return { format: 'eip712', payload, signature: await signReceiptEIP712(payload, this.signTypedData) };
  }

  /** The PAYMENT-RESPONSE `extensions` entry the extension's clients read the receipt from. */
  static extension(receipt: SignedReceipt): Record<string, unknown> {
    return { [OFFER_RECEIPT]: { info: { receipt } } };
  }
}
