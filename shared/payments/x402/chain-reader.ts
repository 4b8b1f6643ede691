import { eip3009ABI } from '@x402/evm';
import {
  type Address,
  type Chain,
  createPublicClient,
  decodeAbiParameters,
  erc20Abi,
  type Hex,
  http,
  numberToHex,
  pad,
  type PublicClient,
  toEventSelector,
  TransactionNotFoundError,
  type TransactionReceipt,
  TransactionReceiptNotFoundError,
  type Transport,
} from 'viem';
import { ChainUnavailableError, isChainTransportError } from './chain-errors';
import { type CaipNetwork, chainIdOf, viemChain } from './networks';

// What a chain read answers. They live with the reader, which the facilitator types import, so
// the two files depend in one direction only.
export type ReceiptResult =
  | { status: 'confirmed'; txHash: Hex; blockNumber: string }
  | { status: 'reverted'; txHash: Hex; blockNumber: string; blockTimestamp?: string }
  | { status: 'pending'; txHash: Hex };

export type AuthorizationUse =
  { kind: 'used'; txHash: Hex; blockNumber: string } | { kind: 'canceled'; txHash: Hex; blockNumber: string };

export interface AuthorizationRef {
  network: CaipNetwork;
  asset: Address;
  from: Address;
  nonce: Hex;
}

export interface ChainReaderConfig {
  chains: Array<{ chainId: number; rpcUrl: string }>;
  /** Deadline of one RPC call (ms). Requests must not hang on a dead RPC. */
  timeoutMs?: number;
  /** Retries of one RPC call inside viem's transport (the caller retries the whole step). */
  retryCount?: number;
  /** Widest eth_getLogs range asked for at once: providers cap it (often 2,000 or 10,000 blocks). */
  logWindowBlocks?: bigint;
}

/** The Transfer a transferWithAuthorization emitted right after AuthorizationUsed(from, nonce). */
export interface AuthorizedTransfer {
  txHash: Hex;
  blockNumber: string;
  asset: Address;
  from: Address;
  to: Address;
  value: string;
}

export const DEFAULT_RPC_TIMEOUT_MS = 3000;
export const DEFAULT_LOG_WINDOW_BLOCKS = 2000n;

const AUTHORIZATION_USED = toEventSelector('AuthorizationUsed(address,bytes32)');
const AUTHORIZATION_CANCELED = toEventSelector('AuthorizationCanceled(address,bytes32)');
const TRANSFER = toEventSelector('Transfer(address,address,uint256)');

const topicAddress = (a: string): Hex => pad(a.toLowerCase() as Hex, { size: 32 });
const addressOfTopic = (t: Hex): Address => `0x${t.slice(26)}` as Address;
const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** A viem HTTP transport with a deadline per call and few retries: a dead RPC fails fast. */
export function chainTransport(url: string, opts: { timeoutMs?: number; retryCount?: number } = {}) {
  return http(url, {
    timeout: opts.timeoutMs ?? DEFAULT_RPC_TIMEOUT_MS,
    retryCount: opts.retryCount ?? 1,
    retryDelay: 100,
  });
}

/**
 * Read-only chain access for settlement: authorization state, the transaction that used an
 * authorization (log search in bounded windows) and what that transaction really moved.
 * Serves both the in-process and the remote facilitator paths.
 */
