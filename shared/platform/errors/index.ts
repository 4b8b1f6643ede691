export type { AppErrorOptions, ValidationIssue } from './app-error';
export { AppError, errors, ValidationError } from './app-error';
export type { ErrorArea, ErrorEntry } from './catalog-entry';
export { ERROR_AREAS } from './catalog-entry';
export { fromJoi } from './from-joi';
export type { ErrorShape, RenderContext, RenderedError } from './shapes';
export { renderError, statusLabel } from './shapes';
