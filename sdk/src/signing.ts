/**
 * The signed envelope: message lines, JCS digest and the action table all come from
 * shared/signing (pure code the server verifies with), so client and server cannot drift apart.
 * This module adds only the signer: EIP-191 personal_sign through viem.
 *
 * Spread the returned envelope into the JSON body you send, and sign exactly that body:
 *   const envelope = await signRequest({ account, sessionNonce, action: 'job_complete', productId: jobId, body });
 *   await fetch(url, { method: 'POST', body: JSON.stringify({ ...body, ...envelope }) });
 */
import type { Hex } from 'viem';
import { type LocalAccount, privateKeyToAccount } from 'viem/accounts';
import {
  buildSignedMessage,
  productPathParams,
  type RequestFields,
  type SignedAction,
  signedActionParts,
  type SignedEnvelope,
  signedPayload,
  toolInvokeByIdParts,
  toolInvokeParts,
} from '../../shared/identity/signing';

export type { SignedAction, SignedEnvelope } from '../../shared/identity/signing';

/** A 0x-prefixed private key or any viem local account (private key, HD, or custom signer). */
export type AgentSigner = Hex | LocalAccount;

export function toAccount(signer: AgentSigner): LocalAccount {
  return typeof signer === 'string' ? privateKeyToAccount(signer) : signer;
}

/** What a signature is bound to: a named action (with its product id), or the path of a credits-mode tool invoke. */
export type SignTarget =
  | { kind: 'action'; action: SignedAction; productId?: string }
  | { kind: 'tool'; productSlug: string; actionSlug: string }
  | { kind: 'tool_by_id'; productId: string };

export interface SignInput {
  account: AgentSigner;
  sessionNonce: string;
  target: SignTarget;
  body?: RequestFields;
  /** Unique per request; defaults to a random UUID. */
  requestId?: string;
}

/** The message text for `input` (what signEnvelope signs); exposed for debugging signatures. */
export function messageFor(input: SignInput & { requestId: string }): string {
  const context = {
    wallet: toAccount(input.account).address,
    sessionNonce: input.sessionNonce,
    requestId: input.requestId,
  };
  const t = input.target;
  if (t.kind === 'action') {
    const { product, payloadObject } = signedActionParts(
      t.action,
      input.body,
      productPathParams(t.action, t.productId),
    );
    return buildSignedMessage({
      ...context,
      kind: 'action',
      action: t.action,
      product,
      payload: signedPayload(payloadObject),
    });
  }
  const { method, path, payloadObject } =
    t.kind === 'tool'
      ? toolInvokeParts(t.productSlug, t.actionSlug, input.body)
      : toolInvokeByIdParts(t.productId, input.body);
  return buildSignedMessage({ ...context, kind: 'path', method, path, payload: signedPayload(payloadObject) });
}

export async function signEnvelope(input: SignInput): Promise<SignedEnvelope> {
  const account = toAccount(input.account);
  const requestId = input.requestId ?? globalThis.crypto.randomUUID();
  const signature = await account.signMessage({ message: messageFor({ ...input, requestId }) });
  return { wallet_address: account.address, session_nonce: input.sessionNonce, request_id: requestId, signature };
}

// The helpers the first SDK had (sdk/agent-client.ts re-exports them), on top of signEnvelope.

export interface SignRequestInput {
  account: AgentSigner;
  sessionNonce: string;
  action: SignedAction;
  /** The job or workflow id in the route (`<jobId>/<workflowId>` for job workflow update and publish); omit for actions without one. */
  productId?: string;
  body?: RequestFields;
  requestId?: string;
}

export function signRequest(input: SignRequestInput): Promise<SignedEnvelope> {
  return signEnvelope({ ...input, target: { kind: 'action', action: input.action, productId: input.productId } });
}

export interface SignToolInvokeInput {
  account: AgentSigner;
  sessionNonce: string;
  productSlug: string;
  actionSlug: string;
  parameters?: object;
  requestId?: string;
}

/** Credits-mode tool invoke: POST /external/tools/<productSlug>/actions/<actionSlug>/invoke with { parameters }. */
export function signToolInvoke(input: SignToolInvokeInput): Promise<SignedEnvelope> {
  return signEnvelope({
    ...input,
    body: { parameters: input.parameters },
    target: { kind: 'tool', productSlug: input.productSlug, actionSlug: input.actionSlug },
  });
}

export interface SignToolInvokeByIdInput {
  account: AgentSigner;
  sessionNonce: string;
  productId: string;
  parameters?: object;
  requestId?: string;
}

/** Credits-mode invoke by product id: POST /external/tools/<productId>/invoke with { parameters } (path form). */
export function signToolInvokeById(input: SignToolInvokeByIdInput): Promise<SignedEnvelope> {
  return signEnvelope({
    ...input,
    body: { parameters: input.parameters },
    target: { kind: 'tool_by_id', productId: input.productId },
  });
}
