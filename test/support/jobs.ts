import type { Models } from '../../shared/composition/models';
import type { JobDoc } from '../../shared/jobs/models/job';
import { JobOperations } from '../../shared/jobs/operations';
import { JobRepository } from '../../shared/jobs/repository';
import type { JobCreateInput } from '../../shared/jobs/schemas';

/** An open job with test defaults; `overrides` wins. */
export function createJob(models: Models, overrides: Partial<JobCreateInput> = {}): Promise<JobDoc> {
  const base: JobCreateInput = {
    kind: 'social_share',
    title: 'Share the launch post',
    reward_credits: 50,
    slots: 5,
    target_url: 'https://example.com/launch',
    platforms: ['x', 'linkedin'],
    state: 'open',
  };
  return new JobOperations(new JobRepository(models)).create({ ...base, ...overrides });
}

export const goodPost = (target = 'https://example.com/launch') => ({
  platform: 'x',
  post_url: 'https://x.com/agent/status/1234567890',
  target_url_used: `${target}?utm_source=agent`,
  message_text: 'Have a look at the launch',
  posted_at: '2026-11-22T10:00:00Z',
});

/**
 * Polls `read` until `done` holds or the time is up; returns the last value. Every caller waits
 * for something to happen (a workflow's step), which a loaded machine can hold up past 20 s.
 */
export async function until<T>(
  read: () => Promise<T>,
  done: (v: T) => boolean,
  timeoutMs = 60_000,
  everyMs = 150,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  let v = await read();
  while (!done(v) && Date.now() < end) {
    await new Promise((r) => setTimeout(r, everyMs));
    v = await read();
  }
  return v;
}
