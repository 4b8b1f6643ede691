import { checkSettlements } from './chain';
import { checkJobSlots, checkScheduleClaims } from './claims';
import { checkBalances, checkCharges, checkOpenHolds } from './ledger';
import { checkRuns } from './runs';
import type { CheckInput, Violation } from './snapshot';

export type { CheckInput, Snapshot, Violation } from './snapshot';

/** Every invariant the soak promises, each a pure function of the history and what the store, Temporal and the chain hold. */
export const CHECKS = {
  checkBalances,
  checkCharges,
  checkOpenHolds,
  checkSettlements,
  checkRuns,
  checkJobSlots,
  checkScheduleClaims,
};

export function check(input: CheckInput): Violation[] {
  return Object.values(CHECKS).flatMap((c) => c(input));
}

/** A violation as the report prints it: the invariant, what is wrong, and the operations that show it. */
export function describeViolation(v: Violation): string {
  const lines = [`[${v.invariant}] ${v.message}`];
  for (const o of v.ops.slice(0, 10)) {
    lines.push(
      `    op #${o.id} ${o.kind} by ${o.agent} at ${new Date(o.startedAt).toISOString()} -> ${o.status}${o.error ? ` ${o.error}` : ''}${o.ref ? ` ref=${o.ref}` : ''}${o.requestId ? ` request=${o.requestId}` : ''}`,
    );
  }
  if (v.ops.length > 10) lines.push(`    … ${v.ops.length - 10} more operations`);
  return lines.join('\n');
}
