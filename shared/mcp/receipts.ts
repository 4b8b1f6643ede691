import type { PurchaseEntry } from '../credits/index';

/**
 * A receipt as a resource: the signed receipt (offer-and-receipt) of one of the caller's paid MCP
 * calls, named by the purchase's transaction id (the `transaction_id` the call answered; its
 * settlement's `transaction` is `credits:` and the same id). Percent-encoded in the URI, as an
 * RFC 6570 expansion of the template encodes it, so a listed URI and an expanded one are equal.
 */
export const RECEIPT_URI_PREFIX = 'agent-commerce://receipts/';
export const RECEIPT_URI_TEMPLATE = `${RECEIPT_URI_PREFIX}{transaction_id}`;
/** Longer than any URI this server hands out (an account and a 128-character idempotency key): refused unread. */
const MAX_RECEIPT_URI = 512;

export function receiptUri(transactionId: string): string {
  return `${RECEIPT_URI_PREFIX}${encodeURIComponent(transactionId)}`;
}

/** The transaction id a receipt URI names, or undefined when it is none of ours. */
export function transactionIdOfUri(uri: string): string | undefined {
  if (uri.length > MAX_RECEIPT_URI || !uri.startsWith(RECEIPT_URI_PREFIX)) return undefined;
  try {
    const id = decodeURIComponent(uri.slice(RECEIPT_URI_PREFIX.length));
    return id.length > 0 ? id : undefined;
  } catch {
    return undefined;
  }
}

export const receiptTemplate = {
  uriTemplate: RECEIPT_URI_TEMPLATE,
  name: 'receipt',
  title: 'Signed receipt of a paid call',
  description:
    "The signed receipt (offer-and-receipt, EIP-712) of one of this caller's paid MCP tool calls, by the transaction id the call answered: the very receipt the call carried, as JSON. List them with resources/list.",
  mimeType: 'application/json',
};

/** The product and action a purchase was charged for, from its hold's details; undefined when they name none. */
export function chargedAction(details: string | undefined): { product_slug: string; action_slug: string } | undefined {
  try {
    const d = JSON.parse(details ?? '') as { product?: unknown; action?: unknown };
    if (typeof d.product === 'string' && d.product && typeof d.action === 'string' && d.action)
      return { product_slug: d.product, action_slug: d.action };
  } catch {
    // no receipt for a purchase whose details are not the invoker's
  }
  return undefined;
}

/** A receipt as a listed resource (read it for the receipt itself). */
export function receiptResource(entry: PurchaseEntry, charged: { product_slug: string; action_slug: string }) {
  return {
    uri: receiptUri(entry.transactionId),
    name: entry.transactionId,
    title: `Receipt of ${charged.product_slug}/${charged.action_slug}`,
    mimeType: 'application/json',
    annotations: { lastModified: new Date(entry.recordedAt).toISOString() },
  };
}

/** The contents of resources/read of a receipt: its JSON, as the call's answer carried it. */
export function receiptContents(uri: string, receipt: unknown) {
  return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(receipt) }] };
}
