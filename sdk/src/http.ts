import { AgentCommerceError, clientError, fromResponse } from './errors';

export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export interface HttpRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  url: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** Statuses answered as results rather than errors (a 202 that is not a failure, ...). Every 2xx is one. */
  accept?: number[];
  /** Aborts the request (the error's code is then sdk_network). */
  signal?: AbortSignal;
}

export interface HttpResponse<T> {
  status: number;
  headers: Headers;
  body: T;
}

/** JSON over fetch; anything but 2xx (or `accept`) becomes an AgentCommerceError. */
export async function sendJson<T>(fetchImpl: FetchLike, req: HttpRequest): Promise<HttpResponse<T>> {
  const headers: Record<string, string> = { accept: 'application/json', ...req.headers };
  let payload: string | undefined;
  if (req.body !== undefined) {
    payload = JSON.stringify(req.body);
    headers['content-type'] ??= 'application/json';
  }
  let res: Response;
  try {
    res = await fetchImpl(req.url, { method: req.method, headers, body: payload, signal: req.signal });
  } catch (err) {
    if (err instanceof AgentCommerceError) throw err;
    throw clientError('sdk_network', `${req.method} ${req.url}: ${(err as Error).message}`);
  }
  const text = await res.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  const ok = (res.status >= 200 && res.status < 300) || (req.accept ?? []).includes(res.status);
  if (!ok)
    throw fromResponse(
      res.status,
      body ?? { message: text.slice(0, 500) },
      res.headers.get('x-request-id') ?? undefined,
    );
  if (body === undefined && text)
    throw new AgentCommerceError({
      code: 'sdk_bad_response',
      message: `${req.method} ${req.url}: the answer is not JSON`,
      status: res.status,
    });
  return { status: res.status, headers: res.headers, body: body as T };
}

export function joinUrl(
  base: string,
  path: string,
  query?: Record<string, string | number | boolean | undefined>,
): string {
  const url = new URL(base.replace(/\/+$/, '') + path);
  for (const [key, value] of Object.entries(query ?? {}))
    if (value !== undefined) url.searchParams.set(key, String(value));
  return url.toString();
}
