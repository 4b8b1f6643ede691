import type { RequestHandler } from 'express';
import type { ErrorShape } from '../../../shared/platform/errors/index';

declare module 'express-serve-static-core' {
  interface Locals {
    errorShape?: ErrorShape;
  }
}

/** Marks which of the spec's error bodies this route family answers with. */
export function errorShape(shape: ErrorShape): RequestHandler {
  return (_req, res, next) => {
    res.locals.errorShape = shape;
    next();
  };
}
