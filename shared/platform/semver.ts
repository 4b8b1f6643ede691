/** Published versions are strict semantic versions MAJOR.MINOR.PATCH (no pre-release or build parts). */
const SEMVER = /^(0|[1-9]\d{0,8})\.(0|[1-9]\d{0,8})\.(0|[1-9]\d{0,8})$/;

export function isSemver(v: string): boolean {
  return SEMVER.test(v);
}

/** Negative when a < b, zero when equal, positive when a > b. Both must be valid. */
export function compareSemver(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < 3; i++) if (pa[i] !== pb[i]) return pa[i] - pb[i];
  return 0;
}

/** A text key that sorts like the version: each part zero-padded to the nine digits it may have. */
export function semverKey(v: string): string {
  return v
    .split('.')
    .map((p) => p.padStart(9, '0'))
    .join('.');
}
