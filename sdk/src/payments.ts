/**
 * The x402 extensions on the payer's side: the payment status oracle, offline verification of
 * the service's signed receipts (offer-and-receipt, EIP-712), and sign-in-with-x proofs.
 */
import { decodePaymentResponseHeader } from '@x402/core/http';
import type { PaymentRequired } from '@x402/core/types';
import {
  type EIP712SignedReceipt,
  OFFER_RECEIPT,
  type ReceiptPayload,
  verifyReceiptSignatureEIP712,
} from '@x402/extensions/offer-receipt';
import {
  type CompleteSIWxInfo,
  createSIWxMessage,
  encodeSIWxHeader,
  SIGN_IN_WITH_X,
  type SIWxExtensionInfo,
} from '@x402/extensions/sign-in-with-x';
import type { LocalAccount } from 'viem/accounts';
import type { Context } from './context';
import type { GetPaymentStatusResponse } from './generated/api-types';

export type { PaymentRequired };
export type SignedReceipt = EIP712SignedReceipt;
export type PaymentStatus = GetPaymentStatusResponse['data'];

export type ReceiptCheck = { ok: true; payload: ReceiptPayload } | { ok: false; reason: string };

/**
 * Verifies a receipt offline: its EIP-712 signature must recover to `signer` (the service's
 * receipt signer, `receiptSigner` of GET /supported, fetched once and kept), and where given, the
 * payload must name that resource, payer and transaction, and be no older than `maxAgeSeconds`.
 * A receipt altered in any field recovers to another address and is refused.
 */
export async function verifyReceipt(
  receipt: unknown,
  expect: { signer: string; resourceUrl?: string; payer?: string; transaction?: string; maxAgeSeconds?: number },
): Promise<ReceiptCheck> {
  const r = receipt as Partial<EIP712SignedReceipt> | null;
  if (!r || typeof r !== 'object' || r.format !== 'eip712' || !r.payload || typeof r.signature !== 'string')
    return { ok: false, reason: 'not an EIP-712 signed receipt' };
  let recovered: string;
  try {
    recovered = (await verifyReceiptSignatureEIP712(r as EIP712SignedReceipt)).signer;
  } catch (err) {
    return { ok: false, reason: `signature does not verify: ${err instanceof Error ? err.message : String(err)}` };
  }
  if (recovered.toLowerCase() !== expect.signer.toLowerCase())
    return { ok: false, reason: `signed by ${recovered}, not by ${expect.signer}` };
  const p = r.payload;
  if (expect.resourceUrl !== undefined && p.resourceUrl !== expect.resourceUrl)
    return { ok: false, reason: `for ${p.resourceUrl}, not ${expect.resourceUrl}` };
  if (expect.payer !== undefined && p.payer.toLowerCase() !== expect.payer.toLowerCase())
    return { ok: false, reason: `paid by ${p.payer}, not ${expect.payer}` };
  if (expect.transaction !== undefined && p.transaction.toLowerCase() !== expect.transaction.toLowerCase())
    return { ok: false, reason: `for transaction ${p.transaction}, not ${expect.transaction}` };
  if (expect.maxAgeSeconds !== undefined && Date.now() / 1000 - p.issuedAt > expect.maxAgeSeconds)
    return { ok: false, reason: `issued ${Math.round(Date.now() / 1000 - p.issuedAt)} s ago` };
  return { ok: true, payload: p };
}

/** The signed receipt a PAYMENT-RESPONSE header carries (offer-and-receipt), if any. */
export function receiptFromHeader(header: string | null | undefined): SignedReceipt | undefined {
  if (!header) return undefined;
  try {
    const settled = decodePaymentResponseHeader(header) as { extensions?: Record<string, unknown> };
    const ext = settled.extensions?.[OFFER_RECEIPT] as { info?: { receipt?: SignedReceipt } } | undefined;
    return ext?.info?.receipt;
  } catch {
    return undefined;
  }
}

/**
 * The signed receipt of a paid MCP tool result (credits or x402), where the x402 MCP transport
 * puts the settlement: `_meta["x402/payment-response"].extensions["offer-receipt"].info.receipt`.
 */
export function receiptFromMcpResult(result: { _meta?: Record<string, unknown> } | null | undefined) {
  const settled = result?._meta?.['x402/payment-response'] as { extensions?: Record<string, unknown> } | undefined;
  const ext = settled?.extensions?.[OFFER_RECEIPT] as { info?: { receipt?: SignedReceipt } } | undefined;
  return ext?.info?.receipt;
}

/**
 * A SIGN-IN-WITH-X header answering a 402's sign-in-with-x challenge: the CAIP-122 message
 * (EIP-4361 on EVM) signed EIP-191 by `account`. The challenge must be for `origin` (by default
 * the request's): a service never gets a proof it could spend elsewhere.
 */
export async function signInWithX(
  challenge: PaymentRequired,
  account: LocalAccount,
  requestUrl: string,
  origin = new URL(requestUrl).origin,
): Promise<string> {
  const ext = challenge.extensions?.[SIGN_IN_WITH_X] as
    { info: SIWxExtensionInfo; supportedChains: { chainId: string; type: string }[] } | undefined;
  if (!ext) throw new Error('the 402 challenge offers no sign-in-with-x');
  if (new URL(ext.info.uri).origin !== origin)
    throw new Error(`the challenge is for ${new URL(ext.info.uri).origin}, not ${origin}`);
  const chain = ext.supportedChains.find((c) => c.chainId.startsWith('eip155:') && c.type === 'eip191');
  if (!chain) throw new Error('the challenge offers no EVM chain to sign in on');
  const info: CompleteSIWxInfo = { ...ext.info, chainId: chain.chainId, type: 'eip191' };
  const signature = await account.signMessage({ message: createSIWxMessage(info, account.address) });
  return encodeSIWxHeader({
    domain: info.domain,
    address: account.address,
    statement: info.statement,
    uri: info.uri,
    version: info.version,
    chainId: info.chainId,
    type: 'eip191',
    nonce: info.nonce,
    issuedAt: info.issuedAt,
    expirationTime: info.expirationTime,
    resources: info.resources,
    signature,
  });
}

/** The payment status oracle and the receipt signer. */
export class Payments {
  constructor(private readonly ctx: Context) {}

  /** GET /api/external/payments/{payment_id}: pending (with its transaction once broadcast), settled, or failed with its reason. */
  async status(paymentId: string): Promise<PaymentStatus> {
    return (
      await this.ctx.send<GetPaymentStatusResponse>({
        method: 'GET',
        url: this.ctx.main(`/api/external/payments/${encodeURIComponent(paymentId)}`),
      })
    ).body.data;
  }

  /** GET /supported's `receiptSigner`: the address the service's receipts recover to. */
  async receiptSigner(): Promise<string> {
    const res = await this.ctx.send<{ receiptSigner?: string }>({ method: 'GET', url: this.ctx.main('/supported') });
    if (!res.body.receiptSigner) throw new Error('this deployment signs no receipts');
    return res.body.receiptSigner;
  }
}
