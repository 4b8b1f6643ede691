// The face of the embed capability: everything other folders use of it. Code outside
// shared/embed/ imports this file, never the files behind it (house/capability-face).
export type { FormField } from './form';
export { type EmbedPruneCounts, pruneEmbedRecords } from './housekeeping';
export type { EmbedItem } from './model';
export { EmbedRepository } from './repository';
export { type EmbedTarget, escapeHtml, LOADER_CSP, normalizeOrigin, PRODUCT_ID, widgetCsp } from './rules';
export {
  accessTokenBodySchema,
  messageBodySchema,
  nonceBodySchema,
  productInvokeBodySchema,
  signInBodySchema,
} from './schemas';
export type { PageModel, ProductCard, WorkflowCard } from './service';
