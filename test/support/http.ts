import { localDocument, ResponseValidator } from './openapi';

let validator: ResponseValidator | undefined;
const apiOrigins = new Set<string>();
let checked = 0;

/** How many answers this test file checked against the document. */
export const answersChecked = () => checked;

/** Answers from these origins (the test stack's two hosts) are checked against the document; others (vendors, receivers) are not ours. */
export function checkAnswersOf(...urls: string[]): void {
  for (const u of urls) apiOrigins.add(new URL(u).origin);
}

/**
 * A tiny JSON client for tests: real HTTP through fetch, nothing stubbed. Every answer is
 * checked against the OpenAPI document built from the declarations (test/support/openapi.ts);
 * one that does not match throws, naming the operation, the status and what differs.
 */
export async function http(
  method: string,
  url: string,
  opts: { body?: unknown; raw?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: Headers; body: any; text: string }> {
  const headers: Record<string, string> = { ...opts.headers };
  let payload: string | undefined;
  if (opts.raw !== undefined) payload = opts.raw;
  else if (opts.body !== undefined) payload = JSON.stringify(opts.body);
  if (payload !== undefined) headers['content-type'] ??= 'application/json';
  const res = await fetch(url, { method, headers, body: payload });
  const text = await res.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  if (apiOrigins.has(new URL(url).origin)) {
    validator ??= new ResponseValidator(localDocument());
    validator.check(method, url, { status: res.status, contentType: res.headers.get('content-type'), body, text });
    checked += 1;
  }
  return { status: res.status, headers: res.headers, body, text };
}
