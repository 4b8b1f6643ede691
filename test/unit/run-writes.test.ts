import { applySet, finishSet, recordAfterWrites, runningSet, writtenOf } from '../../shared/webhook-runs/run-writes';
import type { RunOutcome, RunRecord, WebhookRunDoc } from '../../shared/webhook-runs/types';
import { runDoc } from '../support/run-doc';

const created = new Date('2026-01-02T03:04:05.006Z');
const started = new Date('2026-01-02T03:04:05.050Z');
const finished = new Date('2026-01-02T03:04:05.090Z');

function queued(over: Partial<WebhookRunDoc> = {}): RunRecord {
  const run = runDoc({
    _id: 'run_1',
    workflow_version: '1.0.0',
    prompt: 'Ada',
    run_metadata: { workflow_version: '1.0.0', nodes: [], trace_id: 't' },
    created_at: created,
    ...over,
  });
  return { run, cancel: null };
}

const completed: RunOutcome = {
  status: 'completed',
  response_text: 'Hello, Ada!',
  model: null,
  error_code: null,
  error_message: null,
  nodes: [{ id: 'greet', type: 'template', status: 'completed', worker: 'w1' }],
};
const failed: RunOutcome = {
  status: 'failed',
  response_text: null,
  model: null,
  error_code: 'node_output_too_large',
  error_message: 'too large',
  nodes: [{ id: 'big', type: 'template', status: 'failed', error_code: 'node_output_too_large' }],
};

describe('the run workflow writes as $set documents', () => {
  it('sets the terminal fields of each status and nothing else', () => {
    expect(finishSet(completed, finished)).toEqual({
      status: 'completed',
      response_text: 'Hello, Ada!',
      model: null,
      error_code: null,
      error_message: null,
      'run_metadata.nodes': completed.nodes,
      updated_at: finished,
      completed_at: finished,
    });
    expect(finishSet(failed, finished)).toMatchObject({ failed_at: finished, completed_at: finished });
    expect(finishSet({ ...failed, status: 'setup_required' }, finished)).toMatchObject({
      setup_required_at: finished,
    });
    expect(finishSet({ ...failed, status: 'cancelled' }, finished)).toMatchObject({ cancelled_at: finished });
    expect(Object.keys(finishSet({ ...failed, status: 'cancelled' }, finished))).not.toContain('failed_at');
    expect(runningSet(started)).toEqual({ status: 'running', started_at: started, updated_at: started });
  });

  it('applies dotted paths into a copy, as the store does, leaving the original alone', () => {
    const before = queued();
    const after = applySet(before.run, { 'run_metadata.nodes': [{ id: 'x' }], status: 'running' });
    expect(after.run_metadata).toEqual({ workflow_version: '1.0.0', nodes: [{ id: 'x' }], trace_id: 't' });
    expect(after.status).toBe('running');
    expect(before.run.run_metadata.nodes).toEqual([]);
    expect(before.run.status).toBe('queued');
  });

  it('rebuilds the record a queued or running run has after its own writes', () => {
    const expected = {
      ...queued().run,
      status: 'completed',
      response_text: 'Hello, Ada!',
      run_metadata: { workflow_version: '1.0.0', nodes: completed.nodes, trace_id: 't' },
      started_at: started,
      updated_at: finished,
      completed_at: finished,
    };
    const writes = { outcome: completed, written: { started_at: started, finished_at: finished } };
    expect(recordAfterWrites(queued(), writes)).toEqual({ run: expected, cancel: null });
    const running = queued({ status: 'running', started_at: started, updated_at: started });
    expect(recordAfterWrites(running, writes)).toEqual({ run: expected, cancel: null });
    const cancel = {
      _id: 'run_1',
      cancel_request_id: 'c',
      cancel_requested_at: created,
      cancel_requested_by_user_id: 'u',
      cancel_reason: null,
    };
    expect(recordAfterWrites({ ...queued(), cancel }, writes)?.cancel).toBe(cancel);
    const failedRun = recordAfterWrites(queued(), {
      outcome: failed,
      written: { started_at: started, finished_at: finished },
    })!.run;
    expect(failedRun).toMatchObject({ status: 'failed', failed_at: finished, completed_at: finished });
  });

  it('refuses to rebuild what someone else may have written', () => {
    const writes = { outcome: completed, written: { started_at: started, finished_at: finished } };
    // A callback changes the record again before the workflow closes.
    expect(
      recordAfterWrites(queued({ callback_url: 'https://example.com/h', callback_status: 'pending' }), writes),
    ).toBeNull();
    // Ended already (e.g. healed as failed): not this workflow's write.
    expect(recordAfterWrites(queued({ status: 'failed' }), writes)).toBeNull();
    // Running since another time than the workflow says it wrote.
    expect(recordAfterWrites(queued({ status: 'running', started_at: created }), writes)).toBeNull();
  });
});

describe('writtenOf: the write times a run workflow closed with', () => {
  const result = {
    ...completed,
    written: { started_at: started.toISOString(), finished_at: finished.toISOString() },
  };

  it('reads a result that carries both times', () => {
    expect(writtenOf(JSON.parse(JSON.stringify(result)))).toEqual({
      outcome: completed,
      written: { started_at: started, finished_at: finished },
    });
  });

  it('is null for results without the times or of another shape', () => {
    expect(writtenOf(completed)).toBeNull();
    expect(writtenOf({ ...result, written: { started_at: started.toISOString() } })).toBeNull();
    expect(
      writtenOf({ ...result, written: { started_at: 'yesterday', finished_at: finished.toISOString() } }),
    ).toBeNull();
    expect(writtenOf({ ...result, status: 'running' })).toBeNull();
    expect(writtenOf({ ...result, nodes: 'none' })).toBeNull();
    expect(writtenOf({ ...result, response_text: 7 })).toBeNull();
    expect(writtenOf('completed')).toBeNull();
    expect(writtenOf(null)).toBeNull();
  });
});
