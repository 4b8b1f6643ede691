import type { ActivityInterceptorsFactory, Logger as SdkLogger, LogLevel, LogMetadata } from '@temporalio/worker';
import { logger, withLogContext } from '../shared/platform/logger/index';

/** Our own code inside an activity logs through winston; this gives those lines the workflow id. */
export const activityLogContext: ActivityInterceptorsFactory = (ctx) => ({
  inbound: {
    execute: (input, next) =>
      withLogContext(
        { workflowId: ctx.info.workflowExecution?.workflowId, runId: ctx.info.workflowExecution?.runId },
        () => next(input),
      ),
  },
});

const LEVELS: Record<LogLevel, string> = { TRACE: 'debug', DEBUG: 'debug', INFO: 'info', WARN: 'warn', ERROR: 'error' };

/** The SDK's logger (activity `log`, worker lifecycle) written as our JSON lines, ids in snake_case. */
export const sdkLogger: SdkLogger = {
  log: (level: LogLevel, message: string, meta?: LogMetadata) => {
    if (!logger.isLevelEnabled(LEVELS[level])) return;
    const { workflowId, runId, activityId, activityType, taskQueue, ...rest } = (meta ?? {}) as Record<string, unknown>;
    logger.log(LEVELS[level], message, {
      ...(workflowId ? { workflow_id: workflowId, run_id: runId } : {}),
      ...(activityId ? { activity_id: activityId, activity_type: activityType } : {}),
      ...(taskQueue ? { task_queue: taskQueue } : {}),
      ...rest,
    });
  },
  trace: (m, meta) => sdkLogger.log('TRACE', m, meta),
  debug: (m, meta) => sdkLogger.log('DEBUG', m, meta),
  info: (m, meta) => sdkLogger.log('INFO', m, meta),
  warn: (m, meta) => sdkLogger.log('WARN', m, meta),
  error: (m, meta) => sdkLogger.log('ERROR', m, meta),
};
