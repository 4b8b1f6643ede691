export type { AppErrorOptions, ValidationIssue } from './app-error';
export { AppError, ValidationError, errors } from './app-error';
export type { ErrorShape, RenderContext, RenderedError } from './shapes';
export { renderError, statusLabel } from './shapes';
export { fromJoi } from './from-joi';
export type { ErrorArea, ErrorEntry } from './catalog-entry';
export { ERROR_AREAS } from './catalog-entry';
