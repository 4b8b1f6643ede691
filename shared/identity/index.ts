// The face of the identity capability: everything other folders use of it. Code outside
// shared/identity/ imports this file, never the files behind it (house/capability-face).
export { AccessTokenService } from './access-tokens';
export { canonicalJson, payloadDigest } from './canonical-json';
export { createAgentWallet, WalletDerivationError } from './derive-wallet';
export { pruneAuthRecords } from './housekeeping';
export { envelopeFields, envelopeSchema, walletAddress } from './schemas';
export type { SignedRequestService } from './service';
export {
  buildSignedMessage,
  productPathParams,
  type SignedAction,
  signedActionParts,
  signedPayload,
  toolInvokeByIdParts,
  toolInvokeParts,
} from './signing';
export { isSignatureFrom } from './verify-signature';
