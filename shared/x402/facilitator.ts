import { createInProcessFacilitator, type InProcessFacilitatorConfig } from './in-process-facilitator';
import { createRemoteFacilitator, type RemoteFacilitatorConfig } from './remote-facilitator';
import type { InProcessFacilitator, PaymentFacilitator } from './facilitator-types';

export type {
  AuthorizationRef,
  AuthorizationUse,
  Eip3009Authorization,
  Failure,
  InProcessFacilitator,
  PaymentFacilitator,
  ReceiptResult,
  SettleFailureCode,
  SettleResult,
  SettlementRequest,
  SubmitResult,
  VerifyFailureCode,
  VerifyResult,
} from './facilitator-types';
export { SETTLE_FAILURE_CODES, VERIFY_FAILURE_CODES } from './facilitator-types';
export { checkPaymentAgainstRequirements, codeForPackageReason } from './payment-checks';
export type { ChainSettlementConfig, InProcessFacilitatorConfig } from './in-process-facilitator';
export { createInProcessFacilitator } from './in-process-facilitator';
export type { RemoteFacilitatorConfig } from './remote-facilitator';
export { createRemoteFacilitator } from './remote-facilitator';

export type FacilitatorConfigChoice =
  | ({ kind: 'in_process' } & InProcessFacilitatorConfig)
  | ({ kind: 'remote' } & RemoteFacilitatorConfig);

export function createFacilitator(config: { kind: 'in_process' } & InProcessFacilitatorConfig): InProcessFacilitator;
export function createFacilitator(config: FacilitatorConfigChoice): PaymentFacilitator;
export function createFacilitator(config: FacilitatorConfigChoice): PaymentFacilitator {
  return config.kind === 'in_process' ? createInProcessFacilitator(config) : createRemoteFacilitator(config);
}
