import type { RequestHandler } from 'express';
import type Joi from 'joi';
import { fromJoi } from '../../shared/errors';

declare module 'express-serve-static-core' {
  interface Locals {
    body?: any;
    query?: any;
  }
}

/**
 * Validates body and/or query; the clean values land in res.locals. req.body stays as sent,
 * because signatures are checked over exactly the fields the client signed.
 */
export function validate(schemas: { body?: Joi.ObjectSchema; query?: Joi.ObjectSchema; params?: Joi.ObjectSchema }): RequestHandler {
  return (req, res, next) => {
    if (schemas.params) {
      const { error } = schemas.params.validate(req.params ?? {}, { abortEarly: false });
      if (error) return next(fromJoi(error, 'path'));
    }
    if (schemas.body) {
      // No body reads as {}; a body of JSON null is a body of the wrong type.
      const { value, error } = schemas.body.validate(req.body === undefined ? {} : req.body, { abortEarly: false, convert: true });
      if (error) return next(fromJoi(error, 'body'));
      res.locals.body = value;
    }
    if (schemas.query) {
      const { value, error } = schemas.query.validate(req.query ?? {}, { abortEarly: false, convert: true });
      if (error) return next(fromJoi(error, 'query'));
      res.locals.query = value;
    }
    next();
  };
}
