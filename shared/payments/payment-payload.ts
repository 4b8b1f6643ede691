import Joi from 'joi';
import { errors } from '../platform/errors/index';
import { decodePaymentPayload } from './x402/challenge';

const hex = (bytes?: number) =>
  Joi.string().pattern(bytes ? new RegExp(`^0x[0-9a-fA-F]{${bytes * 2}}$`) : /^0x[0-9a-fA-F]*$/);
const uintString = Joi.string().pattern(/^\d{1,78}$/);

/**
 * The shape of an x402 v2 `exact` EVM payment payload, checked before anything reads it: a
 * field of the wrong type is the caller's mistake (400 malformed_payment), never a 500.
 * Unknown extra fields are allowed (clients add `resource`, `extensions`); the facilitator's
 * own checks decide whether the values are acceptable.
 */
const paymentPayloadSchema = Joi.object({
  x402Version: Joi.number().integer().required(),
  accepted: Joi.object({
    scheme: Joi.string().required(),
    network: Joi.string().max(64).required(),
    asset: Joi.string().max(128).required(),
    amount: uintString,
    payTo: Joi.string().max(128),
    maxTimeoutSeconds: Joi.number().integer().min(0),
    extra: Joi.object().unknown(true),
  })
    .unknown(true)
    .required(),
  payload: Joi.object({
    authorization: Joi.object({
      from: hex(20).required(),
      to: hex(20).required(),
      value: uintString.required(),
      validAfter: uintString.required(),
      validBefore: uintString.required(),
      nonce: hex(32).required(),
    })
      .unknown(true)
      .required(),
    signature: hex()
      .max(2 + 2 * 4096)
      .required(),
  })
    .unknown(true)
    .required(),
  resource: Joi.object().unknown(true),
  extensions: Joi.object().unknown(true),
}).unknown(true);

export interface CheckedPaymentPayload {
  x402Version: number;
  accepted: { scheme: string; network: string; asset: string; amount?: string; payTo?: string; [k: string]: unknown };
  payload: {
    authorization: { from: string; to: string; value: string; validAfter: string; validBefore: string; nonce: string };
    signature: string;
  };
  [k: string]: unknown;
}

/** The payload if it has the expected shape, else the first problem found (path and reason). */
export function checkPaymentPayload(
  value: unknown,
): { ok: true; value: CheckedPaymentPayload } | { ok: false; message: string } {
  if (!value || typeof value !== 'object' || Array.isArray(value))
    return { ok: false, message: 'payment payload is not a JSON object' };
  const { error } = paymentPayloadSchema.validate(value, { abortEarly: true, convert: false });
  if (error) return { ok: false, message: `payment payload: ${error.details[0].message}` };
  return { ok: true, value: value as CheckedPaymentPayload };
}

/** Decodes and shape-checks a payment header; any field of the wrong type is 400 malformed_payment. */
export function decodePayment(header: string): CheckedPaymentPayload {
  const decoded = decodePaymentPayload(header);
  if (!decoded.ok) throw errors.badRequest('malformed_payment', decoded.message);
  const checked = checkPaymentPayload(decoded.value);
  if (!checked.ok) throw errors.badRequest('malformed_payment', checked.message);
  return checked.value;
}
