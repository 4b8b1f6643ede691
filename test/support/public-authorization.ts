import { eip3009ABI } from '@x402/evm';
import type { PaymentPayload, PaymentRequired } from '@x402/fetch';
import { createPublicClient, decodeFunctionData, type Hex, http, serializeSignature } from 'viem';
import { generatePrivateKey, type LocalAccount } from 'viem/accounts';
import { signInWithX } from '../../sdk/src/payments';
import { encodePaymentPayload } from '../../shared/payments/x402/challenge';
import { viemChain } from '../../shared/payments/x402/networks';
import { TestPayer } from './payer';

/**
 * What anyone can do once a payment settled: read its `transferWithAuthorization(from, to, value,
 * validAfter, validBefore, nonce, v, r, s)` call from the chain and rebuild the x402 payment
 * header (the requirements are public in the 402). No key of the payer is used.
 */
export async function rebuildPaymentFromChain(txHash: string, challenge: PaymentRequired): Promise<string> {
  const client = createPublicClient({
    chain: viemChain(84532, TestPayer.rpcUrl()),
    transport: http(TestPayer.rpcUrl()),
  });
  const tx = await client.getTransaction({ hash: txHash as Hex });
  const { functionName, args } = decodeFunctionData({ abi: eip3009ABI, data: tx.input });
  if (functionName !== 'transferWithAuthorization' || args.length !== 9)
    throw new Error(`transaction ${txHash} is not a (v, r, s) transferWithAuthorization`);
  const [from, to, value, validAfter, validBefore, nonce, v, r, s] = args as unknown as [
    Hex,
    Hex,
    bigint,
    bigint,
    bigint,
    Hex,
    number,
    Hex,
    Hex,
  ];
  const payload = {
    x402Version: 2,
    resource: challenge.resource,
    accepted: challenge.accepts[0]!,
    payload: {
      authorization: {
        from,
        to,
        value: value.toString(),
        validAfter: validAfter.toString(),
        validBefore: validBefore.toString(),
        nonce,
      },
      signature: serializeSignature({ r, s, v: BigInt(v) }),
    },
  } as unknown as PaymentPayload;
  return encodePaymentPayload(payload);
}

/**
 * A header that names `victim` as the payer but is signed by somebody else (a fresh key): it never
 * verifies. `nonce` lets it reuse one of the victim's public authorization nonces.
 */
export async function junkPaymentFor(
  victim: string,
  challenge: PaymentRequired,
  opts: { nonce?: Hex; extensions?: Record<string, unknown> } = {},
): Promise<string> {
  const stranger = new TestPayer(generatePrivateKey());
  const payload = (await stranger.client().createPaymentPayload(challenge)) as PaymentPayload & {
    payload: { authorization: { from: string; nonce: string } };
  };
  payload.payload.authorization.from = victim;
  if (opts.nonce) payload.payload.authorization.nonce = opts.nonce;
  if (opts.extensions) payload.extensions = { ...payload.extensions, ...opts.extensions };
  return encodePaymentPayload(payload);
}

/**
 * A SIGN-IN-WITH-X header answering the `extensions["sign-in-with-x"]` of a status answer (or of a
 * 402), signed by `account` (the payer, or anyone else) with the SDK's signer, for the service's
 * public origin.
 */
export function proofFrom(
  answer: { extensions?: Record<string, unknown> },
  account: LocalAccount,
  publicBaseUrl: string,
): Promise<string> {
  const origin = new URL(publicBaseUrl).origin;
  return signInWithX(answer as PaymentRequired, account, origin, origin);
}

/** The SIWX payload object a header carries (MCP's `_meta["sign-in-with-x"]`). */
export function proofPayload(header: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(header, 'base64').toString('utf8')) as Record<string, unknown>;
}
