/**
 * Signing helper for agents calling the external API. Spread the returned
 * envelope into the JSON body you send (every signed endpoint takes a JSON body,
 * job_list included: POST /api/external/jobs/list with {limit, skip}):
 *
 *   const envelope = await signRequest({ account: privateKey, sessionNonce, action: 'job_complete',
 *     productId: jobId, body });
 *   await fetch(url, { method: 'POST', body: JSON.stringify({ ...body, ...envelope }) });
 *
 * Sign exactly the body you send; a field added or changed afterwards breaks the signature.
 */
import type { Hex } from 'viem';
import { privateKeyToAccount, type LocalAccount } from 'viem/accounts';
import {
  buildSignedMessage,
  productPathParams,
  signedActionParts,
  signedPayload,
  toolInvokeByIdParts,
  toolInvokeParts,
  type RequestFields,
  type SignedAction,
  type SignedEnvelope,
} from '../shared/signing';

/** A 0x-prefixed private key or any viem local account (private key, HD, or custom signer). */
export type AgentSigner = Hex | LocalAccount;

export interface SignRequestInput {
  account: AgentSigner;
  sessionNonce: string;
  action: SignedAction;
  /** The job or workflow id in the route (`<jobId>/<workflowId>` for job workflow update and publish); omit for actions without one. */
  productId?: string;
  body?: RequestFields;
  /** Unique per request; defaults to a random UUID. */
  requestId?: string;
}

export async function signRequest(input: SignRequestInput): Promise<SignedEnvelope> {
  const { product, payloadObject } = signedActionParts(
    input.action,
    input.body,
    productPathParams(input.action, input.productId),
  );
  return signEnvelope(input.account, input.sessionNonce, input.requestId, (context) =>
    buildSignedMessage({ ...context, kind: 'action', action: input.action, product, payload: signedPayload(payloadObject) }),
  );
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
export async function signToolInvoke(input: SignToolInvokeInput): Promise<SignedEnvelope> {
  const { method, path, payloadObject } = toolInvokeParts(input.productSlug, input.actionSlug, {
    parameters: input.parameters,
  });
  return signEnvelope(input.account, input.sessionNonce, input.requestId, (context) =>
    buildSignedMessage({ ...context, kind: 'path', method, path, payload: signedPayload(payloadObject) }),
  );
}

export interface SignToolInvokeByIdInput {
  account: AgentSigner;
  sessionNonce: string;
  productId: string;
  parameters?: object;
  requestId?: string;
}

/** Credits-mode invoke by product id: POST /external/tools/<productId>/invoke with { parameters } (path form). */
export async function signToolInvokeById(input: SignToolInvokeByIdInput): Promise<SignedEnvelope> {
  const { method, path, payloadObject } = toolInvokeByIdParts(input.productId, { parameters: input.parameters });
  return signEnvelope(input.account, input.sessionNonce, input.requestId, (context) =>
    buildSignedMessage({ ...context, kind: 'path', method, path, payload: signedPayload(payloadObject) }),
  );
}

interface MessageContext {
  wallet: string;
  sessionNonce: string;
  requestId: string;
}

async function signEnvelope(
  signer: AgentSigner,
  sessionNonce: string,
  requestId: string | undefined,
  buildMessage: (context: MessageContext) => string,
): Promise<SignedEnvelope> {
  const account = typeof signer === 'string' ? privateKeyToAccount(signer) : signer;
  const context = { wallet: account.address, sessionNonce, requestId: requestId ?? globalThis.crypto.randomUUID() };
  const signature = await account.signMessage({ message: buildMessage(context) });
  return {
    wallet_address: account.address,
    session_nonce: context.sessionNonce,
    request_id: context.requestId,
    signature,
  };
}
