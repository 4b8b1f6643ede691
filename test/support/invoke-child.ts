// A separate process that starts one paid tool call and is killed by the test mid-call
// (between hold and capture). Argv: account product requestId.
import { createDb } from '../../shared/composition/store';
import { parseConfig } from '../../shared/platform/config/index';
import { createToolInvoker } from '../../shared/tools/invoke';

async function main() {
  const [account, product, requestId] = process.argv.slice(2);
  const config = parseConfig(process.env);
  const db = createDb({ uri: config.mongodbUri, dbName: config.mongodbDbName });
  await db.ready(20000);
  const invoker = createToolInvoker({ models: db.models, secretKey: config.tools.secretsKey });
  await invoker.invoke({ account: account!, product: { slug: product! }, parameters: {}, requestId: requestId! });
}

void main();
