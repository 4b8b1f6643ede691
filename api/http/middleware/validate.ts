import type { RequestHandler } from 'express';
import type Joi from 'joi';
import { fromJoi } from '../../../shared/platform/errors/index';

declare module 'express-serve-static-core' {
  interface Locals {
    body?: any;
    query?: any;
    /** The declared request headers, converted (X-Page as a number), under their declared names. */
    headers?: any;
  }
}

/**
 * Validates body, query and/or headers; the clean values land in res.locals. req.body stays as sent,
 * because signatures are checked over exactly the fields the client signed.
 */
export function validate(schemas: {
  body?: Joi.ObjectSchema;
  query?: Joi.ObjectSchema;
  params?: Joi.ObjectSchema;
  headers?: Joi.ObjectSchema;
}): RequestHandler {
  const readHeaders = schemas.headers && declaredHeaders(schemas.headers);
  return (req, res, next) => {
    if (schemas.params) {
      const { error } = schemas.params.validate(req.params ?? {}, { abortEarly: false });
      if (error) return next(fromJoi(error, 'path'));
    }
    if (schemas.body) {
      // No body reads as {}; a body of JSON null is a body of the wrong type.
      const { value, error } = schemas.body.validate(req.body === undefined ? {} : req.body, {
        abortEarly: false,
        convert: true,
      });
      if (error) return next(fromJoi(error, 'body'));
      res.locals.body = value;
    }
    if (schemas.query) {
      const { value, error } = schemas.query.validate(req.query ?? {}, { abortEarly: false, convert: true });
      if (error) return next(fromJoi(error, 'query'));
      res.locals.query = value;
    }
    if (schemas.headers) {
      const { value, error } = schemas.headers.validate(readHeaders!(req.headers), {
        abortEarly: false,
        convert: true,
      });
      if (error) return next(fromJoi(error, 'header'));
      res.locals.headers = value;
    }
    next();
  };
}

/**
 * The declared headers of a request under their declared names, whatever case either side wrote
 * them in (node lower-cases what it receives); headers nobody declared are not looked at.
 */
function declaredHeaders(
  schema: Joi.ObjectSchema,
): (headers: Record<string, string | string[] | undefined>) => Record<string, string> {
  const names = Object.keys((schema.describe() as { keys?: Record<string, unknown> }).keys ?? {});
  return (headers) => {
    const out: Record<string, string> = {};
    for (const name of names) {
      const value = headers[name.toLowerCase()];
      if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    return out;
  };
}
