/**
 * Pure job rules: states and transitions, what a wallet may do, the automated proof checks and
 * what follows them. No I/O, no clock (times come in), so workflows may import it.
 */
import type { JobDoc, JobKind, JobReview, JobState } from './models/job';
import type { SocialPost, StepStatus } from './models/job-completion';

/** The ledger account rewards are paid from (docs/decisions.md, "Ledger accounts"); operators fund it with job:fund. */
export const PLATFORM_ACCOUNT = 'platform:jobs';

export const JOB_KINDS: readonly JobKind[] = ['social_share', 'workflow_creation', 'proof'];
export const JOB_STATES: readonly JobState[] = ['draft', 'open', 'paused', 'closed'];

/** Bounds of limit and skip on POST /api/external/jobs/list. */
export const LIST_LIMIT = { default: 20, max: 100 } as const;
export const LIST_SKIP_MAX = 10_000;

export const DEFAULTS = {
  slots: 10,
  reservationWindowSeconds: 3600,
  maxCompletionsPerWallet: 1,
  reviewDeadlineSeconds: 72 * 3600,
  reviewDefault: 'reject',
} as const;

/**
 * Kinds whose evidence the service verifies from its own records: a `workflow_creation`
 * completion names a workflow this wallet created through the job's endpoints under this very
 * reservation and published. A social post or a free-text proof is only a claim (the service
 * fetches no posts), so those kinds are never approved automatically.
 */
export const VERIFIED_KINDS: readonly JobKind[] = ['workflow_creation'];

/** Without an operator's choice: verified kinds pay automatically, the others wait for a person. */
export function defaultReview(kind: JobKind): JobReview {
  return VERIFIED_KINDS.includes(kind) ? 'auto' : 'manual';
}

export type JobAction = 'open' | 'pause' | 'resume' | 'close';

const TRANSITIONS: Record<JobAction, { from: readonly JobState[]; to: JobState }> = {
  open: { from: ['draft'], to: 'open' },
  pause: { from: ['open'], to: 'paused' },
  resume: { from: ['paused'], to: 'open' },
  close: { from: ['draft', 'open', 'paused'], to: 'closed' },
};

/** The state after `action`, or null when the job's state does not allow it. */
export function transition(state: JobState, action: JobAction): JobState | null {
  const t = TRANSITIONS[action];
  return t.from.includes(state) ? t.to : null;
}

export type ReserveRefusal = 'job_not_open' | 'job_expired';

/** Why a wallet may not reserve this job now (slots and per-wallet limits are checked apart). */
export function reserveRefusal(job: Pick<JobDoc, 'state' | 'expires_at'>, now: Date): ReserveRefusal | null {
  if (job.state !== 'open') return 'job_not_open';
  if (job.expires_at && job.expires_at.getTime() <= now.getTime()) return 'job_expired';
  return null;
}

/** Grant id of a completion's reward: LedgerStore.grant is idempotent on it. */
export const rewardGrantId = (completionId: string) => `job_reward:${completionId}`;
/** Request id of the platform account's spend for a completion: LedgerStore.spend is idempotent on it. */
export const rewardSpendRequestId = (completionId: string) => `job_reward:${completionId}`;

/** Hosts each platform serves posts from; a post's host must be one of these or under one. */
export const PLATFORM_HOSTS: Readonly<Record<string, readonly string[]>> = {
  x: ['x.com', 'twitter.com'],
  twitter: ['twitter.com', 'x.com'],
  linkedin: ['linkedin.com'],
  facebook: ['facebook.com', 'fb.com'],
  reddit: ['reddit.com'],
  bluesky: ['bsky.app'],
  threads: ['threads.net'],
  instagram: ['instagram.com'],
  youtube: ['youtube.com', 'youtu.be'],
  tiktok: ['tiktok.com'],
  mastodon: [],
};

function parseHttpUrl(text: string): URL | null {
  try {
    const u = new URL(text);
    return u.protocol === 'https:' || u.protocol === 'http:' ? u : null;
  } catch {
    return null;
  }
}

const bareHost = (host: string) => host.toLowerCase().replace(/^www\./, '');
const barePath = (path: string) => path.replace(/\/+$/, '') || '/';

/**
 * Whether `used` points at `target`: same host (ignoring `www.`) and path (ignoring a trailing
 * slash); query and fragment are ignored, so share links with tracking parameters count.
 */
export function sameTarget(used: string, target: string): boolean {
  const a = parseHttpUrl(used);
  const b = parseHttpUrl(target);
  if (!a || !b) return false;
  return bareHost(a.hostname) === bareHost(b.hostname) && barePath(a.pathname) === barePath(b.pathname);
}

/** Whether `postUrl` is on `platform` (mastodon: any https host, it is federated). */
export function onPlatform(postUrl: string, platform: string): boolean {
  const u = parseHttpUrl(postUrl);
  const hosts = PLATFORM_HOSTS[platform.toLowerCase()];
  if (!u || !hosts) return false;
  if (hosts.length === 0) return u.protocol === 'https:';
  const host = bareHost(u.hostname);
  return hosts.some((h) => host === h || host.endsWith(`.${h}`));
}

export interface CheckResult {
  name: string;
  status: StepStatus;
  detail: string;
}

/** The automated checks of a social_share completion, one per post and property. */
export function socialPostChecks(
  posts: readonly SocialPost[],
  job: Pick<JobDoc, 'target_url' | 'platforms'>,
): CheckResult[] {
  if (posts.length === 0)
    return [
      { name: 'social_posts_present', status: 'failed', detail: 'a social_share completion needs at least one post' },
    ];
  return posts.flatMap((p, i): CheckResult[] => {
    const url = parseHttpUrl(p.post_url);
    const allowed = job.platforms.length === 0 || job.platforms.includes(p.platform.toLowerCase());
    return [
      {
        name: `post_${i}_url_well_formed`,
        status: url ? 'passed' : 'failed',
        detail: url ? p.post_url : `not an http(s) URL: ${p.post_url}`,
      },
      {
        name: `post_${i}_on_platform`,
        status: allowed && onPlatform(p.post_url, p.platform) ? 'passed' : 'failed',
        detail: !allowed
          ? `platform ${p.platform} is not one this job accepts (${job.platforms.join(', ')})`
          : `${url?.hostname ?? p.post_url} ${onPlatform(p.post_url, p.platform) ? 'is' : 'is not'} on ${p.platform}`,
      },
      job.target_url
        ? {
            name: `post_${i}_target_url_used`,
            status: sameTarget(p.target_url_used, job.target_url) ? 'passed' : 'failed',
            detail: `${p.target_url_used} ${sameTarget(p.target_url_used, job.target_url) ? 'matches' : 'does not match'} ${job.target_url}`,
          }
        : { name: `post_${i}_target_url_used`, status: 'skipped', detail: 'the job names no target URL' },
    ];
  });
}

export type AfterChecks = 'approve' | 'reject' | 'review';

/**
 * What the verification does once the automated checks ran: any failed check rejects; an
 * `auto` job of a verified kind with every check passed pays; anything else (a manual job, a
 * skipped check, a kind whose evidence the service cannot verify, even on an `auto` job) waits
 * for an operator until the review deadline.
 */
export function afterChecks(statuses: readonly StepStatus[], review: JobReview, kind: JobKind): AfterChecks {
  if (statuses.includes('failed')) return 'reject';
  if (review === 'auto' && VERIFIED_KINDS.includes(kind) && statuses.every((s) => s === 'passed')) return 'approve';
  return 'review';
}
