import type { creditExpiryModel } from './credit-expiry';
import type { creditHeadModel } from './credit-head';
import type { creditTransactionModel } from './credit-transaction';
import type { ledgerWatermarkModel } from './ledger-watermark';

/** The models this capability owns, under the names the composition root registers them by. */
export interface CreditsModels {
  creditExpiries: ReturnType<typeof creditExpiryModel>;
  creditHeads: ReturnType<typeof creditHeadModel>;
  creditTransactions: ReturnType<typeof creditTransactionModel>;
  ledgerWatermarks: ReturnType<typeof ledgerWatermarkModel>;
}
