import { Router } from 'express';
import Joi from 'joi';
import { errors } from '../../shared/errors';
import { walletAddress } from '../../shared/schemas/common';
import { perClientLimit } from '../middleware/hot-limits';
import { singlePaymentMode } from '../middleware/single-payment-mode';
import { validate } from '../middleware/validate';
import { purchaseCompletedBody, purchasePendingBody, purchaseStatusBody } from '../presenters/credit-purchase';
import { paymentHeader } from '../services/payment-gate';
import type { Services } from '../services';

const SUPPORTED_CHAIN_IDS = [8453, 42161, 10, 137, 43114, 84532];

const purchaseBody = Joi.object({
  wallet_address: walletAddress.required(),
  credits: Joi.number().integer().min(500).max(10_000_000).multiple(500).required(),
  payment_method: Joi.string().valid('x402').insensitive().required(),
  chain_id: Joi.number().integer().valid(...SUPPORTED_CHAIN_IDS).required(),
  token: Joi.string().valid('USDC', 'EURC').required(),
  payer_wallet_address: walletAddress,
  request_id: Joi.string().pattern(/^[A-Za-z0-9._:@-]{1,128}$/),
  transaction_hash: Joi.string().pattern(/^0x[0-9a-fA-F]{64}$/),
  email: Joi.string().email({ tlds: false }).max(254),
});

export function creditPurchaseRoutes(services: Services): Router {
  const router = Router();
  router.post('/credits/purchase', perClientLimit(services.hotLimits.purchasePerClient, 'credit purchase'), singlePaymentMode, validate({ body: purchaseBody }), async (req, res) => {
    if (!services.purchases) throw errors.unavailable('payments_unavailable', 'x402 payments are not configured on this deployment');
    const body = res.locals.body;
    const result = await services.purchases.purchase(body, paymentHeader(req));
    if (result.kind === 'pending') {
      res.status(202).json(purchasePendingBody(result.record, body.wallet_address, body.credits));
      return;
    }
    if (result.kind === 'status') {
      res.json(purchaseStatusBody(result.record));
      return;
    }
    const receipt = services.payments!.receipt(result.record);
    res.set(receipt.header).json(purchaseCompletedBody(result, receipt.block));
  });
  return router;
}
