/** 100 credits = 1 USD. Credits are whole numbers; USD figures are derived, never stored as truth. */
export const CREDITS_PER_USD = 100;

export function creditsToUsd(credits: number): number {
  return credits / CREDITS_PER_USD;
}

/** Token base units for a credit amount, for a token with `decimals` (USDC/EURC: 6). Exact, no floats. */
export function creditsToBaseUnits(credits: number, decimals: number): bigint {
  if (!Number.isSafeInteger(credits) || credits < 0)
    throw new RangeError('credits must be a non-negative safe integer');
  // 1 credit = 1 cent = 10^(decimals-2) base units.
  return BigInt(credits) * 10n ** BigInt(decimals - 2);
}

/** USD value of token base units, as a number for display fields (`amount_usd`). */
export function baseUnitsToUsd(baseUnits: bigint, decimals: number): number {
  const scale = 10n ** BigInt(decimals);
  return Number(baseUnits / scale) + Number(baseUnits % scale) / Number(scale);
}

/** Token base units for a decimal USD string ("0.015"), exact; digits past `decimals` are refused. */
export function usdToBaseUnits(usd: string, decimals: number): bigint {
  const m = /^(\d+)(?:\.(\d+))?$/.exec(usd);
  if (!m) throw new RangeError(`not a decimal amount: ${usd}`);
  const frac = m[2] ?? '';
  if (frac.length > decimals) throw new RangeError(`${usd} has more than ${decimals} decimals`);
  return BigInt(m[1]!) * 10n ** BigInt(decimals) + BigInt(frac.padEnd(decimals, '0') || '0');
}
