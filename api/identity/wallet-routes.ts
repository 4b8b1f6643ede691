import type { ErrorRequestHandler } from 'express';
import Joi from 'joi';
import type { Services } from '../../shared/composition/root';
import { createAgentWallet, walletAddress, WalletDerivationError } from '../../shared/identity/index';
import { errors, ValidationError } from '../../shared/platform/errors/index';
import { requestClient } from '../../shared/platform/limits/index';
import { gatewayExample, ok } from '../http/operations/shapes';
import type { Operation } from '../http/operations/types';

/** The spec's identity errors are gateway 400s: a broken body is not the 422 `detail[]` of signed endpoints. */
export const identityBodyErrors: ErrorRequestHandler = (err, _req, _res, next) => {
  next(
    err instanceof ValidationError
      ? errors.badRequest('invalid_request', 'the request body is not valid JSON; send no body or a JSON object')
      : err,
  );
};

const walletAnswer = ok(
  Joi.object({
    evmAddress: walletAddress.required(),
    evmPrivateKey: Joi.string()
      .pattern(/^0x[0-9a-fA-F]{64}$/)
      .required(),
    mnemonic: Joi.string().required(),
  }),
);

export function identityOperations(services: Services): Operation[] {
  return [
    {
      id: 'createAgentAddress',
      method: 'post',
      path: '/api/external/agentaddress',
      host: 'main',
      auth: [{ kind: 'none' }],
      tag: 'Identity and sessions',
      summary: 'Create an agent wallet (the private key is returned once, never stored)',
      responses: { 200: { description: 'The new wallet', body: walletAnswer } },
      errorStatuses: [400, 401, 429, 500, 503],
      errors: 'gateway',
      examples: [
        {
          name: 'created',
          request: {},
          response: {
            status: 200,
            body: {
              success: true,
              data: {
                evmAddress: '0x9858EfFD232B4033E47d90003D41EC34EcaEda94',
                evmPrivateKey: '0x1ab42cc412b618bdea3a599e3c9bae199ebf030895b039e9db1e30dafb12b727',
                mnemonic: 'test test test test test test test test test test test junk',
              },
            },
          },
        },
        {
          name: 'rate limited',
          request: {},
          response: {
            status: 429,
            body: {
              ...gatewayExample(
                429,
                'Too Many Requests',
                'rate_limited',
                'at most 1 agent address from one address per 60 s; retry after 42 s',
              ),
              rate_limit: { limit: 1, window_seconds: 60, retry_after_seconds: 42 },
            },
          },
        },
      ],
      handler: async (req, res) => {
        // Counted in the store and failing closed: a store outage is a 503, never an unlimited minting.
        await services.limits.agentAddressPerClient.enforce(
          `agentaddress:${requestClient(req)}`,
          'agent address from one address',
        );
        let wallet;
        try {
          wallet = createAgentWallet();
        } catch (err) {
          if (err instanceof WalletDerivationError) {
            throw errors.internal('wallet_derivation_failed', 'wallet derivation failed', {
              details: { reason: err.reason },
            });
          }
          throw err;
        }
        // The key is returned once and never stored or logged.
        res.setHeader('Cache-Control', 'no-store');
        res.json({ success: true, data: wallet });
      },
    },
  ];
}
