import type { ClaimState } from './repository';

export type ClaimStatus = 'active' | 'released' | 'advanced' | 'expired';

/**
 * What a claim is now. A lease past its expiry is expired by the clock alone, before the lease
 * workflow's timer has recorded it, so a stale holder is refused however late the timer fires.
 */
export function claimStatus(s: ClaimState, now: Date): ClaimStatus {
  if (s.end) return s.end.kind;
  return s.claim.lease_expires_at.getTime() <= now.getTime() ? 'expired' : 'active';
}

export interface LeaseBounds {
  minSeconds: number;
  maxSeconds: number;
  defaultSeconds: number;
}