export function createChainReader(config: ChainReaderConfig) {
  const window = config.logWindowBlocks ?? DEFAULT_LOG_WINDOW_BLOCKS;
  const clients = new Map<number, PublicClient<Transport, Chain>>();
  for (const c of config.chains) {
    const transport = chainTransport(c.rpcUrl, config);
    clients.set(
      c.chainId,
      createPublicClient({ chain: viemChain(c.chainId, c.rpcUrl), transport }) as PublicClient<Transport, Chain>,
    );
  }

  function client(network: string): PublicClient<Transport, Chain> {
    const chainId = chainIdOf(network);
    const c = chainId === undefined ? undefined : clients.get(chainId);
    if (!c) throw new Error(`no RPC configured for ${network}`);
    return c;
  }

  /** Transport failures become ChainUnavailableError (URL-free); anything else passes through. */
  async function call<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (isChainTransportError(err)) throw new ChainUnavailableError();
      throw err;
    }
  }

  const chainKeys = new Map<string, Promise<string>>();

  const fetchReceipt = (network: string, hash: Hex) =>
    client(network)
      .getTransactionReceipt({ hash })
      .catch((err: unknown) => {
        if (err instanceof TransactionReceiptNotFoundError) return undefined;
        throw err;
      });

  function transferIn(
    receipt: TransactionReceipt,
    ref: AuthorizationRef & { txHash: Hex },
  ): AuthorizedTransfer | undefined {
    const logs = [...receipt.logs].sort((a, b) => a.logIndex - b.logIndex);
    const i = logs.findIndex(
      (l) =>
        same(l.address, ref.asset) &&
        l.topics[0] === AUTHORIZATION_USED &&
        same(l.topics[1] ?? '', topicAddress(ref.from)) &&
        same(l.topics[2] ?? '', ref.nonce),
    );
    const t = i >= 0 ? logs[i + 1] : undefined;
    if (!t || !same(t.address, ref.asset) || t.topics[0] !== TRANSFER || t.topics.length !== 3) return undefined;
    const [value] = decodeAbiParameters([{ type: 'uint256' }], t.data);
    return {
      txHash: ref.txHash,
      blockNumber: receipt.blockNumber.toString(),
      asset: t.address,
      from: addressOfTopic(t.topics[1]!),
      to: addressOfTopic(t.topics[2]!),
      value: value.toString(),
    };
  }

  return {
    /** `<chainId>:<genesis hash prefix>`: names one chain instance (a restarted dev chain is another one). */
    chainKey: (network: CaipNetwork): Promise<string> => {
      let key = chainKeys.get(network);
      if (!key) {
        key = call(
          async () =>
            `${chainIdOf(network)}:${(await client(network).getBlock({ blockNumber: 0n })).hash.slice(0, 18)}`,
        );
        key.catch(() => chainKeys.delete(network));
        chainKeys.set(network, key);
      }
      return key;
    },

    serves: (network: string) => {
      const chainId = chainIdOf(network);
      return chainId !== undefined && clients.has(chainId);
    },

    blockNumber: (network: CaipNetwork) => call(() => client(network).getBlockNumber({ cacheTime: 0 })),

    /** The latest block's number and timestamp: chain time decides whether an authorization expired. */
    latestBlock: (network: CaipNetwork) =>
      call(async () => {
        const b = await client(network).getBlock({ blockTag: 'latest' });
        return { number: b.number, timestamp: b.timestamp };
      }),

    /** The payer's token balance at the latest block. */
    tokenBalance: (network: CaipNetwork, asset: Address, owner: Address) =>
      call(() =>
        client(network).readContract({ address: asset, abi: erc20Abi, functionName: 'balanceOf', args: [owner] }),
      ),

    /** True once the nonce was used or canceled on chain. */
    authorizationState: (ref: AuthorizationRef) =>
      call(async () => {
        const used = await client(ref.network).readContract({
          address: ref.asset,
          abi: eip3009ABI,
          functionName: 'authorizationState',
          args: [ref.from, ref.nonce],
        });
        return used === true;
      }),

    /** The transaction that used or canceled the authorization, searching windows from `fromBlock` to the latest block. */
    findAuthorizationUse: (ref: AuthorizationRef & { fromBlock: bigint }) =>
      call(async (): Promise<AuthorizationUse | undefined> => {
        const c = client(ref.network);
        const latest = await c.getBlockNumber({ cacheTime: 0 });
        for (let start = ref.fromBlock; start <= latest; start += window) {
          const end = start + window - 1n < latest ? start + window - 1n : latest;
          const logs = (await c.request({
            method: 'eth_getLogs',
            params: [
              {
                address: ref.asset,
                fromBlock: numberToHex(start),
                toBlock: numberToHex(end),
                topics: [
                  [AUTHORIZATION_USED, AUTHORIZATION_CANCELED],
                  topicAddress(ref.from),
                  ref.nonce.toLowerCase() as Hex,
                ],
              },
            ],
          })) as Array<{ transactionHash: Hex | null; blockNumber: Hex | null; topics: Hex[] }>;
          const log = logs.find((l) => l.transactionHash && l.blockNumber);
          if (log) {
            return {
              kind: log.topics[0] === AUTHORIZATION_USED ? 'used' : 'canceled',
              txHash: log.transactionHash!,
              blockNumber: BigInt(log.blockNumber!).toString(),
            };
          }
        }
        return undefined;
      }),

    /**
     * What transaction `txHash` moved under the authorization (from, nonce): the asset's Transfer
     * log right after its AuthorizationUsed log, as FiatToken emits them. Undefined when the
     * transaction is not mined or did not use this authorization.
     */
    authorizedTransfer: (ref: AuthorizationRef & { txHash: Hex }) =>
      call(async (): Promise<AuthorizedTransfer | undefined> => {
        const receipt = await fetchReceipt(ref.network, ref.txHash);
        return receipt?.status === 'success' ? transferIn(receipt, ref) : undefined;
      }),

    /** The receipt's outcome and, when it succeeded, the transfer it made under the authorization: one RPC call. */
    outcomeOf: (ref: AuthorizationRef & { txHash: Hex }) =>
      call(async (): Promise<{ receipt: ReceiptResult; transfer?: AuthorizedTransfer }> => {
        const receipt = await fetchReceipt(ref.network, ref.txHash);
        if (!receipt) return { receipt: { status: 'pending', txHash: ref.txHash } };
        const blockNumber = receipt.blockNumber.toString();
        if (receipt.status === 'success')
          return {
            receipt: { status: 'confirmed', txHash: ref.txHash, blockNumber },
            transfer: transferIn(receipt, ref),
          };
        const block = await client(ref.network).getBlock({ blockNumber: receipt.blockNumber });
        return {
          receipt: { status: 'reverted', txHash: ref.txHash, blockNumber, blockTimestamp: block.timestamp.toString() },
        };
      }),

    receipt: (network: CaipNetwork, txHash: Hex) =>
      call(async (): Promise<ReceiptResult> => {
        const receipt = await fetchReceipt(network, txHash);
        if (!receipt) return { status: 'pending', txHash };
        const blockNumber = receipt.blockNumber.toString();
        if (receipt.status === 'success') return { status: 'confirmed', txHash, blockNumber };
        // A revert's block time tells an expired authorization from another failure.
        const block = await client(network).getBlock({ blockNumber: receipt.blockNumber });
        return { status: 'reverted', txHash, blockNumber, blockTimestamp: block.timestamp.toString() };
      }),

    /** Whether the node knows the transaction at all (mined or in its pool); false once dropped. */
    knowsTransaction: (network: CaipNetwork, txHash: Hex) =>
      call(async () => {
        const tx = await client(network)
          .getTransaction({ hash: txHash })
          .catch((err: unknown) => {
            if (err instanceof TransactionNotFoundError) return undefined;
            throw err;
          });
        return Boolean(tx);
      }),

    /** The account's next nonce: `latest` counts mined transactions, `pending` adds the pool's. */
    accountNonce: (network: CaipNetwork, address: Address, blockTag: 'latest' | 'pending') =>
      call(() => client(network).getTransactionCount({ address, blockTag })),

    /** Broadcasts a signed transaction; "already known" and "nonce too low" mean it (or its slot) is already taken and are answered, not thrown. */
    sendRaw: (network: CaipNetwork, raw: Hex) =>
      call(async (): Promise<'sent' | 'known' | 'nonce_taken'> => {
        try {
          await client(network).sendRawTransaction({ serializedTransaction: raw });
          return 'sent';
        } catch (err) {
          const text = `${(err as { details?: string }).details ?? ''} ${(err as Error).message}`;
          if (/already known|already imported|known transaction/i.test(text)) return 'known';
          if (/nonce too low|nonce has already been used|replacement transaction underpriced/i.test(text))
            return 'nonce_taken';
          throw err;
        }
      }),
  };
}

export type ChainReader = ReturnType<typeof createChainReader>;
