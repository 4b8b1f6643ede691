/**
 * x402 auto-pay through the official client: @x402/fetch answers a 402 challenge by signing one
 * accepted requirement (EIP-3009 through @x402/evm's exact scheme) and retrying the same request.
 */
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { appendPaymentIdentifierToExtensions, PAYMENT_IDENTIFIER } from '@x402/extensions/payment-identifier';
import { wrapFetchWithPayment, x402Client } from '@x402/fetch';
import type { LocalAccount } from 'viem/accounts';
import type { InvokeToolByIdResponse } from './generated/api-types';
import type { FetchLike } from './http';

export interface AllowedAsset {
  /** CAIP-2, e.g. eip155:84532 */
  network: `${string}:${string}`;
  /** Token contract address. */
  asset: string;
}

export interface X402Options {
  /**
   * Assets the client may pay with beyond its defaults (the official list has the real USDC
   * addresses; a local test token has to be allowed here).
   */
  allowedAssets?: AllowedAsset[];
  /**
   * The payment-identifier extension's id (16-128 of A-Z a-z 0-9 - _): the same id for the same
   * request answers the recorded result and pays nothing again, even with a new authorization.
   */
  paymentIdentifier?: string;
}

export function payingFetch(baseFetch: FetchLike, payer: LocalAccount, options: X402Options = {}): FetchLike {
  const client = new x402Client();
  registerExactEvmScheme(client, { signer: payer });
  if (options.allowedAssets?.length) client.setSpendControls({ allowedAssets: options.allowedAssets });
  const id = options.paymentIdentifier;
  if (id)
    client.registerExtension({
      key: PAYMENT_IDENTIFIER,
      enrichPaymentPayload: (payload) =>
        Promise.resolve({
          ...payload,
          extensions: appendPaymentIdentifierToExtensions(
            { [PAYMENT_IDENTIFIER]: { info: { required: false } }, ...payload.extensions },
            id,
          ),
        }),
    });
  return wrapFetchWithPayment(baseFetch as typeof fetch, client) as FetchLike;
}

/** The x402 block the service adds to a paid answer (spec: Tool invoke success envelope; the credit purchase's too). */
export type X402Receipt = NonNullable<InvokeToolByIdResponse['x402']>;
