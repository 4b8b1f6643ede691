export type {
  CaipNetwork,
  NetworkMode,
  NetworkTable,
  SupportedNetwork,
  SupportedToken,
  TokenDomain,
  TokenOverride,
  TokenSymbol,
} from './networks';
export {
  SUPPORTED_NETWORKS,
  caipNetwork,
  chainIdOf,
  findTokenByAddress,
  getNetwork,
  getToken,
  networksForMode,
  viemChain,
  withTokenOverride,
} from './networks';

export type {
  ChallengeOptions,
  HeaderDecodeResult,
  PaymentPayload,
  PaymentRequired,
  PaymentRequirements,
  RequirementOptions,
  ResourceInfo,
  SettleResponse,
} from './challenge';
export {
  CREDITS_PER_USD,
  DEFAULT_MAX_TIMEOUT_SECONDS,
  STABLECOIN_DECIMALS,
  X402_HEADERS,
  X402_VERSION,
  baseUnitsToUsd,
  buildPaymentRequired,
  creditsToBaseUnits,
  decodePaymentPayload,
  decodePaymentRequired,
  decodePaymentResponse,
  encodePaymentPayload,
  encodePaymentRequired,
  encodePaymentResponse,
  paymentRequirements,
  usdToBaseUnits,
} from './challenge';

export type {
  Eip3009Authorization,
  Failure,
  InProcessFacilitator,
  PaymentFacilitator,
  SettleFailureCode,
  SettleResult,
  SettlementRequest,
  SubmitResult,
  VerifyFailureCode,
  VerifyResult,
} from './facilitator-types';
export { SETTLE_FAILURE_CODES, VERIFY_FAILURE_CODES } from './facilitator-types';
export type { AuthorizationRef, AuthorizationUse, ReceiptResult } from './chain-reader';
export { checkPaymentAgainstRequirements, codeForPackageReason } from './payment-checks';
export type { ChainSettlementConfig, InProcessFacilitatorConfig } from './in-process-facilitator';
export { createInProcessFacilitator } from './in-process-facilitator';
export type { RemoteFacilitatorConfig } from './remote-facilitator';
export { createRemoteFacilitator } from './remote-facilitator';
export type { FacilitatorConfigChoice } from './facilitator';
export { createFacilitator } from './facilitator';
