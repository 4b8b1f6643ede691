import { english, generateMnemonic, generatePrivateKey } from 'viem/accounts';
import { redact, redactText } from '../../shared/platform/logger/index';

const txHash = '0x' + '5c'.repeat(32);

describe('log redaction: keys and mnemonics go, transaction hashes stay readable', () => {
  it('catches private keys in free text with and without 0x', () => {
    const key = generatePrivateKey();
    expect(redactText(`loaded ${key} ok`)).toBe('loaded 0x[redacted] ok');
    expect(redactText(`raw=${key.slice(2)};`)).toBe('raw=[redacted];');
    expect(redactText(`key: ${key.slice(2).toUpperCase()}`)).toBe('key: [redacted]');
  });

  it('catches mnemonics of every standard length in free text, and nothing shorter', () => {
    for (const strength of [128, 160, 192, 224, 256]) {
      const phrase = generateMnemonic(english, strength);
      const out = redactText(`restore with "${phrase}" please`);
      expect(out).toBe('restore with "[redacted mnemonic]" please');
    }
    expect(redactText('test test test test test test test test test test test junk')).toBe('[redacted mnemonic]');
    const eleven = 'abandon ability able about above absent absorb abstract absurd abuse access';
    expect(redactText(eleven)).toBe(eleven);
    expect(redactText('settlement failed for payment p1: insufficient balance, retry later')).toBe(
      'settlement failed for payment p1: insufficient balance, retry later',
    );
  });

  it('leaves transaction hashes readable by field name and when labelled in text', () => {
    expect(redact({ tx_hash: txHash, transaction: txHash, txHash, hash: txHash })).toEqual({
      tx_hash: txHash,
      transaction: txHash,
      txHash,
      hash: txHash,
    });
    for (const text of [
      `tx ${txHash}`,
      `txHash=${txHash}`,
      `transaction: ${txHash}`,
      `Transaction with hash "${txHash}" not found`,
      `tx_hash ${txHash}`,
    ]) {
      expect(redactText(text)).toBe(text);
    }
    // Unlabelled in text, a 64-hex might be a key: it goes.
    expect(redactText(`value ${txHash}`)).toBe('value 0x[redacted]');
    // A key under an ordinary field is caught; under a secret-looking field the whole value goes.
    expect(redact({ note: `k ${txHash}`, privateKey: 'x', seed: 'y' })).toEqual({
      note: 'k 0x[redacted]',
      privateKey: '[redacted]',
      seed: '[redacted]',
    });
    // Addresses (40 hex) and signatures (130 hex) are not key-shaped.
    const sig = '0x' + '1'.repeat(130);
    expect(redactText(`from 0x${'a'.repeat(40)} sig ${sig}`)).toBe(`from 0x${'a'.repeat(40)} sig ${sig}`);
  });

  it('strips credentials, key-shaped path segments and query values from URLs in text', () => {
    expect(redactText('POST https://u:p@mainnet.infura.io/v3/0123456789abcdef0123456789abcdef?x=1&key=s failed')).toBe(
      'POST https://[redacted]@mainnet.infura.io/v3/[redacted]?x=[redacted]&key=[redacted] failed',
    );
    expect(redactText('callback http://127.0.0.1:8080/hooks/run-done answered 500')).toBe(
      'callback http://127.0.0.1:8080/hooks/run-done answered 500',
    );
  });
});
