import type { Db } from '../../shared/composition/store';
import type { X402PaymentDoc, X402PaymentState } from '../../shared/payments/index';
import { sha256Hex } from '../../shared/platform/ids/index';
import { RunRepository } from '../../shared/webhook-runs/index';
import { runDoc } from './run-doc';
import { type GroupSetup, setupGroup } from './webhook-runs';

/** A workspace with a budget, a group and an API key to sign in to the console with. */
export async function consoleWorkspace(
  db: Db,
  name: string,
): Promise<GroupSetup & { apiKey: string; apiKeyId: string }> {
  const g = await setupGroup(db);
  await db.models.workspaces.updateOne({ _id: g.workspaceId }, { $set: { name } });
  const { apiKey, apiKeyId } = await g.repo.createApiKey({ workspaceId: g.workspaceId, label: 'console' });
  return { ...g, apiKey, apiKeyId };
}

/** Inserts `n` finished runs of the group, one a minute apart ending at `end`, statuses in turn. */
export async function insertRuns(
  db: Db,
  g: GroupSetup,
  n: number,
  o: { end?: Date; statuses?: Array<'completed' | 'failed'>; workflowId?: string } = {},
): Promise<string[]> {
  const end = o.end ?? new Date();
  const statuses = o.statuses ?? ['completed', 'failed'];
  const docs = Array.from({ length: n }, (_, i) => {
    const at = new Date(end.getTime() - (n - 1 - i) * 60_000);
    const status = statuses[i % statuses.length]!;
    return runDoc({
      _id: `run_${sha256Hex(`${g.groupId}:${i}:${end.getTime()}`).slice(0, 24)}`,
      workflow_id: o.workflowId ?? 'wf_console_test',
      group_id: g.groupId,
      budget_id: g.budgetId,
      workspace_id: g.workspaceId,
      status,
      created_at: at,
      queued_at: at,
      started_at: at,
      ...(status === 'completed' ? { completed_at: at } : { failed_at: at, error_code: 'node_failed' }),
      response_text: status === 'completed' ? `answer ${i}` : null,
    });
  });
  await new RunRepository(db.models).importRuns(docs);
  return docs.map((d) => d._id);
}

/** A cookie jar of one: the console's cookies by name, from Set-Cookie headers. */
export class Jar {
  readonly cookies = new Map<string, string>();
  take(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const i = pair!.indexOf('=');
      const [k, v] = [pair!.slice(0, i), pair!.slice(i + 1)];
      if (v) this.cookies.set(k, v);
      else this.cookies.delete(k);
    }
  }
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

/** A request to the console, cookies sent and kept, redirects not followed. */
export async function consoleFetch(
  jar: Jar,
  url: string,
  o: { method?: string; form?: Record<string, string> } = {},
): Promise<{ status: number; text: string; headers: Headers; location: string | null }> {
  const res = await fetch(url, {
    method: o.method ?? (o.form ? 'POST' : 'GET'),
    redirect: 'manual',
    headers: {
      cookie: jar.header(),
      ...(o.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
    },
    body: o.form ? new URLSearchParams(o.form).toString() : undefined,
  });
  jar.take(res);
  return { status: res.status, text: await res.text(), headers: res.headers, location: res.headers.get('location') };
}

/** The form token a console page carries. */
export function formTokenOf(html: string): string {
  const m = /name="_form" value="([^"]+)"/.exec(html);
  if (!m) throw new Error('no form token on the page');
  return m[1]!;
}

/** Signs in through the form (as a browser does) and returns the form token of the page it lands on. */
export async function signIn(jar: Jar, apiUrl: string, apiKey: string): Promise<string> {
  const form = await consoleFetch(jar, `${apiUrl}/console/sign-in`);
  const res = await consoleFetch(jar, `${apiUrl}/console/sign-in`, {
    form: { _form: formTokenOf(form.text), api_key: apiKey },
  });
  if (res.status !== 303) throw new Error(`sign-in answered ${res.status}: ${res.text.slice(0, 300)}`);
  const landing = await consoleFetch(jar, `${apiUrl}${res.location}`);
  return formTokenOf(landing.text);
}

/** A settled (or other) x402 payment record for the operator's pages, written through the payments' one writer. */
export function paymentRecord(o: {
  payer: string;
  nonce: number;
  status: X402PaymentState;
  createdAt: Date;
  txHash?: string;
  credits?: number;
}): X402PaymentDoc {
  const nonce = `0x${o.nonce.toString(16).padStart(64, '0')}`;
  const asset = `0x${'a'.repeat(40)}`;
  const payTo = `0x${'b'.repeat(40)}`;
  const payer = o.payer.toLowerCase();
  return {
    _id: `eip155:84532:${asset}:${payer}:${nonce}`,
    purpose_key: `credit_purchase:${payer}:${nonce}`,
    purpose: { kind: 'credit_purchase', wallet: payer, credits: o.credits ?? 100 },
    status: o.status,
    network: 'eip155:84532',
    chain_id: 84532,
    asset,
    token_symbol: 'USDC',
    payer,
    pay_to: payTo,
    amount_base_units: String((o.credits ?? 100) * 10_000),
    amount_usd: (o.credits ?? 100) / 100,
    resource_url: 'http://localhost/api/external/credits/purchase',
    authorization: { from: payer, to: payTo, value: '1000000', validAfter: '0', validBefore: '9999999999', nonce },
    signature: `0x${'1'.repeat(130)}`,
    payload_json: '{}',
    requirements_json: '{}',
    ...(o.txHash ? { tx_hash: o.txHash, block_number: '12', settled_at: o.createdAt } : {}),
    created_at: o.createdAt,
    updated_at: o.createdAt,
  };
}
