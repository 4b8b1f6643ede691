import { type Address, type Chain, defineChain, getAddress } from 'viem';
import { TESTNET_CHAIN_IDS } from '../../platform/config/chains';

export type NetworkMode = 'mainnet' | 'testnet';
export type CaipNetwork = `eip155:${number}`;
export type TokenSymbol = 'USDC' | 'EURC';

/** The EIP-712 domain `name`/`version` a token checks signatures against (with chainId and its own address). */
export interface TokenDomain {
  name: string;
  version: string;
}

export interface SupportedToken {
  symbol: TokenSymbol;
  address: Address;
  decimals: 6;
  eip712: TokenDomain;
}

export interface SupportedNetwork {
  chainId: number;
  network: CaipNetwork;
  displayName: string;
  testnet: boolean;
  tokens: Partial<Record<TokenSymbol, SupportedToken>>;
}

export type NetworkTable = Readonly<Record<number, SupportedNetwork>>;

function token(symbol: TokenSymbol, address: string, name: string, version: string): SupportedToken {
  return { symbol, address: getAddress(address), decimals: 6, eip712: { name, version } };
}

function network(chainId: number, displayName: string, testnet: boolean, tokens: SupportedToken[]): SupportedNetwork {
  return {
    chainId,
    network: caipNetwork(chainId),
    displayName,
    testnet,
    tokens: Object.fromEntries(tokens.map((t) => [t.symbol, t])),
  };
}

/**
 * Circle's native USDC/EURC deployments. USDC entries match @x402/evm's DEFAULT_ASSETS (a test
 * checks that). The EIP-712 `name` differs by chain ("USD Coin" vs "USDC", "EURC" vs "Euro Coin")
 * because FiatToken derives its domain from its on-chain `name()`; a wrong name means every
 * signature fails as invalid, so read `name()`/`version()` on chain before adding a token.
 */
export const SUPPORTED_NETWORKS: NetworkTable = Object.freeze({
  8453: network(8453, 'Base', false, [
    token('USDC', '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', 'USD Coin', '2'),
    token('EURC', '0x60a3E35Cc302bFA44Cb288Bc5a4F316Fdb1adb42', 'EURC', '2'),
  ]),
  42161: network(42161, 'Arbitrum One', false, [
    token('USDC', '0xaf88d065e77c8cC2239327C5EDb3A432268e5831', 'USD Coin', '2'),
  ]),
  10: network(10, 'OP Mainnet', false, [token('USDC', '0x0b2C639c533813f4Aa9D7837CAf62653d097Ff85', 'USD Coin', '2')]),
  137: network(137, 'Polygon PoS', false, [
    token('USDC', '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359', 'USD Coin', '2'),
  ]),
  43114: network(43114, 'Avalanche C-Chain', false, [
    token('USDC', '0xB97EF9Ef8734C71904D8002F8b6Bc66Dd9c48a6E', 'USD Coin', '2'),
    token('EURC', '0xC891EB4cbdEFf6e073e859e987815Ed1505c2ACD', 'Euro Coin', '2'),
  ]),
  84532: network(84532, 'Base Sepolia', true, [
    token('USDC', '0x036CbD53842c5426634e7929541eC2318f3dCF7e', 'USDC', '2'),
    token('EURC', '0x808456652fdb597867f38412077A9182bf77359F', 'EURC', '2'),
  ]),
});

export function caipNetwork(chainId: number): CaipNetwork {
  return `eip155:${chainId}`;
}

/** The chain id of an `eip155:<id>` network string, or undefined if it is not one. */
export function chainIdOf(network: string): number | undefined {
  const match = /^eip155:([1-9][0-9]{0,15})$/.exec(network);
  if (!match) return undefined;
  const id = Number(match[1]);
  return Number.isSafeInteger(id) ? id : undefined;
}

/** The networks served in a mode: `testnet` is Base Sepolia only; `mainnet` is every other entry. */
export function networksForMode(mode: NetworkMode, table: NetworkTable = SUPPORTED_NETWORKS): SupportedNetwork[] {
  return Object.values(table).filter((n) => (mode === 'testnet' ? TESTNET_CHAIN_IDS.includes(n.chainId) : !n.testnet));
}

export function getNetwork(chainId: number, table: NetworkTable = SUPPORTED_NETWORKS): SupportedNetwork | undefined {
  return table[chainId];
}

export function getToken(
  chainId: number,
  symbol: TokenSymbol,
  table: NetworkTable = SUPPORTED_NETWORKS,
): SupportedToken | undefined {
  return table[chainId]?.tokens[symbol];
}

/** The supported token at `address` on `chainId` (case-insensitive), if any. */
export function findTokenByAddress(
  chainId: number,
  address: string,
  table: NetworkTable = SUPPORTED_NETWORKS,
): SupportedToken | undefined {
  const wanted = address.toLowerCase();
  return Object.values(table[chainId]?.tokens ?? {}).find((t) => t.address.toLowerCase() === wanted);
}

export interface TokenOverride {
  chainId: number;
  symbol: TokenSymbol;
  address: string;
  /** The deployed token's own domain: what its `name()`/`version()` return. */
  eip712: TokenDomain;
}

/**
 * A copy of `table` where `symbol` on `chainId` is the given token, e.g. the LocalStablecoin a
 * dev/test chain deployed. Other entries are untouched; the input is not mutated.
 */
export function withTokenOverride(table: NetworkTable, override: TokenOverride): NetworkTable {
  const base = table[override.chainId];
  if (!base) throw new Error(`chain ${override.chainId} is not in the network table`);
  const replaced = token(override.symbol, override.address, override.eip712.name, override.eip712.version);
  return Object.freeze({
    ...table,
    [override.chainId]: { ...base, tokens: { ...base.tokens, [override.symbol]: replaced } },
  });
}

const NATIVE_CURRENCY: Record<number, Chain['nativeCurrency']> = {
  137: { name: 'POL', symbol: 'POL', decimals: 18 },
  43114: { name: 'Avalanche', symbol: 'AVAX', decimals: 18 },
};

/** A viem chain for `chainId` reached at `rpcUrl` (any id: real network or local anvil). */
export function viemChain(chainId: number, rpcUrl: string): Chain {
  return defineChain({
    id: chainId,
    name: SUPPORTED_NETWORKS[chainId]?.displayName ?? `chain-${chainId}`,
    nativeCurrency: NATIVE_CURRENCY[chainId] ?? { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
    testnet: SUPPORTED_NETWORKS[chainId]?.testnet ?? true,
  });
}
