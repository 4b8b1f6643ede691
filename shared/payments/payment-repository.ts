import { insertOnce } from '../platform/db/index';
import type { PaymentsModels } from './models/index';
import type { X402DeliveryOutcomeDoc } from './models/x402-delivery-outcome';
import type { X402PaymentDoc, X402PaymentState } from './models/x402-payment';

type PaymentModels = Pick<PaymentsModels, 'x402Payments' | 'x402DeliveryOutcomes'>;

/** A payment as a listing shows it: what was paid, by whom, where it stands and its transaction. */
export type PaymentListing = Omit<
  X402PaymentDoc,
  'payload_json' | 'requirements_json' | 'signature' | 'result_json' | 'authorization'
>;
const LISTING_FIELDS = {
  payload_json: 0,
  requirements_json: 0,
  signature: 0,
  result_json: 0,
  authorization: 0,
} as const;

/** How a delivery ended (`X402DeliveryOutcomeDoc`): decided once per payment. */
export type DeliveryOutcome = X402DeliveryOutcomeDoc['outcome'];

/**
 * The only code that writes the x402 payment records (and the one decision of how a paid
 * delivery ended); plain objects out. A decision that must happen once is an insert under a
 * unique key: the payment's `_id` (its identity) and its `purpose_key` (what it buys).
 */
export class PaymentRepository {
  constructor(private readonly models: PaymentModels) {}

  // ---- reads ----

  byId(paymentId: string): Promise<X402PaymentDoc | null> {
    return this.models.x402Payments.findById(paymentId).lean<X402PaymentDoc>().exec();
  }

  /** The payment's state alone (undefined when there is no record). */
  async stateOf(paymentId: string): Promise<X402PaymentState | undefined> {
    const rec = await this.models.x402Payments
      .findById(paymentId, { status: 1 })
      .lean<Pick<X402PaymentDoc, 'status'>>()
      .exec();
    return rec?.status;
  }

  /** The payment that holds a purpose key (one purchase request is paid at most once). */
  byPurposeKey(purposeKey: string): Promise<X402PaymentDoc | null> {
    return this.models.x402Payments.findOne({ purpose_key: purposeKey }).lean<X402PaymentDoc>().exec();
  }

  /** The payment a transaction carried (hashes are stored lowercase); a failed one paid for nothing. */
  byTransaction(txHash: string): Promise<X402PaymentDoc | null> {
    return this.models.x402Payments
      .findOne({ tx_hash: txHash.toLowerCase(), status: { $ne: 'failed' } })
      .lean<X402PaymentDoc>()
      .exec();
  }

  /** Ids of the payments in `state` created before `before`, oldest first (the settlement sweep). */
  async idsInStateBefore(state: X402PaymentState, before: Date, limit: number): Promise<string[]> {
    const rows = await this.models.x402Payments
      .find({ status: state, created_at: { $lt: before } }, { _id: 1 })
      .sort({ created_at: 1 })
      .limit(limit)
      .lean<Array<Pick<X402PaymentDoc, '_id'>>>()
      .exec();
    return rows.map((r) => r._id);
  }

  /**
   * Payments newest first, optionally of one status, keyset-paged on `(created_at, _id)` (the
   * operator's console): an index range on `{created_at, _id}` or `{status, created_at, _id}`.
   * Without the signed payload, the requirements and the paid call's result.
   */
  async page(i: {
    status?: X402PaymentState;
    before?: { created_at: Date; id: string };
    limit: number;
  }): Promise<{ payments: PaymentListing[]; more: boolean }> {
    const filter: Record<string, unknown> = i.status ? { status: i.status } : {};
    if (i.before)
      filter.$or = [
        { created_at: { $lt: i.before.created_at } },
        { created_at: i.before.created_at, _id: { $lt: i.before.id } },
      ];
    const docs = await this.models.x402Payments
      .find(filter, LISTING_FIELDS)
      .sort({ created_at: -1, _id: -1 })
      .limit(i.limit + 1)
      .lean<PaymentListing[]>()
      .exec();
    return { payments: docs.slice(0, i.limit), more: docs.length > i.limit };
  }

  // ---- writes ----

  /**
   * Records a new payment; false when its `_id` (the same payment) or its `purpose_key` (the same
   * purchase request, paid by another payment) is already held: the insert is what decides.
   */
  insert(record: X402PaymentDoc): Promise<boolean> {
    return insertOnce(this.models.x402Payments, record);
  }

  /**
   * Sets `fields` (and `updated_at`) on the record and removes `unset`; answers the record as it
   * now reads, without reading it back.
   */
  async update(
    rec: X402PaymentDoc,
    fields: Partial<X402PaymentDoc>,
    unset: Array<keyof X402PaymentDoc> = [],
  ): Promise<X402PaymentDoc> {
    const updated_at = new Date();
    await this.models.x402Payments.updateOne(
      { _id: rec._id },
      {
        $set: { ...fields, updated_at },
        ...(unset.length ? { $unset: Object.fromEntries(unset.map((k) => [k, 1])) } : {}),
      },
    );
    const next = { ...rec, ...fields, updated_at };
    for (const k of unset) delete next[k];
    return next;
  }

  /** Forgets a payment still `delivering` that was never admitted (the same payment may be sent again). */
  async forgetUndelivered(paymentId: string): Promise<void> {
    await this.models.x402Payments.deleteOne({ _id: paymentId, status: 'delivering' });
  }

  /** A `delivering` payment's call answered: keep its result; it is `verified`, ready to settle. */
  async recordDelivered(paymentId: string, resultJson: string, now: Date): Promise<void> {
    await this.models.x402Payments.updateOne(
      { _id: paymentId, status: 'delivering' },
      { $set: { status: 'verified', result_json: resultJson, updated_at: now } },
    );
  }

  /**
   * Records a delivering payment failed (never settled; a repeat answers this failure) and frees
   * its purpose key for a new payment. Only after `decideDelivery` said abandoned.
   */
  async recordAbandoned(paymentId: string, code: string, message: string, now = new Date()): Promise<void> {
    await this.models.x402Payments.updateOne(
      { _id: paymentId, status: 'delivering' },
      {
        $set: {
          status: 'failed',
          error_code: code,
          error_message: message,
          purpose_key: `failed:${paymentId}`,
          updated_at: now,
        },
      },
    );
  }

  /**
   * Decides once how a delivery ended: the outcome that holds, ours when this call inserted it,
   * else the one recorded first (by the API delivering, or by the sweep abandoning).
   */
  async decideDelivery(paymentId: string, outcome: DeliveryOutcome, now = new Date()): Promise<DeliveryOutcome> {
    if (await insertOnce(this.models.x402DeliveryOutcomes, { _id: paymentId, outcome, created_at: now }))
      return outcome;
    const held = await this.models.x402DeliveryOutcomes.findById(paymentId).lean<X402DeliveryOutcomeDoc>().exec();
    if (!held) throw new Error(`delivery outcome of ${paymentId} was refused by its key but no record holds it`);
    return held.outcome;
  }
}
