import { createSIWxMessage, encodeSIWxHeader } from '@x402/extensions/sign-in-with-x';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { paymentIdentifierKey, PaymentIdentifiers } from '../../shared/payments/extensions/payment-identifier';
import { SignInWithX } from '../../shared/payments/extensions/sign-in-with-x';
import { PAYMENT_IDENTIFIER_RETENTION_MS } from '../../shared/payments/housekeeping';
import { createCreditExpiryActivities } from '../../temporal/credit-expiry/activities';
import { openTestDb } from '../support/db';
import { repositoriesOf } from '../support/repositories';

const BASE = 'https://agents.example.com';
const RESOURCE = `${BASE}/api/external/tools/p/actions/a/invoke`;
const HOUR = 3600_000;

/** A sign-in-with-x proof signed now by a fresh, self-made wallet (no credits, no payment needed). */
async function selfMadeProof(siwx: SignInWithX): Promise<string> {
  const account = privateKeyToAccount(generatePrivateKey());
  const ext = siwx.declaration(RESOURCE)['sign-in-with-x'] as { info: Record<string, string> };
  const info = { ...ext.info, chainId: 'eip155:84532', type: 'eip191' as const };
  const signature = await account.signMessage({ message: createSIWxMessage(info as never, account.address) });
  return encodeSIWxHeader({ ...info, address: account.address, signature } as never);
}

describe('housekeeping deletes the x402 extensions rows past use on the real store (issue 37, item 6)', () => {
  let db: Awaited<ReturnType<typeof openTestDb>>;
  beforeAll(async () => {
    db = await openTestDb();
  });
  afterAll(async () => {
    await db?.drop();
  });

  it('sign-in-with-x nonces go an hour past their expiry and payment identifiers after their retention (24 h); live ones stay', async () => {
    const now = new Date();
    const siwx = new SignInWithX(db.models, BASE, ['eip155:84532']);
    // A fresh self-made wallet's valid proof inserts its nonce: each such proof is a row.
    const live = await siwx.verify(await selfMadeProof(siwx), RESOURCE);
    const liveNonce = `${live.wallet}:${live.nonce}`;
    expect(await db.models.siwxNonces.findById(liveNonce).lean().exec()).not.toBeNull();
    // Rows the same proofs wrote earlier: expired three hours ago, and half an hour ago (within the margin).
    await db.models.siwxNonces.collection.insertMany([
      { _id: 'old', expires_at: new Date(now.getTime() - 3 * HOUR), created_at: new Date(now.getTime() - 3 * HOUR) },
      {
        _id: 'recent',
        expires_at: new Date(now.getTime() - HOUR / 2),
        created_at: new Date(now.getTime() - HOUR / 2),
      },
    ] as never);

    const identifiers = new PaymentIdentifiers(db.models);
    const payer = '0x' + '7a'.repeat(20);
    expect(await identifiers.claim(payer, 'id-live-000000000001', 'pay-live', 'fp')).toMatchObject({ kind: 'claimed' });
    await db.models.paymentIdentifiers.collection.insertMany([
      {
        _id: paymentIdentifierKey(payer, 'id-old-0000000000001'),
        payment_id: 'pay-old',
        fingerprint: 'fp',
        created_at: new Date(now.getTime() - PAYMENT_IDENTIFIER_RETENTION_MS - HOUR),
      },
      {
        _id: paymentIdentifierKey(payer, 'id-recent-00000000001'),
        payment_id: 'pay-recent',
        fingerprint: 'fp',
        created_at: new Date(now.getTime() - PAYMENT_IDENTIFIER_RETENTION_MS + HOUR),
      },
    ] as never);

    // Housekeeping runs where the sweep runs it: the credit-expiry sweep's prune activity.
    const acts = createCreditExpiryActivities({
      models: db.models,
      ledger: repositoriesOf(db).ledger,
      sessionTtlSeconds: 3600,
    });
    const pruned = await acts.pruneAuthRecords(now.toISOString());

    expect(pruned).toMatchObject({ siwxNonces: 1, paymentIdentifiers: 1 });
    const nonces = (await db.models.siwxNonces.find().lean().exec()).map((r) => r._id).sort();
    expect(nonces).toEqual([liveNonce, 'recent'].sort());
    const ids = (await db.models.paymentIdentifiers.find().lean().exec()).map((r) => r.payment_id).sort();
    expect(ids).toEqual(['pay-live', 'pay-recent']);
  });
});
