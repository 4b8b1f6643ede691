import { getAddress } from 'viem';
import { createSiweMessage, parseSiweMessage } from 'viem/siwe';

/**
 * Sign-in with Ethereum (EIP-4361, the CAIP-122 profile for eip155) for the widget. The service
 * writes the message (its domain, the widget's URI, the host page's origin as the one resource,
 * our nonce, a short expiry); the wallet signs exactly that text, and only that text is accepted
 * back (its hash is kept with the nonce). Externally owned accounts only (EIP-191 recovery); a
 * smart-contract wallet may paste an `act_` token instead.
 */
export interface SignInRequest {
  domain: string;
  uri: string;
  origin: string;
  address: string;
  chainId: number;
  nonce: string;
  issuedAt: Date;
  expiresAt: Date;
}

export function signInMessage(r: SignInRequest): string {
  return createSiweMessage({
    domain: r.domain,
    address: getAddress(r.address),
    statement: `Sign in to the chat widget on ${r.origin}. No transaction, no cost.`,
    uri: r.uri,
    version: '1',
    chainId: r.chainId,
    nonce: r.nonce,
    issuedAt: r.issuedAt,
    expirationTime: r.expiresAt,
    resources: [r.origin],
  });
}

export type ParsedSignIn = ReturnType<typeof parseSiweMessage>;

export function parseSignIn(message: string): ParsedSignIn {
  return parseSiweMessage(message);
}
