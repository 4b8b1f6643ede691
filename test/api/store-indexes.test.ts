import mongoose from 'mongoose';
import { http } from '../support/http';
import { startTestStack, TestStack } from '../support/stack';

async function waitForState(stack: TestStack, wanted: string, timeoutMs = 20_000): Promise<void> {
  const started = Date.now();
  while (stack.db.state() !== wanted) {
    if (Date.now() - started > timeoutMs) throw new Error(`store state is ${stack.db.state()}, not ${wanted}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Prepares a database the way an operator might find it, before the API connects to it. */
async function prepare(dbName: string, fn: (db: mongoose.mongo.Db) => Promise<unknown>): Promise<void> {
  const conn = await mongoose
    .createConnection(process.env.MONGODB_URI ?? 'mongodb://127.0.0.1:27017', { dbName })
    .asPromise();
  try {
    await fn(conn.db!);
  } finally {
    await conn.close();
  }
}

describe('the store is not up until its unique indexes exist', () => {
  const stacks: TestStack[] = [];
  afterAll(async () => {
    for (const s of stacks) await s.stop();
  });

  it.each([
    [
      'duplicates that prevent a unique index',
      (db: mongoose.mongo.Db) =>
        db.collection('x402_payments').insertMany([
          { _id: 'p1' as never, purpose_key: 'credit_purchase:same' },
          { _id: 'p2' as never, purpose_key: 'credit_purchase:same' },
        ]),
    ],
    [
      'a conflicting index of the same name',
      (db: mongoose.mongo.Db) =>
        db.collection('x402_payments').createIndex({ purpose_key: 1 }, { name: 'purpose_key_1', unique: false }),
    ],
  ])('%s: the store stays down (loudly), requests answer 503 store_indexes_failed', async (_label, breakIt) => {
    const dbName = `${process.env.MONGODB_DB_NAME}_${stacks.length}`;
    await prepare(dbName, breakIt);
    const stack = await startTestStack({ env: { MONGODB_DB_NAME: dbName }, waitForStore: false });
    stacks.push(stack);
    await waitForState(stack, 'index_failed');
    expect(stack.db.isUp()).toBe(false);
    await expect(stack.db.ready(1000)).rejects.toThrow(/indexes could not be built: x402_payments/);

    const res = await http('POST', `${stack.server.mainUrl}/api/external/auth/session`, {
      body: { wallet_address: '0x' + '1'.repeat(40) },
      headers: { 'x-request-id': 'idx-1' },
    });
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({
      error: 'Service Unavailable',
      error_code: 'store_indexes_failed',
      request_id: 'idx-1',
    });
    const bearer = await http('GET', `${stack.server.apiUrl}/credits`, { headers: { authorization: 'Bearer act_x' } });
    expect([bearer.status, bearer.body.error_code]).toEqual([503, 'store_indexes_failed']);

    const health = await http('GET', `${stack.server.apiUrl}/health`);
    expect(health.body).toEqual({ status: 'ok' });
    const details = await http('GET', `${stack.server.apiUrl}/health/details`);
    expect(details.body.store).toBe('index_failed');
    // It is a decision, not a retry loop: a while later the store is still refused.
    await new Promise((r) => setTimeout(r, 2500));
    expect(stack.db.state()).toBe('index_failed');
  });

  it('an intact database is up only with every unique index in place', async () => {
    const stack = await startTestStack();
    stacks.push(stack);
    expect(stack.db.isUp()).toBe(true);
    const indexes = await stack.db.connection.db!.collection('x402_payments').indexes();
    expect(indexes).toEqual(
      expect.arrayContaining([expect.objectContaining({ key: { purpose_key: 1 }, unique: true })]),
    );
  });
});
