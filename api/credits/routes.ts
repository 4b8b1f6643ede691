import type { Services } from '../../shared/composition/root';
import { envelopeSchema } from '../../shared/identity/index';
import { signed } from '../http/middleware/signed';
import { EXAMPLE } from '../http/operations/shapes';
import type { Operation } from '../http/operations/types';
import { balanceAnswer, balanceExample } from './bearer-routes';
import { balanceBody } from './presenters';

export function creditOperations(services: Services): Operation[] {
  return [
    {
      id: 'signedBalance',
      method: 'post',
      path: '/api/external/credits/balance',
      host: 'main',
      auth: [{ kind: 'signed', action: 'balance', productLine: '-' }],
      tag: 'Credits',
      summary: 'Credit balance of the signing wallet',
      // The envelope and nothing else: the balance signs an empty payload, so any other field would ride unsigned.
      request: { body: envelopeSchema },
      responses: { 200: { description: 'The credit balance', body: balanceAnswer } },
      errorStatuses: [401, 422],
      errors: 'gateway',
      examples: [
        { name: 'balance', request: { body: EXAMPLE.envelope }, response: { status: 200, body: balanceExample } },
      ],
      // Read-only: the balance read overlaps the request-id claim; a replay still answers 401.
      middleware: [signed(services, 'balance', { readOnly: true })],
      handler: async (_req, res) => {
        const [, view] = await Promise.all([res.locals.claim, services.ledger.balance(res.locals.wallet)]);
        res.json(balanceBody(view));
      },
    },
  ];
}
