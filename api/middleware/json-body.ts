import express, { ErrorRequestHandler, RequestHandler } from 'express';
import { AppError, ValidationError } from '../../shared/errors';

const parser = express.json({ limit: '256kb', strict: false, type: ['application/json', 'application/*+json'] });

/** JSON bodies only; a broken body is a client error in the family's shape, never a 500. */
export const jsonBody: RequestHandler = parser;

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
