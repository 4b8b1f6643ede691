import Joi from 'joi';
import type { ErrorStyle } from './types';

/** The spec's error bodies (shared/platform/errors/shapes.ts renders them); extra fields (rate_limit, data) are allowed. */
export const validationError = Joi.object({
  detail: Joi.array()
    .items(
      Joi.object({
        loc: Joi.array().items(Joi.alternatives(Joi.string(), Joi.number())).required(),
        msg: Joi.string().required(),
        type: Joi.string().required(),
        input: Joi.any(),
        ctx: Joi.object().unknown(),
      }).unknown(),
    )
    .required(),
}).meta({ title: 'ValidationError' });

export const gatewayError = Joi.object({
  error: Joi.string().required(),
  message: Joi.string().required(),
  error_code: Joi.string().required(),
  request_id: Joi.string().required(),
  help_url: Joi.string().required(),
  help_doc: Joi.string().required(),
  details: Joi.object().unknown(),
})
  .unknown()
  .meta({ title: 'GatewayError' });

export const toolError = Joi.object({
  success: Joi.boolean().valid(false).required(),
  error: Joi.string().required(),
  code: Joi.string().required(),
  details: Joi.object().unknown(),
})
  .unknown()
  .meta({ title: 'ToolError' });

export const webhookError = Joi.object({
  success: Joi.boolean().valid(false).required(),
  error: Joi.string().required(),
  message: Joi.string().required(),
})
  .unknown()
  .meta({ title: 'WebhookError' });

export const ERROR_SCHEMAS: Record<Exclude<ErrorStyle, 'html'>, Joi.ObjectSchema> = {
  validation: validationError,
  gateway: gatewayError,
  tool: toolError,
  webhook: webhookError,
};

/** `{success: true, data, message?}`, the envelope most JSON answers use. */
export function ok(data: Joi.Schema, extra: Record<string, Joi.Schema> = {}): Joi.ObjectSchema {
  return Joi.object({
    success: Joi.boolean().valid(true).required(),
    data: data.required(),
    message: Joi.string(),
    ...extra,
  });
}

/** An object whose fields are not described (yet): any JSON object. */
export const anyObject = Joi.object().unknown();

/** The `x402` block of an answer paid with x402 (credit purchase, direct tool invoke): the settlement. */
/** The offer-and-receipt extension's EIP-712 receipt, signed by the service (docs/x402.md). */
export const signedReceipt = Joi.object({
  format: Joi.string().valid('eip712').required(),
  payload: Joi.object({
    version: Joi.number().integer().required(),
    network: Joi.string().required(),
    resourceUrl: Joi.string().required(),
    payer: Joi.string().required(),
    issuedAt: Joi.number().integer().required(),
    transaction: Joi.string().allow('').required(),
  }).required(),
  signature: Joi.string().required(),
});

export const x402Receipt = Joi.object({
  settled: Joi.boolean(),
  payment_id: Joi.string(),
  receipt: signedReceipt,
  transaction: Joi.string().allow(null),
  network: Joi.string(),
  resource_url: Joi.string(),
  settlement_recorded: Joi.boolean(),
  payment: Joi.object({
    token: Joi.string(),
    asset: Joi.string(),
    amount_base_units: Joi.string(),
    amount_usd: Joi.number(),
    payer_wallet_address: Joi.string(),
  }).unknown(),
}).unknown();

export const isoDate = Joi.string().isoDate();
export const nullable = (s: Joi.Schema) => s.allow(null);

/** Example values that satisfy the shared schemas (every declaration carries at least one example). */
export const EXAMPLE = {
  wallet: '0x5b38da6a701c568545dcfcd03fcb875f56beddc4',
  envelope: {
    wallet_address: '0x5b38da6a701c568545dcfcd03fcb875f56beddc4',
    session_nonce: 'sn_3f9c2a71d04b4e8f9a1c',
    request_id: 'req-20260101-0001',
    signature: `0x${'1b'.repeat(65)}`,
  },
  requestId: 'b7e1c9a0-4f2d-4e43-9a51-0c1f5d2e8a10',
  time: '2026-01-01T12:00:00.000Z',
};

/** An example error body in the gateway shape. */
export function gatewayExample(status: number, label: string, code: string, message: string) {
  return {
    error: label,
    message,
    error_code: code,
    request_id: EXAMPLE.requestId,
    help_url: `https://agents.example.com/docs/errors#${code}`,
    help_doc: `docs/errors.md#${code}`,
  };
}
