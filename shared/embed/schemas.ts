import Joi from 'joi';
import { BUNDLE_ID } from './rules';

const address = Joi.string().pattern(/^0x[0-9a-fA-F]{40}$/);
const origin = Joi.string().max(2048);

/** POST /embed/api/sign-in/nonce: the wallet asks for the message it will sign. */
export const nonceBodySchema = Joi.object({
  bundle_id: Joi.string().pattern(BUNDLE_ID).required(),
  origin: origin.required(),
  address: address.required(),
  chain_id: Joi.number()
    .integer()
    .min(1)
    .max(2 ** 53 - 1)
    .default(1),
}).unknown(false);

/** POST /embed/api/sign-in: the signed message, exchanged for a widget token. */
export const signInBodySchema = Joi.object({
  message: Joi.string().max(4096).required(),
  signature: Joi.string()
    .pattern(/^0x[0-9a-fA-F]+$/)
    .max(2048)
    .required(),
}).unknown(false);

/** POST /embed/api/sign-in/access-token: an `act_` token pasted instead of a wallet signature. */
export const accessTokenBodySchema = Joi.object({
  bundle_id: Joi.string().pattern(BUNDLE_ID).required(),
  origin: origin.required(),
  access_token: Joi.string().max(256).required(),
}).unknown(false);

const clientRequestId = Joi.string()
  .pattern(/^[A-Za-z0-9_-]{8,64}$/)
  .required();

/** POST /embed/api/bundles/{bundleId}/workflows/{workflowId}/messages */
export const messageBodySchema = Joi.object({
  text: Joi.string().trim().min(1).max(4000).required(),
  request_id: clientRequestId,
}).unknown(false);

/** POST /embed/api/bundles/{bundleId}/products/{productId}/invoke */
export const productInvokeBodySchema = Joi.object({
  action: Joi.string().max(128).required(),
  parameters: Joi.object().unknown(true).default({}),
  request_id: clientRequestId,
}).unknown(false);
