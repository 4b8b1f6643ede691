import crypto from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1';
import { hashMessage, recoverMessageAddress, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { isSignatureFrom } from '../shared/signing';

function time(name: string, n: number, fn: (i: number) => unknown) { const t = performance.now(); for (let i = 0; i < n; i++) fn(i); console.log(name.padEnd(50), ((performance.now() - t) / n).toFixed(3), 'ms/op'); }
async function atime(name: string, n: number, fn: (i: number) => Promise<unknown>) { const t = performance.now(); for (let i = 0; i < n; i++) await fn(i); console.log(name.padEnd(50), ((performance.now() - t) / n).toFixed(3), 'ms/op'); }
async function main() {
  const key = generatePrivateKey(); const acct = privateKeyToAccount(key);
  const msgs = Array.from({ length: 300 }, (_, i) => `message ${i} ${'x'.repeat(200)}`);
  const sigs = await Promise.all(msgs.map((m) => acct.signMessage({ message: m })));
  await atime('viem recoverMessageAddress', 300, (i) => recoverMessageAddress({ message: msgs[i], signature: sigs[i] }));
  await atime('service isSignatureFrom', 300, (i) => isSignatureFrom(msgs[i], sigs[i], acct.address));
  const hashes = msgs.map((m) => hashMessage(m).slice(2));
  const pub = secp256k1.getPublicKey(key.slice(2), false);
  const compact = sigs.map((s) => s.slice(2, 130));
  time('noble verify, pubkey bytes (no precompute)', 300, (i) => secp256k1.verify(compact[i], hashes[i], pub, { lowS: true }));
  const P = secp256k1.ProjectivePoint.fromHex(pub); P._setWindowSize(8); P.multiply(3n);
  time('noble verify, cached point + precompute(8)', 300, (i) => secp256k1.verify(compact[i], hashes[i], P.toRawBytes(false), { lowS: true }));
  // native OpenSSL: is a raw (prehashed) ECDSA verify available? try null algorithm on the digest
  const jwk = { kty: 'EC', crv: 'secp256k1', x: Buffer.from(pub.slice(1, 33)).toString('base64url'), y: Buffer.from(pub.slice(33)).toString('base64url') };
  const kobj = crypto.createPublicKey({ key: jwk, format: 'jwk' });
  const ok = crypto.verify(null, Buffer.from(hashes[0], 'hex'), { key: kobj, dsaEncoding: 'ieee-p1363' }, Buffer.from(compact[0], 'hex'));
  console.log('node:crypto verify(null, digest) accepts a keccak prehash:', ok);
}
main();
