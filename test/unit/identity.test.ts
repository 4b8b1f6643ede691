import { english, generateMnemonic, mnemonicToAccount, privateKeyToAccount } from 'viem/accounts';
import { createAgentWallet, deriveFromMnemonic, WalletDerivationError } from '../../shared/identity/derive-wallet';

const HARDHAT_MNEMONIC = 'test test test test test test test test test test test junk';
const HARDHAT_ADDRESS = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const HARDHAT_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';

function reasonOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(WalletDerivationError);
    return (error as WalletDerivationError).reason;
  }
  return undefined;
}

describe('createAgentWallet', () => {
  it("returns a valid 12-word mnemonic, a 32-byte key and the matching m/44'/60'/0'/0/0 address", () => {
    const wallet = createAgentWallet();
    const words = wallet.mnemonic.split(' ');
    expect(words).toHaveLength(12);
    expect(words.every((word) => english.includes(word))).toBe(true);
    expect(wallet.evmPrivateKey).toMatch(/^0x[0-9a-f]{64}$/);
    expect(wallet.evmAddress).toMatch(/^0x[0-9a-fA-F]{40}$/);

    expect(mnemonicToAccount(wallet.mnemonic, { path: "m/44'/60'/0'/0/0" }).address).toBe(wallet.evmAddress);
    expect(privateKeyToAccount(wallet.evmPrivateKey).address).toBe(wallet.evmAddress);
    // Checksum-valid: it derives again through the validating path.
    expect(deriveFromMnemonic(wallet.mnemonic)).toEqual(wallet);
  });

  it('gives a different wallet on every call', () => {
    const first = createAgentWallet();
    const second = createAgentWallet();
    expect(second.mnemonic).not.toBe(first.mnemonic);
    expect(second.evmPrivateKey).not.toBe(first.evmPrivateKey);
    expect(second.evmAddress).not.toBe(first.evmAddress);
  });
});

describe('deriveFromMnemonic', () => {
  it('derives the well-known dev account from "test test ... junk"', () => {
    expect(deriveFromMnemonic(HARDHAT_MNEMONIC)).toEqual({
      evmAddress: HARDHAT_ADDRESS,
      evmPrivateKey: HARDHAT_KEY,
      mnemonic: HARDHAT_MNEMONIC,
    });
  });

  it('normalizes surrounding and repeated whitespace', () => {
    expect(deriveFromMnemonic(`  ${HARDHAT_MNEMONIC.replaceAll(' ', ' \n ')}\t`).evmAddress).toBe(HARDHAT_ADDRESS);
  });

  it('accepts a 24-word mnemonic', () => {
    const mnemonic = generateMnemonic(english, 256);
    const wallet = deriveFromMnemonic(mnemonic);
    expect(wallet.mnemonic.split(' ')).toHaveLength(24);
    expect(privateKeyToAccount(wallet.evmPrivateKey).address).toBe(wallet.evmAddress);
  });

  it.each([
    ['bad checksum', 'test test test test test test test test test test test test'],
    ['unknown word', 'test test test test test test test test test test test junkk'],
    ['wrong word count', 'test test test test test test test test test test junk'],
    ['empty', ''],
    ['not a string', 42 as unknown as string],
  ])('throws WalletDerivationError(invalid_mnemonic) for %s', (_label, mnemonic) => {
    expect(reasonOf(() => deriveFromMnemonic(mnemonic))).toBe('invalid_mnemonic');
  });

  it('does not put the mnemonic in the error message', () => {
    const mnemonic = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon';
    try {
      deriveFromMnemonic(mnemonic);
      throw new Error('expected a WalletDerivationError');
    } catch (error) {
      expect(error).toBeInstanceOf(WalletDerivationError);
      expect((error as Error).message).not.toContain('abandon');
    }
  });
});
