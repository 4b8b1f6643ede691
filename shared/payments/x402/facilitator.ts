import type { InProcessFacilitator, PaymentFacilitator } from './facilitator-types';
import { createInProcessFacilitator, type InProcessFacilitatorConfig } from './in-process-facilitator';
import { createRemoteFacilitator, type RemoteFacilitatorConfig } from './remote-facilitator';

export type FacilitatorConfigChoice =
  ({ kind: 'in_process' } & InProcessFacilitatorConfig) | ({ kind: 'remote' } & RemoteFacilitatorConfig);

/** The facilitator the config names: in-process (our own signer) or a remote one over HTTP. */
export function createFacilitator(config: { kind: 'in_process' } & InProcessFacilitatorConfig): InProcessFacilitator;
export function createFacilitator(config: FacilitatorConfigChoice): PaymentFacilitator;
export function createFacilitator(config: FacilitatorConfigChoice): PaymentFacilitator {
  return config.kind === 'in_process' ? createInProcessFacilitator(config) : createRemoteFacilitator(config);
}
