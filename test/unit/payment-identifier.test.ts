import { declarePaymentIdentifierExtension, PAYMENT_IDENTIFIER } from '@x402/extensions/payment-identifier';
import { paymentIdentifierOf } from '../../shared/payments/extensions/payment-identifier';
import type { CheckedPaymentPayload } from '../../shared/payments/payment-payload';

const declared = declarePaymentIdentifierExtension(false);

/** A payment as the official client sends it: our declaration echoed back, schema included. */
function payment(extension: unknown): CheckedPaymentPayload {
  return {
    x402Version: 2,
    accepted: { scheme: 'exact', network: 'eip155:84532', asset: '0x' + '1'.repeat(40) },
    payload: {
      authorization: {
        from: '0x' + '3'.repeat(40),
        to: '0x' + '2'.repeat(40),
        value: '500',
        validAfter: '0',
        validBefore: '99999999999',
        nonce: '0x' + '4'.repeat(64),
      },
      signature: '0x' + '5'.repeat(130),
    },
    extensions: { [PAYMENT_IDENTIFIER]: extension },
  };
}

describe('paymentIdentifierOf', () => {
  it('reads the id from the echoed declaration, and none when the payer set none', () => {
    expect(paymentIdentifierOf(payment({ ...declared, info: { ...declared.info, id: 'pay_0123456789abcdef' } }))).toBe(
      'pay_0123456789abcdef',
    );
    expect(paymentIdentifierOf(payment(declared))).toBeUndefined();
    expect(paymentIdentifierOf({ ...payment(declared), extensions: undefined })).toBeUndefined();
  });

  it("never compiles the payer's schema: one that cannot compile, or would allow anything, changes nothing", () => {
    const id = 'pay_0123456789abcdef';
    expect(paymentIdentifierOf(payment({ info: { required: false, id }, schema: { type: 'no-such-type' } }))).toBe(id);
    expect(() => paymentIdentifierOf(payment({ info: { required: false, id: 'short' }, schema: {} }))).toThrow(
      expect.objectContaining({ code: 'invalid_payment_identifier' }),
    );
  });

  it('refuses a malformed extension with 400 invalid_payment_identifier', () => {
    for (const bad of [
      'not-an-object',
      { schema: declared.schema },
      { info: { id: 'pay_0123456789abcdef' } },
      { info: { required: false, id: 'has spaces in it, sixteen+' } },
      { info: { required: false, id: 'x'.repeat(129) } },
      { info: { required: false, id: 42 } },
    ])
      expect(() => paymentIdentifierOf(payment(bad))).toThrow(
        expect.objectContaining({ status: 400, code: 'invalid_payment_identifier' }),
      );
  });
});
