import { probeLast } from '../credits/index';
import { BoundedCache } from '../platform/cache/bounded-cache';
import { insertOnce } from '../platform/db/index';
import type { PaymentsModels as Models } from './models/index';
import type { InFlightPayment, X402InFlightDoc } from './models/x402-in-flight';
import type { X402PaymentState } from './models/x402-payment';
import type { PaymentRepository } from './payment-repository';

/** Seconds past an authorization's validBefore before it stops counting (chain clocks lag ours). */
const VALID_BEFORE_MARGIN_S = 120;
const MAX_ATTEMPTS = 100;
const SETTLED: ReadonlySet<X402PaymentState> = new Set(['completed', 'failed']);

export type InFlightClaim = { ok: true } | { ok: false; in_flight: bigint; balance: bigint };

/** The payments that still count against the balance: neither settled nor failed, and still able to move money. */
export function stillInFlight(
  open: readonly InFlightPayment[],
  status: (paymentId: string) => X402PaymentState | undefined,
  nowS: number,
): InFlightPayment[] {
  return open.filter((p) => {
    const s = status(p.payment_id);
    return !(s && SETTLED.has(s)) && Number(p.valid_before) + VALID_BEFORE_MARGIN_S > nowS;
  });
}

export function totalOf(open: readonly InFlightPayment[]): bigint {
  return open.reduce((sum, p) => sum + BigInt(p.amount_base_units), 0n);
}

export function payerKey(network: string, asset: string, payer: string): string {
  return `${network}:${asset.toLowerCase()}:${payer.toLowerCase()}`;
}

/**
 * Each payer's payments that were delivered (or are being delivered) before they settled,
 * counted against the payer's on-chain balance: a new one is admitted only while the sum of
 * those still in flight plus its amount stays within the balance, so N authorizations over
 * one balance never buy N deliveries. An append-only log per payer (`<payer key>:<seq>`, like
 * the credit ledger), so the unique `_id` decides each admission; payments leave the total
 * when they settle or fail (read from their records at the next admission) or once their
 * authorization can no longer execute.
 */
export class InFlightPayments {
  /** The latest head seen per payer, a lower bound for the next probe (heads never change). */
  private readonly seen = new BoundedCache<X402InFlightDoc>(10_000);

  constructor(
    private readonly models: Pick<Models, 'x402InFlight'>,
    /** Where the in-flight payments' states are read (they leave the total once settled or failed). */
    private readonly payments: Pick<PaymentRepository, 'stateOf'>,
  ) {}

  private async head(key: string): Promise<X402InFlightDoc | null> {
    const head = await probeLast(this.seen.get(key) ?? null, (seq) =>
      this.models.x402InFlight.findById(`${key}:${seq}`).lean<X402InFlightDoc>().exec(),
    );
    if (head) this.seen.set(key, head);
    return head;
  }

  /**
   * Admits `payment` for `key` if it fits. `balance` is read after the in-flight statuses, so
   * a payment seen settled has already left the balance it is compared with.
   */
  async admit(key: string, payment: InFlightPayment, balance: () => Promise<bigint>): Promise<InFlightClaim> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const head = await this.head(key);
      const open = head?.open ?? [];
      if (open.some((p) => p.payment_id === payment.payment_id)) return { ok: true };
      const states = await Promise.all(open.map((p) => this.payments.stateOf(p.payment_id)));
      const statuses = new Map(open.map((p, i) => [p.payment_id, states[i]]));
      const counting = stillInFlight(open, (id) => statuses.get(id), Math.floor(Date.now() / 1000));
      const available = await balance();
      if (totalOf(counting) + BigInt(payment.amount_base_units) > available)
        return { ok: false, in_flight: totalOf(counting), balance: available };
      const seq = (head?.seq ?? 0) + 1;
      const doc: X402InFlightDoc = {
        _id: `${key}:${seq}`,
        payer_key: key,
        seq,
        open: [...counting, payment],
        created_at: new Date(),
      };
      if (await insertOnce(this.models.x402InFlight, doc)) {
        this.seen.set(key, doc);
        return { ok: true };
      }
      await new Promise((r) => setTimeout(r, Math.random() * Math.min(20, attempt + 1)));
    }
    throw new Error(`in-flight payments of ${key} too contended: gave up after ${MAX_ATTEMPTS} attempts`);
  }
}
