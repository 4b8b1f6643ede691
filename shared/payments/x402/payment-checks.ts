import { PaymentPayloadV2Schema } from '@x402/core/schemas';
import type { PaymentPayload, PaymentRequirements, SettleResponse, VerifyResponse } from '@x402/core/types';
import { type Address, getAddress, type Hex, isAddress } from 'viem';
import { stripUrls } from './chain-errors';
import {
  type Eip3009Authorization,
  type Failure,
  type SettleFailureCode,
  type SettlementRequest,
  type SettleResult,
  VERIFY_FAILURE_CODES,
  type VerifyFailureCode,
  type VerifyResult,
} from './facilitator-types';
import { type CaipNetwork, chainIdOf, findTokenByAddress, type NetworkTable, SUPPORTED_NETWORKS } from './networks';

/** @x402/evm `exact` invalid/error reasons (their exported constant values) onto our codes. */
const PACKAGE_REASON_CODES: Readonly<Record<string, SettleFailureCode>> = {
  invalid_exact_evm_scheme: 'unsupported_scheme',
  unsupported_payload_type: 'unsupported_transfer_method',
  invalid_exact_evm_network_mismatch: 'network_mismatch',
  invalid_exact_evm_missing_eip712_domain: 'token_domain_mismatch',
  invalid_exact_evm_token_name_mismatch: 'token_domain_mismatch',
  invalid_exact_evm_token_version_mismatch: 'token_domain_mismatch',
  invalid_exact_evm_recipient_mismatch: 'pay_to_mismatch',
  invalid_exact_evm_signature: 'invalid_signature',
  invalid_exact_evm_failed_to_parse_signature: 'invalid_signature',
  invalid_exact_evm_payload_authorization_valid_before: 'authorization_expired',
  invalid_exact_evm_payload_authorization_valid_after: 'authorization_not_yet_valid',
  invalid_exact_evm_authorization_value: 'amount_mismatch',
  invalid_exact_evm_payload_authorization_value_mismatch: 'amount_mismatch',
  invalid_exact_evm_nonce_already_used: 'nonce_already_used',
  invalid_exact_evm_insufficient_balance: 'insufficient_balance',
  invalid_exact_evm_eip3009_not_supported: 'asset_not_supported',
  asset_not_deployed_contract: 'asset_not_supported',
  invalid_exact_evm_transaction_simulation_failed: 'simulation_failed',
  eip6492_factory_not_allowed: 'smart_wallet_not_supported',
  smart_wallet_deployment_failed: 'smart_wallet_not_supported',
  invalid_exact_evm_transaction_failed: 'settlement_reverted',
  invalid_exact_evm_transfer_event_mismatch: 'settlement_failed',
  invalid_transaction_state: 'settlement_failed',
  settlement_pending: 'settlement_pending',
};

export function codeForPackageReason(reason: string | undefined, fallback: SettleFailureCode): SettleFailureCode {
  if (!reason) return fallback;
  return PACKAGE_REASON_CODES[reason] ?? PACKAGE_REASON_CODES[reason.split(':')[0]!.trim()] ?? fallback;
}

/** FiatTokenV2 / ERC-20 revert strings onto our codes (the same texts LocalStablecoin uses). */
export function codeForRevert(message: string): SettleFailureCode {
  if (/authorization is used or canceled/i.test(message)) return 'nonce_already_used';
  if (/authorization is expired/i.test(message)) return 'authorization_expired';
  if (/authorization is not yet valid/i.test(message)) return 'authorization_not_yet_valid';
  if (/invalid signature/i.test(message)) return 'invalid_signature';
  if (/exceeds balance/i.test(message)) return 'insufficient_balance';
  return 'settlement_reverted';
}

// ------------------------------------------------------------------ payload checks (no chain)

interface CheckedPayment {
  payload: PaymentPayload;
  chainId: number;
  request: SettlementRequest;
}

const UINT_STRING = /^(0|[1-9][0-9]{0,77})$/;
const BYTES32 = /^0x[0-9a-fA-F]{64}$/;
const HEX = /^0x(?:[0-9a-fA-F]{2})+$/;

export function fail<C extends string>(code: C, message: string, payer?: Address): Failure<C> {
  return payer ? { ok: false, code, message, payer } : { ok: false, code, message };
}

function parseAuthorization(raw: unknown): { authorization: Eip3009Authorization; signature: Hex } | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const { authorization: a, signature } = raw as { authorization?: Record<string, unknown>; signature?: unknown };
  if (typeof a !== 'object' || a === null || typeof signature !== 'string' || !HEX.test(signature)) return undefined;
  const { from, to, value, validAfter, validBefore, nonce } = a;
  const isUint = (v: unknown): v is string => typeof v === 'string' && UINT_STRING.test(v);
  if (typeof from !== 'string' || !isAddress(from, { strict: false })) return undefined;
  if (typeof to !== 'string' || !isAddress(to, { strict: false })) return undefined;
  if (!isUint(value) || !isUint(validAfter) || !isUint(validBefore)) return undefined;
  if (typeof nonce !== 'string' || !BYTES32.test(nonce)) return undefined;
  return {
    authorization: {
      from: getAddress(from),
      to: getAddress(to),
      value,
      validAfter,
      validBefore,
      nonce: nonce.toLowerCase() as Hex,
    },
    signature: signature as Hex,
  };
}

