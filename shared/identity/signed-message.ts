/**
 * The text an agent signs (EIP-191 personal_sign) for every runtime request, and
 * the per-action rules for what goes on its product and payload lines. Both the
 * server and the SDK build messages from here so they cannot drift apart.
 * No I/O and no crypto here; digesting lives in canonical-json.ts.
 */

export const SIGNING_DOMAIN = 'service-external';
export const NO_PRODUCT = '-';
/** Marks an action whose payload line is empty instead of a digest. */
export const EMPTY_PAYLOAD = '' as const;
export type EmptyPayload = typeof EMPTY_PAYLOAD;

/** Body fields that carry the signature itself and so are never part of what is signed. */
export const ENVELOPE_FIELDS = ['wallet_address', 'session_nonce', 'request_id', 'signature'] as const;
export type EnvelopeField = (typeof ENVELOPE_FIELDS)[number];
export type SignedEnvelope = Record<EnvelopeField, string>;

interface SignerContext {
  wallet: string;
  sessionNonce: string;
  requestId: string;
}

export type SignedMessageInput =
  | (SignerContext & { kind: 'action'; action: string; product?: string; payload: string })
  | (SignerContext & { kind: 'path'; method: 'POST'; path: string; payload: string });

/** Lines joined by "\n", no trailing newline. */
export function buildSignedMessage(input: SignedMessageInput): string {
  const target =
    input.kind === 'action'
      ? [`action:${input.action}`, `product:${input.product ?? NO_PRODUCT}`]
      : [`method:${input.method}`, `path:${input.path}`];
  const lines = [
    SIGNING_DOMAIN,
    `wallet:${input.wallet.toLowerCase()}`,
    `session:${input.sessionNonce}`,
    `request:${input.requestId}`,
    ...target,
    `payload:${input.payload}`,
  ];
  // A line break inside a field could shift text between lines and make two
  // different requests produce the same message.
  if (lines.some((line) => /[\r\n]/.test(line))) {
    throw new TypeError('buildSignedMessage: fields must not contain line breaks');
  }
  return lines.join('\n');
}

/** Request fields the payload is computed from: the JSON body (every signed endpoint is a POST or PUT with a JSON body). */
export type RequestFields = Readonly<Record<string, unknown>>;
export type ProductParam = 'jobId' | 'workflowId' | 'productId' | 'tokenId';
export type PathParams = Readonly<Partial<Record<string, string>>>;

export interface SignedActionSpec {
  /**
   * Route parameter(s) whose values go on the product line; null means '-'. Several are joined
   * by '/' (`<jobId>/<workflowId>`), so a signature is bound to the exact resource it changes.
   */
  readonly productParam: ProductParam | readonly ProductParam[] | null;
  /** The value whose canonical JSON is digested, or EMPTY_PAYLOAD. */
  readonly payloadObject: (fields: RequestFields) => object | EmptyPayload;
}

// Absent fields come through as undefined and canonicalJson leaves them out.
const pick =
  (...keys: string[]) =>
  (fields: RequestFields): object =>
    Object.fromEntries(keys.map((key) => [key, fields[key]]));

const nothing = (): object => ({});

function withoutEnvelope(fields: RequestFields): object {
  const rest: Record<string, unknown> = { ...fields };
  for (const field of ENVELOPE_FIELDS) delete rest[field];
  return rest;
}

function toolParameters(fields: RequestFields): object {
  const parameters = fields.parameters ?? {};
  if (typeof parameters !== 'object' || parameters === null) {
    throw new TypeError('parameters must be a JSON object');
  }
  return parameters;
}

export const SIGNED_ACTIONS = {
  balance: { productParam: null, payloadObject: () => EMPTY_PAYLOAD },
  job_list: { productParam: null, payloadObject: pick('limit', 'skip') },
  job_reserve: { productParam: 'jobId', payloadObject: nothing },
  job_status: { productParam: 'jobId', payloadObject: nothing },
  job_complete: { productParam: 'jobId', payloadObject: pick('proof_text', 'reservation_id', 'social_posts') },
  workflow_start: { productParam: 'workflowId', payloadObject: pick('instance_id') },
  workflow_active: { productParam: null, payloadObject: pick('instance_id') },
  workflow_fetch: { productParam: 'workflowId', payloadObject: nothing },
  workflow_end: { productParam: 'workflowId', payloadObject: pick('workflow_session_id') },
  job_workflow_create: { productParam: 'jobId', payloadObject: withoutEnvelope },
  job_workflow_update: { productParam: ['jobId', 'workflowId'], payloadObject: withoutEnvelope },
  job_workflow_publish: { productParam: ['jobId', 'workflowId'], payloadObject: withoutEnvelope },
  access_token: { productParam: null, payloadObject: pick('label', 'expires_in_days') },
  access_token_list: { productParam: null, payloadObject: nothing },
  access_token_revoke: { productParam: 'tokenId', payloadObject: nothing },
  tool_budget: { productParam: null, payloadObject: pick('per_call_credits', 'daily_credits') },
} as const satisfies Record<string, SignedActionSpec>;

