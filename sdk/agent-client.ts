/** The first SDK's signing helpers; they live in sdk/src/signing.ts now (kept here for existing imports). */
export { signRequest, signToolInvoke, signToolInvokeById } from './src/signing';
export type { AgentSigner, SignRequestInput, SignToolInvokeInput, SignToolInvokeByIdInput } from './src/signing';
