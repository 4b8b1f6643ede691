import type { Address, Hex } from 'viem';
import type { X402Config } from '../../platform/config/types';
import { type ChainReader, createChainReader } from './chain-reader';
import { FacilitatorRegistry } from './facilitator-registry';
import type { InProcessFacilitator, PaymentFacilitator } from './facilitator-types';
import { createInProcessFacilitator } from './in-process-facilitator';
import {
  type CaipNetwork,
  networksForMode,
  type NetworkTable,
  SUPPORTED_NETWORKS,
  type SupportedNetwork,
  withTokenOverride,
} from './networks';
import { createRemoteFacilitator } from './remote-facilitator';

export interface PaymentSetup {
  mode: X402Config['mode'];
  networks: NetworkTable;
  payTo: Address;
  facilitator: PaymentFacilitator;
  /** The facilitator for each served network and scheme; the gate and the settlement pick from it. */
  facilitators: FacilitatorRegistry;
  /** Present when we settle ourselves (the durable workflow needs the separate steps). */
  inProcess?: InProcessFacilitator;
  /** The chains this deployment takes payments on: in the mode, and with a way to settle. */
  served: SupportedNetwork[];
  /**
   * Read access to the chains with an X402_RPC_URL_<chainId>. With a remote facilitator it is how
   * an ambiguous settlement (timeout after broadcast) is resolved on chain instead of guessed.
   */
  chain?: ChainReader;
}

/** Builds the payment machinery from config, or says why payments are off. */
export function paymentSetup(config: X402Config): PaymentSetup | { disabled: string } {
  if (!config.payTo) return { disabled: 'X402_PAY_TO is not set' };
  let networks: NetworkTable = SUPPORTED_NETWORKS;
  if (config.localToken) {
    networks = withTokenOverride(networks, {
      chainId: config.localToken.chainId,
      symbol: config.localToken.symbol,
      address: config.localToken.address,
      eip712: { name: config.localToken.name, version: config.localToken.version },
    });
  }
  const inMode = networksForMode(config.mode, networks);
  const logWindowBlocks = BigInt(config.logWindowBlocks ?? 2000);
  if (config.facilitatorUrl) {
    const readable = inMode
      .filter((n) => config.rpcUrls[n.chainId])
      .map((n) => ({ chainId: n.chainId, rpcUrl: config.rpcUrls[n.chainId] }));
    const remote = createRemoteFacilitator({
      url: config.facilitatorUrl,
      networks,
      timeoutMs: config.facilitatorTimeoutMs,
    });
    const chain =
      readable.length > 0
        ? createChainReader({ chains: readable, timeoutMs: config.rpcTimeoutMs, logWindowBlocks })
        : undefined;
    const facilitator = chain ? withVerifiedBlock(remote, chain) : remote;
    return {
      mode: config.mode,
      networks,
      payTo: config.payTo as Address,
      facilitator,
      facilitators: registryFor(inMode, facilitator),
      served: inMode,
      ...(chain ? { chain } : {}),
    };
  }
  if (!config.settlementPrivateKey)
    return { disabled: 'neither X402_FACILITATOR_URL nor X402_SETTLEMENT_PRIVATE_KEY is set' };
  const chains = inMode
    .filter((n) => config.rpcUrls[n.chainId])
    .map((n) => ({
      chainId: n.chainId,
      rpcUrl: config.rpcUrls[n.chainId],
      settlementPrivateKey: config.settlementPrivateKey as Hex,
    }));
  if (chains.length === 0) return { disabled: `no X402_RPC_URL_<chainId> for the ${config.mode} networks` };
  const inProcess = createInProcessFacilitator({
    chains,
    networks,
    receiptPollMs: 200,
    rpcTimeoutMs: config.rpcTimeoutMs,
    logWindowBlocks,
  });
  const served = inMode.filter((n) => config.rpcUrls[n.chainId]);
  return {
    mode: config.mode,
    networks,
    payTo: config.payTo as Address,
    facilitator: inProcess,
    facilitators: registryFor(served, inProcess),
    inProcess,
    chain: inProcess.chain,
    served,
  };
}

/** Every served network takes the `exact` scheme through `facilitator`. */
function registryFor(served: SupportedNetwork[], facilitator: PaymentFacilitator): FacilitatorRegistry {
  const registry = new FacilitatorRegistry();
  for (const n of served) registry.register(n.network, 'exact', facilitator);
  return registry;
}

/**
 * A remote facilitator's verification plus the block number read beside it, where the payment's
 * later log searches start. The facilitator stays the judge: a failed read only loses the hint.
 */
function withVerifiedBlock(remote: PaymentFacilitator, chain: ChainReader): PaymentFacilitator {
  return {
    ...remote,
    verifyPayment: async (payload, requirements) => {
      const [block, result] = await Promise.allSettled([
        chain.serves(requirements.network)
          ? chain.blockNumber(requirements.network as CaipNetwork)
          : Promise.resolve(undefined),
        remote.verifyPayment(payload, requirements),
      ]);
      if (result.status === 'rejected') throw result.reason;
      if (!result.value.ok || block.status !== 'fulfilled' || block.value === undefined) return result.value;
      return { ...result.value, blockNumber: block.value.toString() };
    },
  };
}
