import { type Address, type Hex, toHex } from 'viem';
import { english, generateMnemonic, mnemonicToAccount, privateKeyToAccount } from 'viem/accounts';
import { sha256 } from '../platform/ids/index';

export interface AgentWallet {
  evmAddress: Address;
  evmPrivateKey: Hex;
  mnemonic: string;
}

export type WalletDerivationReason =
  'generation_failed' | 'invalid_mnemonic' | 'derivation_failed' | 'missing_private_key' | 'address_mismatch';

/** Carries a reason code only; the message never includes the mnemonic or key. */
export class WalletDerivationError extends Error {
  override name = 'WalletDerivationError';

  constructor(
    readonly reason: WalletDerivationReason,
    options?: { cause?: unknown },
  ) {
    super(`wallet derivation failed: ${reason}`, options);
  }
}

/** BIP-44 first Ethereum account, m/44'/60'/0'/0/0. */
const ACCOUNT_PATH = { accountIndex: 0, changeIndex: 0, addressIndex: 0 } as const;

/**
 * A fresh wallet for an agent. 128 bits of entropy (12 words): secp256k1 keys
 * give ~128-bit security anyway, so 24 words would add length, not strength.
 */
export function createAgentWallet(): AgentWallet {
  let mnemonic: string;
  try {
    mnemonic = generateMnemonic(english, 128);
  } catch (cause) {
    throw new WalletDerivationError('generation_failed', { cause });
  }
  return deriveFromMnemonic(mnemonic);
}

/** The wallet at m/44'/60'/0'/0/0 of an English BIP-39 mnemonic (whitespace is normalized). */
export function deriveFromMnemonic(mnemonic: string): AgentWallet {
  const normalized = typeof mnemonic === 'string' ? mnemonic.normalize('NFKD').trim().split(/\s+/).join(' ') : '';
  // viem derives a seed from any 12-24 word string without checking the checksum.
  if (!isValidEnglishMnemonic(normalized)) throw new WalletDerivationError('invalid_mnemonic');

  let account: ReturnType<typeof mnemonicToAccount>;
  try {
    account = mnemonicToAccount(normalized, ACCOUNT_PATH);
  } catch (cause) {
    throw new WalletDerivationError('derivation_failed', { cause });
  }
  const keyBytes = account.getHdKey().privateKey;
  if (!keyBytes || keyBytes.length !== 32) throw new WalletDerivationError('missing_private_key');
  const evmPrivateKey = toHex(keyBytes);
  if (privateKeyToAccount(evmPrivateKey).address !== account.address) {
    throw new WalletDerivationError('address_mismatch');
  }
  return { evmAddress: account.address, evmPrivateKey, mnemonic: normalized };
}

const WORD_COUNTS = new Set([12, 15, 18, 21, 24]);
const WORD_INDEX = new Map(english.map((word, index) => [word, index]));

/** BIP-39: 11 bits per word; the last words/3 bits are the leading bits of sha256(entropy). */
function isValidEnglishMnemonic(mnemonic: string): boolean {
  const words = mnemonic.split(' ');
  if (!WORD_COUNTS.has(words.length)) return false;
  let bits = '';
  for (const word of words) {
    const index = WORD_INDEX.get(word);
    if (index === undefined) return false;
    bits += index.toString(2).padStart(11, '0');
  }
  const checksumLength = words.length / 3;
  const entropyBits = bits.slice(0, bits.length - checksumLength);
  const entropy = Buffer.from(entropyBits.match(/.{8}/g)!.map((byte) => Number.parseInt(byte, 2)));
  const hashFirstByte = sha256(entropy)[0]!;
  const expected = hashFirstByte.toString(2).padStart(8, '0').slice(0, checksumLength);
  return bits.slice(bits.length - checksumLength) === expected;
}
