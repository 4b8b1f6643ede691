import { acknowledged } from '../history';
import type { CheckInput, ClaimRow, Violation } from './snapshot';

const LIVE_RESERVATION = new Set(['active', 'completed']);

/** No job slot given twice: per job, live reservations within its slots, each on its own slot; every acknowledged reservation stored. */
export function checkJobSlots({ ops, snapshot }: CheckInput): Violation[] {
  const out: Violation[] = [];
  const slotsOf = new Map(snapshot.jobs.map((j) => [j._id, j.slots]));
  const byJob = new Map<string, typeof snapshot.reservations>();
  for (const r of snapshot.reservations) {
    if (LIVE_RESERVATION.has(r.status)) byJob.set(r.job_id, [...(byJob.get(r.job_id) ?? []), r]);
  }
  const opsOf = (jobId: string) => ops.filter((o) => o.facts?.job_id === jobId);
  for (const [jobId, live] of byJob) {
    const slots = slotsOf.get(jobId) ?? 0;
    if (live.length > slots) {
      out.push({
        invariant: 'job_slot_once',
        message: `job ${jobId}: ${live.length} live reservations for ${slots} slots`,
        ops: opsOf(jobId),
      });
    }
    const seen = new Map<number, string>();
    for (const r of live) {
      if (r.slot === null) continue;
      const other = seen.get(r.slot);
      if (other) {
        out.push({
          invariant: 'job_slot_once',
          message: `job ${jobId}: slot ${r.slot} held by ${other} and ${r._id}`,
          ops: opsOf(jobId).filter((o) => o.ref === other || o.ref === r._id),
        });
      }
      seen.set(r.slot, r._id);
    }
  }
  const stored = new Set(snapshot.reservations.map((r) => r._id));
  for (const o of ops) {
    if (o.kind === 'job_reserve' && acknowledged(o) && o.ref && !stored.has(o.ref))
      out.push({
        invariant: 'acknowledged_write_present',
        message: `reservation ${o.ref} acknowledged, not stored`,
        ops: [o],
      });
  }
  return out;
}

/**
 * No occurrence held by two live claims: claims of one occurrence (schedule, due_at) whose
 * lives (claimed until ended or lease expiry) overlap. Every acknowledged claim is stored.
 */
export function checkScheduleClaims({ ops, snapshot }: CheckInput): Violation[] {
  const out: Violation[] = [];
  const ended = new Map(snapshot.claimEnds.map((e) => [e._id, e.at]));
  const until = (c: ClaimRow) => Math.min(c.lease_expires_at, ended.get(c._id) ?? Infinity);
  const byOccurrence = new Map<string, ClaimRow[]>();
  for (const c of snapshot.claims) {
    const key = `${c.schedule_id}@${c.due_at}`;
    byOccurrence.set(key, [...(byOccurrence.get(key) ?? []), c]);
  }
  const opsOf = (c: ClaimRow) => ops.filter((o) => o.ref === c.claim_token);
  for (const [key, claims] of byOccurrence) {
    claims.sort((a, b) => a.claimed_at - b.claimed_at);
    for (let i = 1; i < claims.length; i++) {
      const prev = claims[i - 1]!;
      const next = claims[i]!;
      if (next.claimed_at < until(prev)) {
        out.push({
          invariant: 'occurrence_one_live_claim',
          message: `occurrence ${key}: claim ${next._id} at ${new Date(next.claimed_at).toISOString()} while ${prev._id} lived until ${new Date(until(prev)).toISOString()}`,
          ops: [...opsOf(prev), ...opsOf(next)],
        });
      }
    }
  }
  const tokens = new Set(snapshot.claims.map((c) => c.claim_token));
  for (const o of ops) {
    if (o.kind === 'schedule_claim' && acknowledged(o) && o.ref && !tokens.has(o.ref))
      out.push({
        invariant: 'acknowledged_write_present',
        message: `claim ${o.ref} acknowledged, not stored`,
        ops: [o],
      });
  }
  return out;
}
