import { type Account, type Address, createPublicClient, createWalletClient, type Hex, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { viemChain } from '../x402/networks';
import { DEV_ACCOUNT_INDEX, devAccount } from './dev-accounts';
import { loadTokenArtifact } from './token-artifact';

export interface ChainTarget {
  rpcUrl: string;
  chainId: number;
}

/** Who sends the transaction: a private key, a viem account, or (neither) dev account 0. */
export interface SenderOptions {
  deployerKey?: Hex;
  account?: Account;
}

export interface DeployTokenOptions extends ChainTarget, SenderOptions {
  name: string;
  symbol: string;
  version: string;
}

export interface MintTokensOptions extends ChainTarget {
  token: Address;
  to: Address;
  /** Base units (6 decimals). */
  amount: bigint;
  minterKey?: Hex;
  account?: Account;
}

function clients(target: ChainTarget, account: Account) {
  const chain = viemChain(target.chainId, target.rpcUrl);
  const transport = http(target.rpcUrl);
  return {
    wallet: createWalletClient({ account, chain, transport }),
    reader: createPublicClient({ chain, transport }),
  };
}

function senderAccount(key: Hex | undefined, account: Account | undefined): Account {
  if (account) return account;
  if (key) return privateKeyToAccount(key);
  return devAccount(DEV_ACCOUNT_INDEX.deployer);
}

/** Deploys LocalStablecoin (local dev/test chains only) and waits for it to be mined. */
export async function deployToken(opts: DeployTokenOptions): Promise<{ address: Address; txHash: Hex }> {
  const { abi, bytecode } = await loadTokenArtifact();
  const { wallet, reader } = clients(opts, senderAccount(opts.deployerKey, opts.account));
  const txHash = await wallet.deployContract({ abi, bytecode, args: [opts.name, opts.symbol, opts.version] });
  const receipt = await reader.waitForTransactionReceipt({ hash: txHash });
  if (receipt.status !== 'success' || !receipt.contractAddress) {
    throw new Error(`LocalStablecoin deployment ${txHash} failed (status ${receipt.status})`);
  }
  return { address: receipt.contractAddress, txHash };
}

/** Mints LocalStablecoin to `to` (mint is open on the local token) and waits for it to be mined. */
export async function mintTokens(opts: MintTokensOptions): Promise<{ txHash: Hex }> {
  const { abi } = await loadTokenArtifact();
  const { wallet, reader } = clients(opts, senderAccount(opts.minterKey, opts.account));
  const txHash = await wallet.writeContract({
    address: opts.token,
    abi,
    functionName: 'mint',
    args: [opts.to, opts.amount],
  });
  const receipt = await reader.waitForTransactionReceipt({ hash: txHash });
  if (receipt.status !== 'success') throw new Error(`mint ${txHash} reverted`);
  return { txHash };
}

/** The token balance of `owner` in base units. */
export async function tokenBalance(opts: ChainTarget & { token: Address; owner: Address }): Promise<bigint> {
  const { abi } = await loadTokenArtifact();
  const reader = createPublicClient({ chain: viemChain(opts.chainId, opts.rpcUrl), transport: http(opts.rpcUrl) });
  return (await reader.readContract({
    address: opts.token,
    abi,
    functionName: 'balanceOf',
    args: [opts.owner],
  })) as bigint;
}
