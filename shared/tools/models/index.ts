import type { issueReportModel } from './issue-report';
import type { toolCatalogVersionModel } from './tool-catalog-version';
import type { toolInvocationModel, toolInvocationOutcomeModel, toolInvocationTakeoverModel } from './tool-invocation';
import type { toolOrderModel } from './tool-order';
import type { toolProductModel } from './tool-product';
import type { toolSecretModel } from './tool-secret';
import type { walletBudgetModel } from './wallet-budget';
import type { walletSpendModel } from './wallet-spend';

/** The models this capability owns, under the names the composition root registers them by. */
export interface ToolsModels {
  toolProducts: ReturnType<typeof toolProductModel>;
  toolSecrets: ReturnType<typeof toolSecretModel>;
  toolInvocations: ReturnType<typeof toolInvocationModel>;
  toolInvocationTakeovers: ReturnType<typeof toolInvocationTakeoverModel>;
  toolInvocationOutcomes: ReturnType<typeof toolInvocationOutcomeModel>;
  toolOrders: ReturnType<typeof toolOrderModel>;
  issueReports: ReturnType<typeof issueReportModel>;
  walletBudgets: ReturnType<typeof walletBudgetModel>;
  walletSpends: ReturnType<typeof walletSpendModel>;
  toolCatalogVersions: ReturnType<typeof toolCatalogVersionModel>;
}
