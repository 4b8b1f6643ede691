export type { AuthorizationRef, AuthorizationUse, ReceiptResult } from './chain-reader';
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
  baseUnitsToUsd,
  buildPaymentRequired,
  CREDITS_PER_USD,
  creditsToBaseUnits,
  decodePaymentPayload,
  decodePaymentRequired,
  decodePaymentResponse,
  DEFAULT_MAX_TIMEOUT_SECONDS,
  encodePaymentPayload,
  encodePaymentRequired,
  encodePaymentResponse,
  paymentRequirements,
  STABLECOIN_DECIMALS,
  usdToBaseUnits,
  X402_HEADERS,
  X402_VERSION,
} from './challenge';
export type { FacilitatorConfigChoice } from './facilitator';
export { createFacilitator } from './facilitator';
export type {
  Eip3009Authorization,
  Failure,
  InProcessFacilitator,
  PaymentFacilitator,
  SettleFailureCode,
  SettlementRequest,
  SettleResult,
  SubmitResult,
  VerifyFailureCode,
  VerifyResult,
} from './facilitator-types';
export { SETTLE_FAILURE_CODES, VERIFY_FAILURE_CODES } from './facilitator-types';
export type { ChainSettlementConfig, InProcessFacilitatorConfig } from './in-process-facilitator';
export { createInProcessFacilitator } from './in-process-facilitator';
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
  caipNetwork,
  chainIdOf,
  findTokenByAddress,
  getNetwork,
  getToken,
  networksForMode,
  SUPPORTED_NETWORKS,
  viemChain,
  withTokenOverride,
} from './networks';
export { checkPaymentAgainstRequirements, codeForPackageReason } from './payment-checks';
export type { RemoteFacilitatorConfig } from './remote-facilitator';
export { createRemoteFacilitator } from './remote-facilitator';
