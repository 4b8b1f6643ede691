import { Connection } from 'mongoose';
import { accessTokenModel } from './access-token';
import { authSessionModel } from './auth-session';
import { creditExpiryModel } from './credit-expiry';
import { creditHeadModel } from './credit-head';
import { creditTransactionModel } from './credit-transaction';
import { rateLimitModel } from './rate-limit';
import { systemPingModel } from './system-ping';
import { usedRequestModel } from './used-request';
import { x402PaymentModel } from './x402-payment';
import { settlementNonceModel } from './settlement-nonce';
import { creditHoldModel } from './credit-hold';
import { issueReportModel } from './issue-report';
import { toolInvocationModel } from './tool-invocation';
import { toolOrderModel } from './tool-order';
import { toolProductModel } from './tool-product';
import { toolSecretModel } from './tool-secret';
import { walletBudgetModel } from './wallet-budget';
import { toolCatalogVersionModel } from './tool-catalog-version';

/** Every model bound to one connection; register before connecting so indexes build on connect. */
export function registerModels(conn: Connection) {
  return {
    pings: systemPingModel(conn),
    creditExpiries: creditExpiryModel(conn),
    creditHeads: creditHeadModel(conn),
    creditTransactions: creditTransactionModel(conn),
    authSessions: authSessionModel(conn),
    usedRequests: usedRequestModel(conn),
    rateLimits: rateLimitModel(conn),
    accessTokens: accessTokenModel(conn),
    x402Payments: x402PaymentModel(conn),
    settlementNonces: settlementNonceModel(conn),
    creditHolds: creditHoldModel(conn),
    toolProducts: toolProductModel(conn),
    toolSecrets: toolSecretModel(conn),
    toolInvocations: toolInvocationModel(conn),
    toolOrders: toolOrderModel(conn),
    issueReports: issueReportModel(conn),
    walletBudgets: walletBudgetModel(conn),
    toolCatalogVersions: toolCatalogVersionModel(conn),
  };
}

export type Models = ReturnType<typeof registerModels>;
