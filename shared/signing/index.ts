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
} from './message';
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
} from './message';
export { isSignatureFrom, recoverSigner } from './verify';
