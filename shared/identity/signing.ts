export { canonicalJson, payloadDigest, signedPayload } from './canonical-json';
export {
  EMPTY_PAYLOAD,
  ENVELOPE_FIELDS,
  NO_PRODUCT,
  SIGNED_ACTIONS,
  SIGNING_DOMAIN,
  buildSignedMessage,
  isSignedAction,
  productPathParams,
  signedActionParts,
  toolInvokeByIdParts,
  toolInvokeByIdPath,
  toolInvokeParts,
  toolInvokePath,
} from './signed-message';
export type {
  EmptyPayload,
  EnvelopeField,
  PathParams,
  ProductParam,
  RequestFields,
  SignedAction,
  SignedActionParts,
  SignedActionSpec,
  SignedEnvelope,
  SignedMessageInput,
  ToolInvokeParts,
} from './signed-message';
export { isSignatureFrom, recoverSigner } from './verify-signature';
