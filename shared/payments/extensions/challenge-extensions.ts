import type { ResourceInfo } from '../x402/challenge';
import { paymentIdentifierDeclaration } from './payment-identifier';
import type { SignInWithX } from './sign-in-with-x';

/**
 * The x402 extensions a 402 advertises, by resource: payment-identifier on every paid resource
 * (purchases and direct tool calls honour it), sign-in-with-x on tool actions only (a credit
 * purchase is what fills the credits a signed-in wallet spends, so it cannot itself be paid by them).
 */
export function challengeExtensions(publicBaseUrl: string, siwx: SignInWithX | undefined) {
  const toolsPrefix = `${publicBaseUrl}/api/external/tools/`;
  return (resource: ResourceInfo): Record<string, unknown> => ({
    ...paymentIdentifierDeclaration(),
    ...(siwx && resource.url.startsWith(toolsPrefix) ? siwx.declaration(resource.url) : {}),
  });
}
