import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { type PaymentRequired, x402Client } from '@x402/fetch';
import type { Address, Hex } from 'viem';
import { createPublicClient, createWalletClient, erc20Abi, http, parseEther, parseEventLogs } from 'viem';
import { generatePrivateKey, type LocalAccount, privateKeyToAccount } from 'viem/accounts';
import { mintTokens, tokenBalance } from '../../shared/payments/chain/deploy-token';
import { DEV_ACCOUNT_INDEX, devAccount } from '../../shared/payments/chain/dev-accounts';
import { encodePaymentPayload } from '../../shared/payments/x402/challenge';
import { viemChain } from '../../shared/payments/x402/networks';

const CHAIN_ID = 84532;

/** A wallet holding the local test token, paying through the official x402 v2 client. */
export class TestPayer {
  readonly account: LocalAccount;
  constructor(key: Hex = generatePrivateKey()) {
    this.account = privateKeyToAccount(key);
  }

  static tokenAddress(): Address {
    return process.env.X402_LOCAL_TOKEN_ADDRESS as Address;
  }

  static rpcUrl(): string {
    return process.env[`X402_RPC_URL_${CHAIN_ID}`]!;
  }

  async fund(usd: number): Promise<void> {
    await mintTokens({
      rpcUrl: TestPayer.rpcUrl(),
      chainId: CHAIN_ID,
      token: TestPayer.tokenAddress(),
      to: this.account.address,
      amount: BigInt(usd) * 1_000_000n,
    });
  }

  /** A little ETH, for tests where the payer sends a transaction of its own. */
  async fundGas(): Promise<void> {
    const wallet = createWalletClient({
      account: devAccount(DEV_ACCOUNT_INDEX.deployer),
      chain: viemChain(CHAIN_ID, TestPayer.rpcUrl()),
      transport: http(TestPayer.rpcUrl()),
    });
    await wallet.sendTransaction({ to: this.account.address, value: parseEther('1') });
  }

  balance(owner: Address = this.account.address): Promise<bigint> {
    return tokenBalance({ rpcUrl: TestPayer.rpcUrl(), chainId: CHAIN_ID, token: TestPayer.tokenAddress(), owner });
  }

  /**
   * The token this payer sent to `to` in transaction `tx`, from the receipt's Transfer logs. On
   * the chain other test files share, a balance difference of a common merchant also counts
   * their payments; a transaction's own logs do not.
   */
  async paidIn(tx: Hex, to: Address): Promise<bigint> {
    const client = createPublicClient({
      chain: viemChain(CHAIN_ID, TestPayer.rpcUrl()),
      transport: http(TestPayer.rpcUrl()),
    });
    const receipt = await client.getTransactionReceipt({ hash: tx });
    const token = TestPayer.tokenAddress().toLowerCase();
    return parseEventLogs({ abi: erc20Abi, eventName: 'Transfer', logs: receipt.logs })
      .filter(
        (l) =>
          l.address.toLowerCase() === token &&
          l.args.from.toLowerCase() === this.account.address.toLowerCase() &&
          l.args.to.toLowerCase() === to.toLowerCase(),
      )
      .reduce((sum, l) => sum + l.args.value, 0n);
  }

  /** The official client; the local token is not in its default asset list, so the payer opts in. */
  client(): x402Client {
    const client = new x402Client();
    registerExactEvmScheme(client, { signer: this.account });
    client.setSpendControls({ allowedAssets: [{ network: `eip155:${CHAIN_ID}`, asset: TestPayer.tokenAddress() }] });
    return client;
  }

  /** A payment header for a challenge, made by the official client. */
  async paymentHeader(challenge: PaymentRequired): Promise<string> {
    return encodePaymentPayload(await this.client().createPaymentPayload(challenge));
  }
}
