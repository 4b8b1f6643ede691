import { bytesToHex, type Hex } from 'viem';
import { type HDAccount, mnemonicToAccount } from 'viem/accounts';
import { DEV_MNEMONIC } from '../../platform/config/chains';

// Scripts and tests take the dev accounts and their mnemonic from this one module.
export { DEV_MNEMONIC };

/** Roles for the first few dev accounts, so tests and scripts agree on who is who. */
export const DEV_ACCOUNT_INDEX = {
  deployer: 0,
  facilitator: 1,
  merchant: 2,
  payer: 3,
} as const;

/** The dev account at `m/44'/60'/0'/0/{index}`. */
export function devAccount(index: number): HDAccount {
  if (!Number.isInteger(index) || index < 0)
    throw new Error(`dev account index must be a non-negative integer, got ${index}`);
  return mnemonicToAccount(DEV_MNEMONIC, { addressIndex: index });
}

/** The private key of a dev account, for code that takes keys (e.g. the facilitator's settlement signer). */
export function devPrivateKey(index: number): Hex {
  const key = devAccount(index).getHdKey().privateKey;
  if (!key) throw new Error(`dev account ${index} has no private key`);
  return bytesToHex(key);
}
