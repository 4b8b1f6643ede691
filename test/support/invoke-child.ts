// A separate process that starts one paid tool call and is killed by the test mid-call
// (between hold and capture). Argv: account product requestId.
import { createDb } from '../../shared/composition/store';
import { LedgerStore } from '../../shared/credits/ledger-store';
import { parseConfig } from '../../shared/platform/config/index';
import { createToolInvoker } from '../../shared/tools/invoke';
import { ToolRepository } from '../../shared/tools/repository';
import { STORE_READY_MS } from './db';

async function main() {
  const [account, product, requestId] = process.argv.slice(2);
  const config = parseConfig(process.env);
  const db = createDb({ uri: config.mongodbUri, dbName: config.mongodbDbName });
  await db.ready(STORE_READY_MS);
  const invoker = createToolInvoker({
    secretKey: config.tools.secretsKey,
    ledger: new LedgerStore(db.models),
    repository: new ToolRepository(db.models),
  });
  await invoker.invoke({ account: account!, product: { slug: product! }, parameters: {}, requestId: requestId! });
}

void main();
