// The face of the payments capability: everything other folders use of it. Code outside
// shared/payments/ imports this file, never the files behind it (house/capability-face).
export { deployToken, mintTokens, tokenBalance } from './chain/deploy-token';
export { DEV_ACCOUNT_INDEX, DEV_MNEMONIC, devAccount, devPrivateKey } from './chain/dev-accounts';
export type { PurchaseResult } from './credit-purchase';
export { DELIVERY_ABANDONED } from './delivery-outcomes';
export { type DirectResult, DirectToolPayments } from './direct-tool-payments';
export { DISCOVERY_MAX_LIMIT } from './extensions/discovery';
export { siwxHeaderOf } from './extensions/sign-in-with-x';
export { type PaymentPruneCounts, prunePaymentRecords } from './housekeeping';
export { settlements } from './metrics';
export { NonceClaims } from './nonce-claims';
export type { PaymentListing, PaymentRepository } from './payment-repository';
export { PAYMENT_ID_PATTERN, paymentPayerView, paymentPublicView, paymentStatusPath } from './payment-status';
export { applyPurpose, purposeAs, purposeWallet } from './purposes';
export { PaymentGate } from './service';
export type { SettlementEngine, SettlementOutcome, SettlementStart } from './settlement-engine';
export { refuseMixedPaymentModes } from './single-payment-mode';
export { type ToolCallOutcome, ToolCalls } from './tool-call';
export { isOurTransfer } from './transfer-match';
export { X402_PAYMENT_STATES, type X402PaymentDoc, type X402PaymentState } from './types';
export { describeChainFailure } from './x402/chain-errors';
export type { AuthorizedTransfer, ChainReader } from './x402/chain-reader';
export {
  decodePaymentResponse,
  encodePaymentPayload,
  type PaymentPayload,
  type PaymentRequired,
  type PaymentRequirements,
  type SettleResponse,
  X402_HEADERS,
} from './x402/challenge';
export type { AuthorizationRef, CaipNetwork, InProcessFacilitator } from './x402/index';
export { type PaymentSetup, paymentSetup } from './x402/setup';
