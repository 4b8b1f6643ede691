import { createPublicClient, custom, getAddress, type Hex } from 'viem';
import { createSiweMessage, parseSiweMessage, verifySiweMessage } from 'viem/siwe';

/**
 * Sign-in with Ethereum (EIP-4361, the CAIP-122 profile for eip155) for the widget. The service
 * writes the message (its domain, the widget's URI, the host page's origin as the one resource,
 * our nonce, a short expiry); the wallet signs exactly that text.
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

/**
 * Externally owned accounts only: the client below has no chain, so viem's contract-wallet check
 * (ERC-6492/1271) fails and it falls back to ECDSA recovery. Sign-in works offline and needs no
 * RPC endpoint; a smart-contract wallet cannot sign in this way and may paste an `act_` token.
 */
const noChain = createPublicClient({
  transport: custom({
    request: async () => {
      throw new Error('no chain: sign-in verifies EOA signatures only');
    },
  }),
});

export async function verifySignIn(i: { message: string; signature: Hex; domain: string; nonce: string; address: string; now: Date }): Promise<boolean> {
  try {
    return await verifySiweMessage(noChain, { message: i.message, signature: i.signature, domain: i.domain, nonce: i.nonce, address: getAddress(i.address), time: i.now });
  } catch {
    return false;
  }
}
