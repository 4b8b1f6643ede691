export { canonicalJson, payloadDigest, signedPayload } from './canonical-json';
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
export {
  buildSignedMessage,
  EMPTY_PAYLOAD,
  ENVELOPE_FIELDS,
  isSignedAction,
  NO_PRODUCT,
  productPathParams,
  SIGNED_ACTIONS,
  signedActionParts,
  SIGNING_DOMAIN,
  toolInvokeByIdParts,
  toolInvokeByIdPath,
  toolInvokeParts,
  toolInvokePath,
} from './signed-message';
export { isSignatureFrom, recoverSigner } from './verify-signature';
