import { type FacilitatorConfig, HTTPFacilitatorClient } from '@x402/core/http';
import type { PaymentRequirements, SettleError, SettleResponse, VerifyError, VerifyResponse } from '@x402/core/types';
import { type PaymentFacilitator, type SettleResult, type VerifyResult } from './facilitator-types';
import { type NetworkTable, SUPPORTED_NETWORKS } from './networks';
import { checkPaymentAgainstRequirements, settleOutcome, verifiedResult, verifyFailure } from './payment-checks';

export interface RemoteFacilitatorConfig {
  url: string;
  networks?: NetworkTable;
  timeoutMs?: number;
  createAuthHeaders?: FacilitatorConfig['createAuthHeaders'];
}

/** By name: @x402/core bundles a separate copy of these classes per entry point, so instanceof fails. */
function isNamedError<E extends Error>(err: unknown, name: string): err is E {
  return err instanceof Error && err.name === name;
}

/** An external x402 facilitator over HTTP (@x402/core's client), behind the same interface. */
export function createRemoteFacilitator(config: RemoteFacilitatorConfig): PaymentFacilitator {
  const table = config.networks ?? SUPPORTED_NETWORKS;
  const client = new HTTPFacilitatorClient({
    url: config.url,
    ...(config.timeoutMs ? { timeoutMs: config.timeoutMs } : {}),
    ...(config.createAuthHeaders ? { createAuthHeaders: config.createAuthHeaders } : {}),
  });

  async function verifyPayment(payload: unknown, requirements: PaymentRequirements): Promise<VerifyResult> {
    const checked = checkPaymentAgainstRequirements(payload, requirements, table);
    if (!checked.ok) return checked;
    const payer = checked.checked.request.authorization.from;
    let response: VerifyResponse;
    try {
      response = await client.verify(checked.checked.payload, requirements);
    } catch (err) {
      if (!isNamedError<VerifyError>(err, 'VerifyError')) throw err;
      response = { isValid: false, invalidReason: err.invalidReason, invalidMessage: err.invalidMessage };
    }
    if (!response.isValid) return verifyFailure(response, payer);
    return verifiedResult(checked.checked);
  }

  async function settlePayment(payload: unknown, requirements: PaymentRequirements): Promise<SettleResult> {
    const checked = checkPaymentAgainstRequirements(payload, requirements, table);
    if (!checked.ok) return checked;
    const { request } = checked.checked;
    let response: SettleResponse;
    try {
      response = await client.settle(checked.checked.payload, requirements);
    } catch (err) {
      if (!isNamedError<SettleError>(err, 'SettleError')) throw err;
      response = {
        success: false,
        errorReason: err.errorReason,
        errorMessage: err.errorMessage,
        transaction: err.transaction,
        network: err.network,
      };
    }
    return settleOutcome(response, request.authorization.from, request.network);
  }

  return { kind: 'remote', verifyPayment, settlePayment };
}
