import {
  afterChecks,
  defaultReview,
  onPlatform,
  reserveRefusal,
  sameTarget,
  socialPostChecks,
  transition,
} from '../../shared/jobs/rules';
import { completeBodySchema, jobCreateSchema, listBodySchema } from '../../shared/jobs/schemas';
import { signJobWorkflowToken, verifyJobWorkflowToken } from '../../shared/jobs/workflow-token';

describe('job rules', () => {
  it('allows only the documented state transitions', () => {
    expect(transition('draft', 'open')).toBe('open');
    expect(transition('open', 'pause')).toBe('paused');
    expect(transition('paused', 'resume')).toBe('open');
    expect(transition('paused', 'close')).toBe('closed');
    expect(transition('closed', 'open')).toBeNull();
    expect(transition('open', 'resume')).toBeNull();
    expect(transition('draft', 'pause')).toBeNull();
  });

  it('refuses reservations of jobs not open or past expires_at', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    expect(reserveRefusal({ state: 'open', expires_at: null }, now)).toBeNull();
    expect(reserveRefusal({ state: 'paused', expires_at: null }, now)).toBe('job_not_open');
    expect(reserveRefusal({ state: 'open', expires_at: new Date('2025-12-31T23:59:59Z') }, now)).toBe('job_expired');
  });

  it('matches target URLs on host and path, ignoring www, trailing slash, query and fragment', () => {
    expect(sameTarget('https://www.example.com/launch/?utm_source=x#top', 'https://example.com/launch')).toBe(true);
    expect(sameTarget('https://example.com/launch-other', 'https://example.com/launch')).toBe(false);
    expect(sameTarget('https://example.com.evil.io/launch', 'https://example.com/launch')).toBe(false);
    expect(sameTarget('javascript:alert(1)', 'https://example.com/launch')).toBe(false);
  });

  it('knows which hosts serve which platform', () => {
    expect(onPlatform('https://x.com/a/status/1', 'x')).toBe(true);
    expect(onPlatform('https://mobile.twitter.com/a/status/1', 'X')).toBe(true);
    expect(onPlatform('https://www.linkedin.com/posts/abc', 'linkedin')).toBe(true);
    expect(onPlatform('https://notx.com/a', 'x')).toBe(false);
    expect(onPlatform('https://x.com.evil.io/a', 'x')).toBe(false);
    expect(onPlatform('https://x.com/a', 'myspace')).toBe(false);
    expect(onPlatform('https://fosstodon.org/@a/1', 'mastodon')).toBe(true);
  });

  it('checks each social post and decides what follows', () => {
    const job = { target_url: 'https://example.com/p', platforms: ['x'] };
    const ok = {
      platform: 'x',
      post_url: 'https://x.com/a/status/1',
      target_url_used: 'https://example.com/p',
      message_text: 'hi',
    };
    expect(socialPostChecks([ok], job).map((c) => c.status)).toEqual(['passed', 'passed', 'passed']);
    const wrongPlatform = socialPostChecks(
      [{ ...ok, platform: 'linkedin', post_url: 'https://linkedin.com/p/1' }],
      job,
    );
    expect(wrongPlatform[1]).toMatchObject({ name: 'post_0_on_platform', status: 'failed' });
    expect(socialPostChecks([], job)[0].status).toBe('failed');
    expect(afterChecks(['passed', 'passed'], 'auto', 'workflow_creation')).toBe('approve');
    expect(afterChecks(['passed', 'failed'], 'auto', 'workflow_creation')).toBe('reject');
    expect(afterChecks(['passed', 'skipped'], 'auto', 'workflow_creation')).toBe('review');
    expect(afterChecks(['passed'], 'manual', 'workflow_creation')).toBe('review');
  });

  it('auto-approves only evidence the service verified: social posts and proofs wait for an operator even on an auto job; manual is their default', () => {
    expect(afterChecks(['passed', 'passed', 'passed', 'passed'], 'auto', 'social_share')).toBe('review');
    expect(afterChecks(['passed'], 'auto', 'proof')).toBe('review');
    expect(afterChecks(['passed', 'failed'], 'auto', 'social_share')).toBe('reject');
    expect([defaultReview('social_share'), defaultReview('proof'), defaultReview('workflow_creation')]).toEqual([
      'manual',
      'manual',
      'auto',
    ]);
  });

  it('validates job input and request bodies', () => {
    expect(jobCreateSchema.validate({ kind: 'social_share', title: 't', reward_credits: 5 }).error?.message).toMatch(
      /target_url/,
    );
    expect(jobCreateSchema.validate({ kind: 'proof', title: 't', reward_credits: 5 }).value).toMatchObject({
      slots: 10,
      reservation_window_seconds: 3600,
      review_default: 'reject',
      state: 'draft',
    });
    expect(listBodySchema.validate({ limit: 0 }).error).toBeDefined();
    expect(listBodySchema.validate({ limit: '5' }).error).toBeDefined();
    expect(listBodySchema.validate({ limit: 100, skip: 10_000 }).error).toBeUndefined();
    expect(
      completeBodySchema.validate({
        proof_text: 'x',
        social_posts: [{ platform: 'x', post_url: 'ftp://a/b', target_url_used: 'https://a', message_text: 'm' }],
      }).error?.details[0].path,
    ).toEqual(['social_posts', 0, 'post_url']);
  });
});

describe('X-Job-Workflow-Token', () => {
  const secret = 'unit-test-secret-unit-test-secret-1234';
  const now = new Date('2026-01-01T00:00:00Z');
  const claims = {
    job_id: 'job_abcdef123456',
    wallet: '0xAbC0000000000000000000000000000000000001',
    reservation_id: 'res_abcdef123456',
    exp: now.getTime() / 1000 + 60,
  };

  it('round-trips claims, wallet lower-cased', () => {
    const token = signJobWorkflowToken(secret, claims);
    expect(token).toMatch(/^jwt1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(verifyJobWorkflowToken(secret, token, { jobId: claims.job_id, now })).toEqual({
      ...claims,
      wallet: claims.wallet.toLowerCase(),
    });
  });

  it('refuses another secret, another job, an expired token and tampered claims', () => {
    const token = signJobWorkflowToken(secret, claims);
    expect(
      verifyJobWorkflowToken('another-secret-another-secret-123456', token, { jobId: claims.job_id, now }),
    ).toBeNull();
    expect(verifyJobWorkflowToken(secret, token, { jobId: 'job_other', now })).toBeNull();
    expect(
      verifyJobWorkflowToken(secret, token, { jobId: claims.job_id, now: new Date(now.getTime() + 61_000) }),
    ).toBeNull();
    const [v, , mac] = token.split('.');
    const forged = Buffer.from(JSON.stringify({ ...claims, wallet: '0x' + '9'.repeat(40) })).toString('base64url');
    expect(verifyJobWorkflowToken(secret, `${v}.${forged}.${mac}`, { jobId: claims.job_id, now })).toBeNull();
    expect(verifyJobWorkflowToken(secret, 'garbage', { jobId: claims.job_id, now })).toBeNull();
  });
});
