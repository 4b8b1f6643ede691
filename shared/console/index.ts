// The face of the console capability: everything other folders use of it. Code outside
// shared/console/ imports this file, never the files behind it (house/capability-face).
export { consoleErrors } from './errors';
export { type GraphLayout, LAYOUT, layoutGraph } from './graph-layout';
export type { ConsoleModels } from './models/index';
export { MAX_OPERATOR_PAGE, OperatorConsole } from './operator';
export { OperatorKeyRepository, type OperatorKeyView } from './operator-keys';
export {
  formToken,
  MAX_RUNS_PAGE,
  operatorCatalogQuerySchema,
  operatorLedgerQuerySchema,
  operatorSettlementsQuerySchema,
  RUN_STATUSES,
  runsQuerySchema,
  signInBodySchema,
} from './schemas';
export {
  ConsoleService,
  type ConsoleSession,
  MAX_OUTPUT_CHARS,
  type OperatorSession,
  type RunsFilter,
  SPEND_DAYS,
} from './service';
export { ConsoleSessionRepository } from './sessions';
