import { type Address, verifyTypedData } from 'viem';
import type { CheckedPaymentPayload } from './payment-payload';
import type { PaymentRequirements } from './x402/challenge';

/** EIP-3009's typed data, as the tokens sign it. */
const TRANSFER_WITH_AUTHORIZATION = {
  TransferWithAuthorization: [
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const;

/** Whether the payload's EIP-3009 authorization is signed by its `from` for `chosen`'s token (offline, no chain read). */
export function signsTransferAuthorization(
  payload: CheckedPaymentPayload,
  chosen: PaymentRequirements,
): Promise<boolean> {
  const auth = payload.payload.authorization;
  const extra = chosen.extra as { name: string; version: string };
  return verifyTypedData({
    address: auth.from as Address,
    domain: {
      name: extra.name,
      version: extra.version,
      chainId: Number(chosen.network.split(':')[1]),
      verifyingContract: chosen.asset as Address,
    },
    types: TRANSFER_WITH_AUTHORIZATION,
    primaryType: 'TransferWithAuthorization',
    message: {
      from: auth.from as Address,
      to: auth.to as Address,
      value: BigInt(auth.value),
      validAfter: BigInt(auth.validAfter),
      validBefore: BigInt(auth.validBefore),
      nonce: auth.nonce as `0x${string}`,
    },
    signature: payload.payload.signature as `0x${string}`,
  }).catch(() => false);
}
