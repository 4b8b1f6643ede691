import type { Services } from '../../shared/composition/root';
import { agentGroup } from '../http/middleware/agent-group';

/** What every operation of an agent group's webhook runs shares: the main host, its bearer, its tag and errors. */
export function groupOperation(services: Services) {
  return {
    host: 'main',
    auth: [{ kind: 'agt' }],
    tag: 'Webhook runs',
    errors: 'webhook',
    before: [agentGroup(services)],
  } as const;
}
