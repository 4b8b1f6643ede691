import { randomBytes } from 'node:crypto';
import type { Db } from '../../shared/composition/store';
import { RunRepository } from '../../shared/webhook-runs/repository';
import { runDoc } from './run-doc';
import type { GroupSetup } from './webhook-runs';

/** Stores a finished run directly (for callback tests that start the delivery workflow alone). */
export async function storeFinishedRun(db: Db, g: GroupSetup, callbackUrl: string): Promise<string> {
  const now = new Date();
  const id = `run_${randomBytes(12).toString('hex')}`;
  const doc = runDoc({
    _id: id,
    workflow_id: 'wf_callbacks',
    group_id: g.groupId,
    budget_id: g.budgetId,
    workspace_id: g.workspaceId,
    status: 'completed',
    response_text: 'done',
    callback_url: callbackUrl,
    callback_status: 'pending',
    created_at: now,
    started_at: now,
    completed_at: now,
  });
  await new RunRepository(db.models).insertRun(doc);
  return id;
}
