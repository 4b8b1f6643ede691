// The face of the tools capability: everything other folders use of it. Code outside
// shared/tools/ imports this file, never the files behind it (house/capability-face).
export type { CatalogIndex } from './catalog-index';
export { instanceId, instanceMetadata, PAGE_MAX, PAGE_SIZE_MAX, pageQuery, pageRequest } from './catalog-service';
export { healHold, type HealOutcome } from './holds';
export {
  assertClientRequestId,
  createToolInvoker,
  type InvokeOutput,
  type ResolvedCall,
  type ToolInvoker,
  vendorFailure,
  withRetryKey,
} from './invoke';
export {
  catalogTool,
  catalogTools,
  catalogToolsByName,
  decodeCursor,
  encodeCursor,
  isToolName,
  MCP_META,
  MCP_PAGE_PRODUCTS,
  MCP_PAGE_WORKFLOWS,
  type McpTool,
  toolName,
} from './mcp-tools';
export type { ToolsModels } from './models/index';
export { ToolRepository } from './repository';
export {
  CATALOG_MAX_PAGE_SIZE,
  OBJECT_ID_PATTERN,
  parseCategories,
  pickAction,
  queryTerms,
  type ToolAction,
  type ToolProduct,
} from './rules';
export {
  type ActionInput,
  actionInput,
  budgetBody,
  budgetOperatorInput,
  type CreditInvokeBody,
  creditInvokeBody,
  issueReportBody,
  listToolsQuery,
  type ProductInput,
  productInput,
  productPatch,
  purchaseBody,
} from './schemas';
export { ToolService } from './service';
export { extractLinks, textStats } from './text';
export { invokeWithinWalletBudget } from './wallet-budget';
