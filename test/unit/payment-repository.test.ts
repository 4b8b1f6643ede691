import { declarations, filesMatching, sourceText } from '../support/sources';

// The x402 payment records have one writer (shared/payments/payment-repository.ts), the settlement
// flows' activities are thin maps onto the payments use cases, and a payment's state and a job's
// payment status are two names: checked over the server's own sources.

describe('the x402 payment records', () => {
  it('are reached through PaymentRepository only (the model registries aside)', () => {
    expect(filesMatching(/\bx402Payments\b|\bx402DeliveryOutcomes\b/)).toEqual([
      'shared/composition/models.ts',
      'shared/payments/models/index.ts',
      'shared/payments/payment-repository.ts',
    ]);
  });
});

describe('the settlement flows', () => {
  const activities = ['temporal/x402-settlement/activities.ts', 'temporal/x402-sweep/activities.ts'];

  it.each(activities)('%s builds nothing and reads no store: its use case comes in', (file) => {
    const src = sourceText.get(file)!;
    expect(src).not.toMatch(/\bnew\s+\w*(?:Repository|Store|Claims|Payments|Settlement|Sweep)\b/);
    expect(src).not.toMatch(/\bmodels\b|\?\?/);
  });
});

describe('one meaning per name', () => {
  it.each(['X402PaymentState', 'JobPaymentStatus'])('%s is declared once', (name) => {
    expect(declarations(name)).toHaveLength(1);
  });

  it('no type is named PaymentStatus on the server (it meant a payment state and a job payment status)', () => {
    expect(declarations('PaymentStatus')).toEqual([]);
  });
});
