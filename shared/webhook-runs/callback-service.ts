import type { CallbackConfig } from '../platform/config/index';
import { errors } from '../platform/errors/index';
import { ids } from '../platform/ids/index';
import type { GroupAccess } from '../workspaces/index';
import type { DeliveryLogRepository } from './deliveries';
import type { RunEngine } from './engine';
import type { CallbackReplayDoc } from './models/callback-replay';
import type { SignatureScheme } from './models/signing-key';
import type { RunRepository } from './repository';
import type { SigningKeyRepository } from './signing-keys';
import { callbackMessageId, isTerminal } from './types';

/**
 * What a group does with its callbacks beyond receiving them: read a run's delivery log, replay
 * its final callback, rotate its signing key (HMAC or ed25519) and read the keys in force. Every
 * read is scoped to the group; another group's run is 404.
 */
export class CallbackService {
  constructor(
    private readonly ports: {
      runs: RunRepository;
      deliveries: DeliveryLogRepository;
      signingKeys: SigningKeyRepository;
      engine: Pick<RunEngine, 'replayCallback'>;
    },
    private readonly config: Pick<CallbackConfig, 'timeoutMs' | 'keyOverlapSeconds'>,
  ) {}

  private async ownRun(access: Pick<GroupAccess, 'group'>, runId: string) {
    const record = await this.ports.runs.get(runId);
    if (!record || record.run.group_id !== access.group._id)
      throw errors.notFound('run_not_found', `no run ${runId} for this agent group`);
    return record.run;
  }

  async deliveries(access: Pick<GroupAccess, 'group'>, runId: string, page: { after?: string; limit: number }) {
    const run = await this.ownRun(access, runId);
    const { attempts, next } = await this.ports.deliveries.page(run._id, page);
    return { webhookId: callbackMessageId(run._id), callbackStatus: run.callback_status, attempts, next };
  }

  /**
   * Records the replay (who asked, when) and starts its one POST; 202 before it is made. Only a
   * finished run whose callback is no longer pending has a final body to send again.
   */
  async replay(access: GroupAccess, runId: string, now = new Date()): Promise<CallbackReplayDoc> {
    const run = await this.ownRun(access, runId);
    if (!run.callback_url)
      throw errors.conflict('run_has_no_callback', `run ${runId} was triggered without a callback_url`);
    if (!isTerminal(run.status) || run.callback_status === 'pending')
      throw errors.conflict(
        'callback_not_final',
        `run ${runId} is ${run.status} with its callback ${run.callback_status}: a replay sends the final callback again, once the scheduled deliveries have ended`,
      );
    const replay: CallbackReplayDoc = {
      _id: ids.callbackReplay(),
      run_id: run._id,
      group_id: access.group._id,
      webhook_id: callbackMessageId(run._id),
      requested_by: access.tokenId,
      requested_at: now,
    };
    await this.ports.deliveries.recordReplay(replay);
    await this.ports.engine.replayCallback({
      replayId: replay._id,
      runId: run._id,
      groupId: access.group._id,
      requestedBy: access.tokenId,
      timeoutMs: this.config.timeoutMs,
    });
    return replay;
  }

  signingKeys(access: Pick<GroupAccess, 'group'>, now = new Date()) {
    return this.ports.signingKeys.inForce(access.group._id, now);
  }

  rotate(
    access: Pick<GroupAccess, 'group'>,
    body: { scheme?: SignatureScheme; overlap_seconds?: number },
    now = new Date(),
  ) {
    return this.ports.signingKeys.rotate({
      groupId: access.group._id,
      scheme: body.scheme,
      overlapSeconds: body.overlap_seconds ?? this.config.keyOverlapSeconds,
      now,
    });
  }
}
