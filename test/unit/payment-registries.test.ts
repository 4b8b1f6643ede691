import { usdToBaseUnits } from '../../shared/credits/money';
import { purposeAs, PURPOSES, purposeWallet } from '../../shared/payments/purposes';
import { FacilitatorRegistry } from '../../shared/payments/x402/facilitator-registry';
import type { PaymentFacilitator } from '../../shared/payments/x402/facilitator-types';

describe('payment registries (pure)', () => {
  it('picks a facilitator by CAIP-2 network and scheme; register() chains', () => {
    const a = { name: 'a' } as unknown as PaymentFacilitator;
    const b = { name: 'b' } as unknown as PaymentFacilitator;
    const reg = new FacilitatorRegistry().register('eip155:84532', 'exact', a).register('eip155:8453', 'exact', b);
    expect(reg.get('eip155:84532', 'exact')).toBe(a);
    expect(reg.get('eip155:8453', 'exact')).toBe(b);
    expect(reg.get('eip155:8453', 'upto')).toBeUndefined();
    expect(reg.get('eip155:1', 'exact')).toBeUndefined();
    expect(reg.keys()).toEqual([
      ['eip155:84532', 'exact'],
      ['eip155:8453', 'exact'],
    ]);
  });

  it('knows every purpose kind: the wallet it is searchable by, and narrows by kind', () => {
    expect(Object.keys(PURPOSES).sort()).toEqual(['credit_purchase', 'tool_call']);
    const credit = { kind: 'credit_purchase' as const, wallet: '0xabc', credits: 5 };
    const tool = { kind: 'tool_call' as const, product: 'p', product_id: 'id', action: 'a', params_sha256: 'x' };
    expect(purposeWallet(credit)).toBe('0xabc');
    expect(purposeWallet(tool)).toBeUndefined();
    expect(purposeAs(credit, 'credit_purchase')?.credits).toBe(5);
    expect(purposeAs(tool, 'credit_purchase')).toBeUndefined();
  });

  it('converts decimal USD prices to base units exactly', () => {
    expect(usdToBaseUnits('0.01', 6)).toBe(10_000n);
    expect(usdToBaseUnits('2', 6)).toBe(2_000_000n);
    expect(usdToBaseUnits('0.000001', 6)).toBe(1n);
    expect(() => usdToBaseUnits('0.0000001', 6)).toThrow(RangeError);
    expect(() => usdToBaseUnits('-1', 6)).toThrow(RangeError);
  });
});
