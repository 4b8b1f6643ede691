import { Context } from '@temporalio/activity';
import type { Model } from 'mongoose';
import type { SystemPingDoc } from '../../shared/platform/health/model';

export interface PingDeps {
  pings: Model<SystemPingDoc>;
  workerIdentity: string;
}

export interface PingResult {
  workflowId: string;
  recordedAt: string;
  worker: string;
}

export function createPingActivities(deps: PingDeps) {
  return {
    async recordPing(): Promise<PingResult> {
      const workflowId = Context.current().info.workflowExecution?.workflowId ?? 'standalone';
      const recordedAt = new Date();
      await deps.pings.updateOne(
        { _id: workflowId },
        { $set: { recorded_at: recordedAt, worker: deps.workerIdentity } },
        { upsert: true },
      );
      Context.current().log.info('ping recorded');
      return { workflowId, recordedAt: recordedAt.toISOString(), worker: deps.workerIdentity };
    },
  };
}

export type PingActivities = ReturnType<typeof createPingActivities>;
