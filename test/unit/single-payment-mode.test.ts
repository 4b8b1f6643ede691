import { refuseMixedPaymentModes } from '../../shared/payments/single-payment-mode';

describe('a request pays one way', () => {
  it('refuses a payment beside a signed envelope, naming the envelope fields it saw', () => {
    expect(() => refuseMixedPaymentModes({ signature: '0x1', session_nonce: 'n', request_id: 'r' }, 'x402')).toThrow(
      expect.objectContaining({
        status: 400,
        code: 'mixed_payment_modes',
        details: { envelope_fields: ['signature', 'session_nonce'] },
      }),
    );
  });

  it('lets either alone through, and the fields both modes share', () => {
    expect(() => refuseMixedPaymentModes({ signature: '0x1' }, undefined)).not.toThrow();
    expect(() => refuseMixedPaymentModes({ city: 'Lisbon' }, 'x402')).not.toThrow();
    expect(() => refuseMixedPaymentModes({ wallet_address: '0xabc', request_id: 'r' }, 'x402')).not.toThrow();
  });

  it('leaves a body that is no object to the body checks', () => {
    for (const body of [undefined, null, 'text', ['signature']])
      expect(() => refuseMixedPaymentModes(body, 'x402')).not.toThrow();
  });
});
