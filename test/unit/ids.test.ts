import type Joi from 'joi';
import { BUNDLE_ID, PRODUCT_ID, WORKFLOW_ID } from '../../shared/embed/rules';
import { completionId, jobId, reservationId } from '../../shared/jobs/schemas';
import {
  ids,
  processSecret,
  secret,
  SECRET_SHAPES,
  type SecretPrefix,
  webhookSecret,
} from '../../shared/platform/ids/index';
import { claimIdOfToken } from '../../shared/schedules/repository';
import { SCHEDULE_ID } from '../../shared/schedules/schemas';
import { OBJECT_ID_PATTERN } from '../../shared/tools/rules';
import { runIdSchema } from '../../shared/webhook-runs/schemas';
import { sessionIdSchema } from '../../shared/workflow-sessions/schemas';
import { workflowIdSchema } from '../../shared/workflows/schemas';
import { RUN_ID } from '../../temporal/webhook-runs/ids';

const valid = (schema: Joi.Schema, value: string) => expect(schema.validate(value).error).toBeUndefined();

describe('ids: each kind matches the pattern its readers validate against', () => {
  it('run, session, schedule, job ids pass their schemas', () => {
    valid(runIdSchema, ids.run());
    expect(ids.run()).toMatch(RUN_ID);
    valid(sessionIdSchema, ids.workflowSession());
    expect(ids.schedule()).toMatch(SCHEDULE_ID);
    valid(jobId, ids.job());
    valid(reservationId, ids.reservation());
    valid(completionId, ids.completion());
  });

  it('workflow, bundle and product ids pass the embed and catalog patterns', () => {
    valid(workflowIdSchema, ids.workflow());
    expect(ids.workflow()).toMatch(WORKFLOW_ID);
    expect(ids.bundle()).toMatch(BUNDLE_ID);
    expect(ids.product()).toMatch(PRODUCT_ID);
    expect(ids.product()).toMatch(OBJECT_ID_PATTERN);
  });

  it('secrets match their shapes', () => {
    for (const prefix of Object.keys(SECRET_SHAPES) as SecretPrefix[])
      expect(secret(prefix)).toMatch(SECRET_SHAPES[prefix]);
    expect(webhookSecret()).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(processSecret()).toMatch(/^[0-9a-f]{48}$/);
  });

  it('keeps the formats that have no schema of their own', () => {
    expect(ids.workspace()).toMatch(/^ws_[0-9a-f]{16}$/);
    expect(ids.budget()).toMatch(/^bud_[0-9a-f]{16}$/);
    expect(ids.agentGroup()).toMatch(/^grp_[0-9a-f]{16}$/);
    expect(ids.approval()).toMatch(/^apr_[0-9a-f]{16}$/);
    expect(ids.workspaceKey()).toMatch(/^wakid_[0-9a-f]{16}$/);
    expect(ids.agentToken()).toMatch(/^agtid_[0-9a-f]{16}$/);
    expect(ids.accessToken()).toMatch(/^tok_[0-9a-f]{16}$/);
    expect(ids.cancelRequest()).toMatch(/^cr_[0-9a-f]{16}$/);
    expect(ids.instance()).toMatch(/^inst_[0-9a-f]{24}$/);
    expect(ids.issue()).toMatch(/^iss_[0-9a-f]{24}$/);
    expect(ids.grant()).toMatch(/^grant_[0-9a-f]{24}$/);
    expect(ids.order()).toMatch(/^ord_[0-9a-f]{24}$/);
    expect(ids.catalogVersion()).toMatch(/^[0-9a-f]{16}$/);
    expect(ids.signInNonce()).toMatch(/^[0-9a-f]{32}$/);
    expect(ids.session()).toMatch(/^sn_[A-Za-z0-9_-]{32}$/);
    expect(ids.row('k|7')).toMatch(/^k\|7\|[0-9a-f]{16}$/);
    expect(ids.request()).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('a derived order id has the random one’s format and is stable per seed', () => {
    expect(ids.order('0xabc|idem:k1')).toMatch(/^ord_[0-9a-f]{24}$/);
    expect(ids.order('0xabc|idem:k1')).toBe(ids.order('0xabc|idem:k1'));
    expect(ids.order('0xabc|idem:k2')).not.toBe(ids.order('0xabc|idem:k1'));
  });

  it('a claim token names its claim', () => {
    const claim = 'sch_0123:2026-01-01T00:00:00.000Z:2';
    const token = ids.claimToken(claim);
    expect(token).toMatch(/^clm_[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{24}$/);
    expect(claimIdOfToken(token)).toBe(claim);
  });

  it('draws are unique', () => {
    const draws = 3000;
    const kinds: Array<() => string> = [
      ids.run,
      ids.workflow,
      ids.bundle,
      ids.cancelRequest,
      ids.accessToken,
      ids.product,
      ids.session,
      ids.signInNonce,
      () => secret('act_'),
    ];
    for (const mint of kinds) expect(new Set(Array.from({ length: draws }, () => mint())).size).toBe(draws);
  });
});
