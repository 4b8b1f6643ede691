import express, { ErrorRequestHandler, RequestHandler } from 'express';
import { AppError, ValidationError } from '../../../shared/platform/errors/index';

const parser = express.json({ limit: '256kb', strict: false, type: ['application/json', 'application/*+json'] });

// NUL, and UTF-16 surrogates without their pair, are valid in a JSON string but not in the store's
// text (PostgreSQL refuses \u0000; a lone surrogate has no UTF-8 form).
// eslint-disable-next-line no-control-regex -- NUL is the point
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Where in `body` a string or key holds text the store cannot keep; iterative, so nesting depth costs no stack. */
export function unstorableText(body: unknown): Array<string | number> | undefined {
  interface Step {
    value: unknown;
    key: string | number;
    parent?: Step;
  }
  const path = (step: Step, last?: string): Array<string | number> => {
    const out: Array<string | number> = last === undefined ? [] : [last];
    for (let s: Step | undefined = step; s; s = s.parent) out.unshift(s.key);
    return out;
  };
  const stack: Step[] = [{ value: body, key: 'body' }];
  while (stack.length) {
    const step = stack.pop()!;
    const { value } = step;
    if (typeof value === 'string') {
      if (UNSTORABLE.test(value)) return path(step);
    } else if (Array.isArray(value)) {
      value.forEach((v, i) => stack.push({ value: v, key: i, parent: step }));
    } else if (value !== null && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) {
        if (UNSTORABLE.test(k)) return path(step, k);
        stack.push({ value: v, key: k, parent: step });
      }
    }
  }
  return undefined;
}

/** JSON bodies only; a broken body, or text the store cannot hold, is a client error in the family's shape, never a 500. */
export const jsonBody: RequestHandler = (req, res, next) =>
  parser(req, res, (err?: unknown) => {
    if (err) return next(err);
    const at = unstorableText(req.body);
    if (at)
      return next(
        new ValidationError([
          {
            loc: at.map(String),
            msg: 'text must not contain NUL characters or unpaired UTF-16 surrogates',
            type: 'string_unicode',
          },
        ]),
      );
    next();
  });

export const jsonBodyErrors: ErrorRequestHandler = (err, _req, _res, next) => {
  const type = (err as { type?: string }).type;
  if (type === 'entity.parse.failed') {
    return next(
      new ValidationError([
        { loc: ['body'], msg: 'JSON decode error', type: 'json_invalid', ctx: { error: (err as Error).message } },
      ]),
    );
  }
  if (type === 'entity.too.large') return next(new AppError(413, 'payload_too_large', 'request body is too large'));
  if (type === 'encoding.unsupported' || type === 'charset.unsupported') {
    return next(new AppError(415, 'unsupported_encoding', (err as Error).message));
  }
  next(err);
};
