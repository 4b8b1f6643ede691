import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { receiptFromHeader, verifyReceipt } from '../../sdk/src/payments';
import { ReceiptIssuer } from '../../shared/payments/extensions/receipts';
import { encodePaymentResponse } from '../../shared/payments/x402/challenge';

const facts = {
  resourceUrl: 'https://agents.example.com/api/external/tools/weather/actions/forecast/invoke',
  payer: '0x5B38Da6a701c568545dCfcB03FcB875f56beddC4',
  network: 'eip155:84532',
  transaction: `0x${'ab'.repeat(32)}`,
};

describe('signed receipts (offer-and-receipt, EIP-712), verified offline by the SDK', () => {
  const issuer = new ReceiptIssuer(generatePrivateKey());

  it('accepts a receipt signed by the service for the facts it names', async () => {
    const receipt = await issuer.issue(facts);
    expect(receipt.payload).toMatchObject({
      version: 1,
      payer: facts.payer.toLowerCase(),
      transaction: facts.transaction,
    });
    const check = await verifyReceipt(receipt, {
      signer: issuer.signer,
      payer: facts.payer,
      resourceUrl: facts.resourceUrl,
      transaction: facts.transaction,
      maxAgeSeconds: 60,
    });
    expect(check.ok).toBe(true);
  });

  it('refuses every tampered field, another signer, a mismatch with what the caller expects, and junk', async () => {
    const receipt = await issuer.issue(facts);
    for (const change of [
      { payer: '0x0000000000000000000000000000000000000001' },
      { transaction: `0x${'cd'.repeat(32)}` },
      { resourceUrl: 'https://evil.example/x' },
      { network: 'eip155:8453' },
      { issuedAt: receipt.payload.issuedAt + 1 },
    ]) {
      const tampered = { ...receipt, payload: { ...receipt.payload, ...change } };
      expect(await verifyReceipt(tampered, { signer: issuer.signer })).toMatchObject({ ok: false });
    }
    const other = privateKeyToAccount(generatePrivateKey()).address;
    expect(await verifyReceipt(receipt, { signer: other })).toMatchObject({ ok: false });
    expect(await verifyReceipt(receipt, { signer: issuer.signer, payer: other })).toMatchObject({ ok: false });
    expect(await verifyReceipt({ ...receipt, signature: '0x1234' }, { signer: issuer.signer })).toMatchObject({
      ok: false,
    });
    expect(await verifyReceipt('nope', { signer: issuer.signer })).toMatchObject({ ok: false });
  });

  it('is read back from PAYMENT-RESPONSE where the extension puts it', async () => {
    const receipt = await issuer.issue(facts);
    const header = encodePaymentResponse({
      success: true,
      transaction: facts.transaction,
      network: 'eip155:84532',
      payer: facts.payer,
      extensions: ReceiptIssuer.extension(receipt),
    });
    expect(receiptFromHeader(header)).toEqual(receipt);
    expect(receiptFromHeader(null)).toBeUndefined();
    expect(receiptFromHeader('%%%')).toBeUndefined();
  });
});
