import Joi from 'joi';

export const walletAddress = Joi.string()
  .pattern(/^0x[0-9a-fA-F]{40}$/)
  .messages({
    'string.pattern.base': 'must be a 0x-prefixed 20-byte hex address',
  });

/** The signed request envelope every signed runtime endpoint takes. */
export const envelopeFields = {
  wallet_address: walletAddress.required(),
  session_nonce: Joi.string()
    .pattern(/^[A-Za-z0-9_-]{16,128}$/)
    .required(),
  request_id: Joi.string()
    .pattern(/^[A-Za-z0-9._:@-]{1,128}$/)
    .required()
    .messages({
      'string.pattern.base': 'must be 1-128 characters of A-Z a-z 0-9 . _ : @ -',
    }),
  signature: Joi.string()
    .pattern(/^0x[0-9a-fA-F]{130}$/)
    .required()
    .messages({
      'string.pattern.base': 'must be a 0x-prefixed 65-byte hex signature',
    }),
};

export const envelopeSchema = Joi.object(envelopeFields);
