/**
 * What the demo vendor sells: facts read from the local chain through viem, and text tools.
 * Each handler takes the action's parameters (already checked by the service's JSON Schema,
 * and checked again here: a vendor trusts nobody) and returns a JSON object.
 */
import {
  createPublicClient,
  erc20Abi,
  formatGwei,
  formatUnits,
  getAddress,
  http,
  isAddress,
  type PublicClient,
} from 'viem';
import { extractLinks, textStats } from '../../../shared/tools/text';

export class HandlerError extends Error {}

export type Handler = (params: Record<string, unknown>) => Promise<Record<string, unknown>>;

function address(value: unknown, field: string): `0x${string}` {
  if (typeof value !== 'string' || !isAddress(value, { strict: false }))
    throw new HandlerError(`${field} must be a 0x-prefixed 20-byte address`);
  return getAddress(value);
}

function text(value: unknown): string {
  if (typeof value !== 'string') throw new HandlerError('text must be a string');
  if (value.length > 100_000) throw new HandlerError('text is longer than 100000 characters');
  return value;
}

export function demoHandlers(rpcUrl: string): Record<string, Handler> {
  const client: PublicClient = createPublicClient({ transport: http(rpcUrl, { timeout: 5_000, retryCount: 0 }) });

  const erc20 = async (token: `0x${string}`) => {
    const code = await client.getCode({ address: token });
    if (!code || code === '0x') throw new HandlerError(`${token} is not a contract on this chain`);
    const [name, symbol, decimals, totalSupply] = await Promise.all([
      client.readContract({ address: token, abi: erc20Abi, functionName: 'name' }),
      client.readContract({ address: token, abi: erc20Abi, functionName: 'symbol' }),
      client.readContract({ address: token, abi: erc20Abi, functionName: 'decimals' }),
      client.readContract({ address: token, abi: erc20Abi, functionName: 'totalSupply' }),
    ]).catch(() => {
      throw new HandlerError(`${token} does not answer the ERC-20 metadata calls`);
    });
    return { name, symbol, decimals, totalSupply };
  };

  return {
    'chain.token_balance': async (p) => {
      const token = address(p.token, 'token');
      const owner = address(p.address, 'address');
      const meta = await erc20(token);
      const balance = await client.readContract({
        address: token,
        abi: erc20Abi,
        functionName: 'balanceOf',
        args: [owner],
      });
      return {
        chain_id: await client.getChainId(),
        token,
        address: owner,
        symbol: meta.symbol,
        decimals: meta.decimals,
        balance_base_units: balance.toString(),
        balance: formatUnits(balance, meta.decimals),
      };
    },
    'chain.erc20_metadata': async (p) => {
      const token = address(p.token, 'token');
      const meta = await erc20(token);
      return {
        chain_id: await client.getChainId(),
        token,
        name: meta.name,
        symbol: meta.symbol,
        decimals: meta.decimals,
        total_supply_base_units: meta.totalSupply.toString(),
        total_supply: formatUnits(meta.totalSupply, meta.decimals),
      };
    },
    'chain.block_facts': async (p) => {
      const which = p.block_number;
      if (which !== undefined && (typeof which !== 'number' || !Number.isSafeInteger(which) || which < 0))
        throw new HandlerError('block_number must be a non-negative integer');
      const block = await client
        .getBlock(which === undefined ? { blockTag: 'latest' } : { blockNumber: BigInt(which) })
        .catch(() => {
          throw new HandlerError(`no block ${String(which)} on this chain yet`);
        });
      const gasPrice = await client.getGasPrice();
      return {
        chain_id: await client.getChainId(),
        number: Number(block.number),
        hash: block.hash,
        timestamp: new Date(Number(block.timestamp) * 1000).toISOString(),
        transaction_count: block.transactions.length,
        gas_used: block.gasUsed.toString(),
        gas_limit: block.gasLimit.toString(),
        gas_used_ratio: block.gasLimit > 0n ? Number((block.gasUsed * 10_000n) / block.gasLimit) / 10_000 : 0,
        base_fee_per_gas_gwei:
          block.baseFeePerGas !== null && block.baseFeePerGas !== undefined ? formatGwei(block.baseFeePerGas) : null,
        gas_price_gwei: formatGwei(gasPrice),
      };
    },
    'text.extract_links': async (p) => extractLinks(text(p.text)),
    'text.stats': async (p) => {
      const wpm = p.words_per_minute === undefined ? 200 : Number(p.words_per_minute);
      if (!Number.isFinite(wpm) || wpm < 50 || wpm > 1000)
        throw new HandlerError('words_per_minute must be between 50 and 1000');
      return textStats(text(p.text), wpm);
    },
  };
}
