import type { ErrorEntry } from '../platform/errors/catalog-entry';

/** Error codes of the tools area (gathered in shared/composition/error-catalog.ts). */
export const toolsErrors: Readonly<Record<string, ErrorEntry & { area: 'tools' }>> = {
  product_not_found: {
    status: 404,
    area: 'tools',
    meaning: 'No active product with this id or slug (private and inactive products are not found either).',
    action: 'List tools with `GET /api/external/tools` and use an id or slug from there.',
  },
  action_not_found: {
    status: 404,
    area: 'tools',
    meaning: 'The product has no action with this slug.',
    action: 'Use one of the action slugs the tool list shows for this product.',
  },
  action_ambiguous: {
    status: 409,
    area: 'tools',
    meaning:
      'The product has several actions and the request did not say which (`details.actions` lists them), or the slug matches more than one.',
    action:
      'Invoke by slug: `/tools/{productSlug}/actions/{actionSlug}/invoke`, or name the action in `parameters.action`.',
  },
  action_mismatch: {
    status: 400,
    area: 'tools',
    meaning:
      'The body names another action than the path (`parameters.action` or `action`), or the signed path is not a variant of this action.',
    action: 'Send the body to the path of the action it is for.',
  },
  invalid_parameters: {
    status: 400,
    area: 'tools',
    meaning:
      "The parameters do not match the action's JSON Schema (`details.errors` says where). Checked before anything is held or paid.",
    action: 'Fix the parameters against `parameters_schema` from the tool list.',
  },
  insufficient_credits: {
    status: 402,
    area: 'tools',
    meaning:
      "The wallet's balance (`details.balance`) is below the action's price (`details.credits_required`). Nothing was charged.",
    action: 'Buy credits (`POST /api/external/credits/purchase`) or pay this call directly with x402.',
  },
  budget_exceeded: {
    status: 402,
    area: 'tools',
    meaning:
      "The call is within the balance but over the wallet's budget (per call or per day; `details` has the limit, spent today and the price), or over the daily or total allowance of the agent group's budget it is charged to (a run's tool node, or a catalog tool an agent group calls over MCP; `details` has `limit`, `allowance`, `committed`, `credits`). Nothing was held.",
    action:
      "Wait for the next UTC day, raise the budget (`POST /api/external/tools/budget`; a group's budget: its workspace's owner), or ask an operator.",
  },
  catalog_tools_not_on_budget: {
    status: 403,
    area: 'tools',
    meaning:
      "An agent group's token called a catalog tool over MCP, and its budget pays only for the workflows it lists (catalog tools are a wider grant an operator makes per budget). Nothing was held or charged.",
    action:
      'Call the tool with a wallet access token (`Bearer act_…`) or pay it with x402, or ask an operator for a budget created with `budget:create --catalog-tools`.',
  },
  vendor_error: {
    status: 502,
    area: 'tools',
    meaning:
      'The vendor answered with an error or an unusable body; `details.vendor_status` and `details.vendor_body` carry what it said (never its secrets). Nothing was charged.',
    action: "Check the parameters against the vendor's message and retry with a new `request_id`.",
  },
  vendor_timeout: {
    status: 504,
    area: 'tools',
    meaning: "The vendor did not answer within the action's timeout, or the call was cancelled. Nothing was charged.",
    action: 'Retry later with a new `request_id`.',
  },
  invocation_in_progress: {
    status: 409,
    area: 'tools',
    meaning: 'A call with this `request_id` is still running for this account.',
    action: 'Wait for it; a retry afterwards answers its recorded result.',
  },
  signed_request_required: {
    status: 401,
    area: 'tools',
    meaning: 'The action is paid with credits only and the request carried neither a signed envelope nor a payment.',
    action: 'Send the signed request envelope with `parameters` (docs/signing.md, path form).',
  },
  direct_payment_not_available: {
    status: 404,
    area: 'tools',
    meaning: 'This action has no x402 price: it can only be paid with credits (a signed request).',
    action: 'Send a signed credit request (envelope + `parameters`).',
  },
  invalid_instance_metadata: {
    status: 400,
    area: 'tools',
    meaning: '`x-instance-metadata` is not a JSON object encoded as a string.',
    action: 'Send JSON text, for example `{"agent":"my-agent"}`, or leave the header out.',
  },
  invalid_instance_id: {
    status: 400,
    area: 'tools',
    meaning: '`x-instance-id` has characters or a length we do not keep.',
    action: 'Echo the `instance_id` the catalog gave you, or send 1-128 of A-Z a-z 0-9 _ . : -.',
  },
  hold_not_found: {
    status: 404,
    area: 'tools',
    meaning: 'No hold with this id on this ledger account (internal: capture of a hold never made).',
    action: 'Report it with the `request_id`; nothing was charged.',
  },
  hold_not_open: {
    status: 409,
    area: 'tools',
    meaning:
      'The hold was already released, so it cannot be captured (internal: a late capture after the stale-hold healer gave the credits back).',
    action: 'Nothing was charged; retry the call with a new `request_id`.',
  },
  invalid_catalog_entry: {
    status: 400,
    area: 'tools',
    meaning: 'A product or action definition is invalid (operator CLI): bad slug, price, URL or JSON Schema.',
    action: 'Fix the definition as `message` says.',
  },
  catalog_conflict: {
    status: 409,
    area: 'tools',
    meaning: 'A product or action with this slug already exists (operator CLI).',
    action: 'Pick another slug or update the existing one.',
  },
};