const sameAddress = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();

/**
 * Everything that can be decided without the chain: the payload's shape, that it answers these
 * requirements (network, asset, payee, amount), and that we serve the network and token at all.
 */
export function checkPaymentAgainstRequirements(
  rawPayload: unknown,
  requirements: PaymentRequirements,
  table: NetworkTable = SUPPORTED_NETWORKS,
): { ok: true; checked: CheckedPayment } | Failure<VerifyFailureCode> {
  const parsed = PaymentPayloadV2Schema.safeParse(rawPayload);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    return fail(
      'malformed_payload',
      `not an x402 v2 payment payload: ${first ? `${first.path.join('.')}: ${first.message}` : 'invalid'}`,
    );
  }
  const payload = parsed.data as PaymentPayload;
  if (typeof payload.payload === 'object' && payload.payload !== null && 'permit2Authorization' in payload.payload) {
    return fail('unsupported_transfer_method', 'only EIP-3009 transferWithAuthorization payments are accepted');
  }
  const eip3009 = parseAuthorization(payload.payload);
  if (!eip3009) return fail('malformed_payload', 'payload.authorization or payload.signature is missing or malformed');
  const payer = eip3009.authorization.from;
  const { accepted } = payload;

  if (requirements.scheme !== 'exact' || accepted.scheme !== 'exact') {
    return fail('unsupported_scheme', `scheme must be "exact" (got "${accepted.scheme}")`, payer);
  }
  const chainId = chainIdOf(requirements.network);
  const served = chainId === undefined ? undefined : table[chainId];
  if (chainId === undefined || !served)
    return fail('unsupported_network', `network ${requirements.network} is not served`, payer);
  if (accepted.network !== requirements.network) {
    return fail('network_mismatch', `paid on ${accepted.network}, required ${requirements.network}`, payer);
  }
  const token = findTokenByAddress(chainId, requirements.asset, table);
  if (!token)
    return fail('asset_not_supported', `asset ${requirements.asset} is not served on ${requirements.network}`, payer);
  if (requirements.extra?.name !== token.eip712.name || requirements.extra?.version !== token.eip712.version) {
    return fail('token_domain_mismatch', `requirements announce a domain other than ${token.symbol}'s`, payer);
  }
  if (!sameAddress(accepted.asset, requirements.asset)) {
    return fail('asset_mismatch', `paid with ${accepted.asset}, required ${requirements.asset}`, payer);
  }
  if (!sameAddress(accepted.payTo, requirements.payTo) || !sameAddress(eip3009.authorization.to, requirements.payTo)) {
    return fail('pay_to_mismatch', `payment is to ${eip3009.authorization.to}, required ${requirements.payTo}`, payer);
  }
  if (accepted.amount !== requirements.amount || eip3009.authorization.value !== requirements.amount) {
    return fail('amount_mismatch', `authorized ${eip3009.authorization.value}, required ${requirements.amount}`, payer);
  }
  return {
    ok: true,
    checked: {
      payload,
      chainId,
      request: { network: requirements.network as CaipNetwork, asset: token.address, ...eip3009 },
    },
  };
}

export function verifiedResult(checked: CheckedPayment): VerifyResult {
  return { ok: true, payer: checked.request.authorization.from, chainId: checked.chainId, ...checked.request };
}

export function verifyFailure(response: VerifyResponse, payer: Address): Failure<VerifyFailureCode> {
  const code = codeForPackageReason(response.invalidReason, 'verification_failed');
  const known = (VERIFY_FAILURE_CODES as readonly string[]).includes(code);
  return fail(
    known ? (code as VerifyFailureCode) : 'verification_failed',
    // The package's messages can carry viem's error text, which names the RPC URL (and its key).
    stripUrls([response.invalidReason, response.invalidMessage].filter(Boolean).join(': ') || 'payment is not valid'),
    payer,
  );
}

export function settleOutcome(response: SettleResponse, payer: Address, network: CaipNetwork): SettleResult {
  const txHash = /^0x[0-9a-fA-F]{64}$/.test(response.transaction) ? (response.transaction as Hex) : undefined;
  if (response.success && txHash) return { ok: true, payer, network, txHash };
  const failure = fail(
    codeForPackageReason(response.errorReason, 'settlement_failed'),
    stripUrls([response.errorReason, response.errorMessage].filter(Boolean).join(': ') || 'settlement failed'),
    payer,
  );
  return txHash ? { ...failure, txHash } : failure;
}
