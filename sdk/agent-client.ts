/** The first SDK's signing helpers; they live in sdk/src/signing.ts now (kept here for existing imports). */
export type { AgentSigner, SignRequestInput, SignToolInvokeByIdInput, SignToolInvokeInput } from './src/signing';
export { signRequest, signToolInvoke, signToolInvokeById } from './src/signing';
