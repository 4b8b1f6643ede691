import jsSha3 from 'js-sha3';
import { ecdsaRecover } from 'secp256k1';
import { type Address, getAddress } from 'viem';

const SIGNATURE_PATTERN = /^0x[0-9a-fA-F]{130}$/;
const ADDRESS_PATTERN = /^0x[0-9a-fA-F]{40}$/;
const SECP256K1_HALF_ORDER = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;
// 27/28 is what personal_sign produces; 0/1 is the raw recovery id some signers emit.
const RECOVERY_BYTES = new Set([0, 1, 27, 28]);
const EIP191_PREFIX = '\x19Ethereum Signed Message:\n';

/**
 * Only well-formed, low-s (EIP-2) 65-byte signatures get to the expensive
 * recovery. Rejecting high-s means a third party cannot turn a valid signature
 * into a second valid one for the same message.
 */
function isWellFormedSignature(signature: string): boolean {
  if (!SIGNATURE_PATTERN.test(signature)) return false;
  const s = BigInt(`0x${signature.slice(66, 130)}`);
  const recoveryByte = Number.parseInt(signature.slice(130, 132), 16);
  return s > 0n && s <= SECP256K1_HALF_ORDER && RECOVERY_BYTES.has(recoveryByte);
}

/**
 * The signer's address as lower-case hex, or null. This runs on every signed request, so it uses
 * libsecp256k1 (the binding prebuilt in the npm tarball; the package falls back to pure JS if it
 * does not load) instead of @noble/curves, which viem uses and which is over an order of magnitude
 * slower, and bytes all the way: the EIP-191 digest and the address are each one keccak over bytes,
 * with no hex round trips and no checksum (a third keccak) that a comparison does not need. Keccak
 * by js-sha3, faster here than @noble/hashes (viem's) for messages of a few hundred bytes. The
 * figures are in docs/decisions.md.
 */
const keccak = (bytes: Uint8Array): Buffer => Buffer.from(jsSha3.keccak256.arrayBuffer(bytes));

function recoverLowerAddress(message: string, signature: string): string | null {
  if (typeof message !== 'string' || typeof signature !== 'string' || !isWellFormedSignature(signature)) return null;
  try {
    const bytes = Buffer.from(signature.slice(2), 'hex');
    const v = bytes[64];
    const text = Buffer.from(message, 'utf8');
    const digest = keccak(Buffer.concat([Buffer.from(`${EIP191_PREFIX}${text.length}`, 'utf8'), text]));
    const publicKey = ecdsaRecover(bytes.subarray(0, 64), v >= 27 ? v - 27 : v, digest, false);
    // The address is the last 20 bytes of keccak256 of the uncompressed key without its 0x04 prefix.
    return `0x${keccak(publicKey.subarray(1)).subarray(12).toString('hex')}`;
  } catch {
    return null;
  }
}

/** Address that signed `message` (EIP-191, checksummed), or null when the signature is malformed. Never throws. */
export async function recoverSigner(message: string, signature: string): Promise<Address | null> {
  const address = recoverLowerAddress(message, signature);
  return address === null ? null : getAddress(address);
}

/** True only when `signature` over `message` recovers to `wallet` (compared case-insensitively). */
export async function isSignatureFrom(message: string, signature: string, wallet: string): Promise<boolean> {
  if (typeof wallet !== 'string' || !ADDRESS_PATTERN.test(wallet)) return false;
  const signer = recoverLowerAddress(message, signature);
  return signer !== null && signer === wallet.toLowerCase();
}