export type SignedAction = keyof typeof SIGNED_ACTIONS;

export function isSignedAction(name: string): name is SignedAction {
  return Object.prototype.hasOwnProperty.call(SIGNED_ACTIONS, name);
}

export interface SignedActionParts {
  product: string;
  payloadObject: object | EmptyPayload;
}

/** Product line and payload source for `action`, from the route params and request fields. */
export function signedActionParts(
  action: SignedAction,
  fields: RequestFields | undefined,
  pathParams: PathParams = {},
): SignedActionParts {
  if (!isSignedAction(action)) throw new TypeError(`unknown signed action: ${String(action)}`);
  const spec: SignedActionSpec = SIGNED_ACTIONS[action];
  let product: string = NO_PRODUCT;
  if (spec.productParam !== null) {
    const params = typeof spec.productParam === 'string' ? [spec.productParam] : spec.productParam;
    product = params
      .map((param) => {
        const value = pathParams[param];
        if (!value) throw new TypeError(`${action} needs the ${param} route parameter`);
        if (value.includes('/')) throw new TypeError(`${action}: the ${param} route parameter must not contain '/'`);
        return value;
      })
      .join('/');
  }
  return { product, payloadObject: spec.payloadObject(fields ?? {}) };
}

/**
 * Route params that put `productId` on the product line of `action`; the SDK's side of
 * signedActionParts. For actions with two ids, `productId` is `<jobId>/<workflowId>`.
 */
export function productPathParams(action: SignedAction, productId: string | undefined): PathParams {
  const param = (SIGNED_ACTIONS[action] as SignedActionSpec).productParam;
  if (param === null) {
    if (productId !== undefined) throw new TypeError(`${action} takes no product id`);
    return {};
  }
  if (typeof param === 'string') return { [param]: productId };
  const values = (productId ?? '').split('/');
  if (values.length !== param.length || values.some((v) => !v)) {
    throw new TypeError(`${action} needs a product id of the form ${param.map((p) => `<${p}>`).join('/')}`);
  }
  return Object.fromEntries(param.map((p, i) => [p, values[i]]));
}

// Slugs are restricted to RFC 3986 unreserved characters so the signed path is
// the same whether or not a router percent-decodes it.
const SLUG = /^[A-Za-z0-9._~-]+$/;

export function toolInvokePath(productSlug: string, actionSlug: string): string {
  if (!SLUG.test(productSlug) || !SLUG.test(actionSlug)) {
    throw new TypeError('tool slugs may only contain A-Z a-z 0-9 . _ ~ -');
  }
  return `/external/tools/${productSlug}/actions/${actionSlug}/invoke`;
}

/** Invoke by product id (path form, like the slug invoke): `/external/tools/<productId>/invoke`. */
export function toolInvokeByIdPath(productId: string): string {
  if (!SLUG.test(productId)) throw new TypeError('product ids may only contain A-Z a-z 0-9 . _ ~ -');
  return `/external/tools/${productId}/invoke`;
}

export interface ToolInvokeParts {
  method: 'POST';
  path: string;
  payloadObject: object;
}

/** Method, path and payload source for a credits-mode tool invoke (the path form of the message). */
export function toolInvokeParts(
  productSlug: string,
  actionSlug: string,
  fields: RequestFields | undefined,
): ToolInvokeParts {
  return {
    method: 'POST',
    path: toolInvokePath(productSlug, actionSlug),
    payloadObject: toolParameters(fields ?? {}),
  };
}

/** Method, path and payload source for a credits-mode invoke by product id: payload of `parameters` ({} when absent). */
export function toolInvokeByIdParts(productId: string, fields: RequestFields | undefined): ToolInvokeParts {
  return { method: 'POST', path: toolInvokeByIdPath(productId), payloadObject: toolParameters(fields ?? {}) };
}
