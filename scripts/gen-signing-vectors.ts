/**
 * Regenerates the published signing test vectors: test/fixtures/signing-vectors.json and the
 * "Test vectors" section of docs/signing.md, from the inputs below and the shared builder.
 * `npm run docs:signing`; test/unit/signing.test.ts recomputes every value and checks the doc.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { privateKeyToAccount } from 'viem/accounts';
import {
  buildSignedMessage,
  canonicalJson,
  productPathParams,
  type SignedAction,
  signedActionParts,
  signedPayload,
  toolInvokeByIdParts,
  toolInvokeParts,
} from '../shared/identity/signing';

const ROOT = join(__dirname, '..');
const SIGNER = {
  private_key: '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  address: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
} as const;
const SESSION_NONCE = 'sess_9f2c41d07a6b4e3c';

type Input =
  | {
      name: string;
      title: string;
      kind: 'action';
      action: SignedAction;
      product_id: string | null;
      request: number;
      body_json: string;
    }
  | {
      name: string;
      title: string;
      kind: 'path';
      product_slug: string;
      action_slug: string;
      request: number;
      body_json: string;
    }
  | { name: string; title: string; kind: 'path_id'; product_id: string; request: number; body_json: string };

const INPUTS: Input[] = [
  {
    name: 'balance',
    title: 'balance (empty payload)',
    kind: 'action',
    action: 'balance',
    product_id: null,
    request: 1,
    body_json: '{}',
  },
  {
    name: 'job_list',
    title: 'job_list (POST body) with limit and skip',
    kind: 'action',
    action: 'job_list',
    product_id: null,
    request: 2,
    body_json: '{"limit":10,"skip":0}',
  },
  {
    name: 'job_complete',
    title: 'job_complete with social_posts as the spec defines them, escapes and unicode',
    kind: 'action',
    action: 'job_complete',
    product_id: 'job_7Hq2mX',
    request: 3,
    body_json:
      '{"reservation_id":"res_01J9Z6","proof_text":"Posted \\u2705 \\u00abCaf\\u00e9\\u00bb \\u2014 \\"quoted\\", back\\\\slash, tab\\t, newline\\n, bell\\u0007, line-sep\\u2028, emoji \\ud83d\\ude00, slash \\/",' +
      '"social_posts":[{"platform":"x","post_url":"https://x.com/agent/status/1844","target_url_used":"https://example.com/launch?ref=agent&utm=x","message_text":"gm \\u00e9 / e\\u0301 \\ud83d\\ude00","posted_at":"2026-11-01T12:00:00Z"},' +
      '{"post_url":"https://warpcast.com/agent/0xabc","platform":"farcaster","target_url_used":"https://example.com/launch","message_text":"two\\nlines"}]}',
  },
  {
    name: 'tool_invoke_path',
    title: 'tool invoke by slug, credits mode (path form), keys sorted by UTF-16 code units, edge-case numbers',
    kind: 'path',
    product_slug: 'web-search',
    action_slug: 'query',
    request: 4,
    body_json:
      '{"parameters":{"query":"m\\u00fcnchen caf\\u00e9","options":{"\\u20ac":"Euro Sign","\\r":"Carriage Return","\\ufb33":"Hebrew Letter Dalet With Dagesh","1":"One","\\ud83d\\ude00":"Emoji: Grinning Face","\\u0080":"Control","\\u00f6":"Latin Small Letter O With Diaeresis"},"max_results":5,"alpha":[3,2,1],"Zeta":true,' +
      '"numbers":{"views":1e21,"ratio":0.1,"delta":-0,"likes":12,"share":1.50,"tiny":1E-7}}}',
  },
  {
    name: 'workflow_active_no_instance',
    title: 'workflow_active without instance_id (digest of {})',
    kind: 'action',
    action: 'workflow_active',
    product_id: null,
    request: 5,
    body_json: '{}',
  },
  {
    name: 'job_workflow_create',
    title: 'job_workflow_create (whole body minus envelope fields)',
    kind: 'action',
    action: 'job_workflow_create',
    product_id: 'job_7Hq2mX',
    request: 6,
    body_json:
      '{"name":"Launch thread","description":"Post, wait, summarize","time_saved_minutes":30,"nodes":[{"id":"post","type":"tool","config":{"product":"x-post"}},{"type":"delay","id":"wait","config":{"hours":24}}],"edges":[{"from":"post","to":"wait"}]}',
  },
  {
    name: 'tool_invoke_by_id',
    title: 'tool invoke by product id (path form)',
    kind: 'path_id',
    product_id: 'prod_5Fj2aQ',
    request: 7,
    body_json: '{"parameters":{"query":"agents","limit":3}}',
  },
  {
    name: 'tool_invoke_by_id_no_parameters',
    title: 'tool invoke by product id without parameters (digest of {})',
    kind: 'path_id',
    product_id: 'prod_5Fj2aQ',
    request: 8,
    body_json: '{}',
  },
  {
    name: 'job_workflow_update',
    title: 'job_workflow_update: the product line binds the job and the draft (<jobId>/<workflowId>)',
    kind: 'action',
    action: 'job_workflow_update',
    product_id: 'job_7Hq2mX/wf_3kP9tZ',
    request: 9,
    body_json:
      '{"name":"Launch thread v2","edges":[],"nodes":[{"id":"post","type":"tool","config":{"product":"x-post"}}]}',
  },
  {
    name: 'job_workflow_publish',
    title: 'job_workflow_publish (<jobId>/<workflowId>)',
    kind: 'action',
    action: 'job_workflow_publish',
    product_id: 'job_7Hq2mX/wf_3kP9tZ',
    request: 10,
    body_json: '{"bump":"minor"}',
  },
];

const requestId = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

async function main(): Promise<void> {
  const account = privateKeyToAccount(SIGNER.private_key);
  const vectors = [];
  for (const input of INPUTS) {
    const body = JSON.parse(input.body_json) as Record<string, unknown>;
    const context = { wallet: SIGNER.address, sessionNonce: SESSION_NONCE, requestId: requestId(input.request) };
    let payloadObject: object | '';
    let message: string;
    if (input.kind === 'action') {
      const parts = signedActionParts(
        input.action,
        body,
        productPathParams(input.action, input.product_id ?? undefined),
      );
      payloadObject = parts.payloadObject;
      message = buildSignedMessage({
        ...context,
        kind: 'action',
        action: input.action,
        product: parts.product,
        payload: signedPayload(payloadObject),
      });
    } else {
      const parts =
        input.kind === 'path'
          ? toolInvokeParts(input.product_slug, input.action_slug, body)
          : toolInvokeByIdParts(input.product_id, body);
      payloadObject = parts.payloadObject;
      message = buildSignedMessage({
        ...context,
        kind: 'path',
        method: parts.method,
        path: parts.path,
        payload: signedPayload(payloadObject),
      });
    }
    const { request, ...rest } = input;
    vectors.push({
      ...rest,
      request_id: requestId(request),
      canonical_json: payloadObject === '' ? null : canonicalJson(payloadObject),
      digest: signedPayload(payloadObject),
      message,
      signature: await account.signMessage({ message }),
    });
  }
  const fixture = { signer: SIGNER, session_nonce: SESSION_NONCE, vectors };
  writeFileSync(join(ROOT, 'test/fixtures/signing-vectors.json'), JSON.stringify(fixture, null, 2) + '\n');

  const docPath = join(ROOT, 'docs/signing.md');
  const doc = readFileSync(docPath, 'utf8');
  const marker = '### 1. ';
  const head = doc.slice(0, doc.indexOf(marker));
  const sections = vectors.map((v, i) => {
    const target =
      v.kind === 'action'
        ? [`- action: \`${v.action}\``, `- product id: ${v.product_id ? `\`${v.product_id}\`` : 'none (`-`)'}`]
        : v.kind === 'path'
          ? [`- product slug: \`${v.product_slug}\`, action slug: \`${v.action_slug}\``]
          : [`- product id: \`${v.product_id}\` (path form)`];
    const block = (lang: string, text: string) => `\`\`\`${lang}\n${text}\n\`\`\``;
    return [
      `### ${i + 1}. ${v.title}`,
      '',
      ...target,
      `- request id: \`${v.request_id}\``,
      '',
      'Request body (JSON text as sent):',
      '',
      block('json', v.body_json),
      '',
      v.canonical_json === null
        ? 'Canonical JSON: none (payload line is empty).'
        : `Canonical JSON:\n\n${block('json', v.canonical_json)}`,
      '',
      v.digest ? `Digest:\n\n${block('text', v.digest)}` : 'Digest: empty string.',
      '',
      'Message:',
      '',
      block('text', v.message),
      '',
      'Signature:',
      '',
      block('text', v.signature),
      '',
    ].join('\n');
  });
  writeFileSync(docPath, head + sections.join('\n'));
  console.log(`wrote ${vectors.length} vectors to test/fixtures/signing-vectors.json and docs/signing.md`);
}

void main();
