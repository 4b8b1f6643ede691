import { randomBytes } from 'node:crypto';

// Each test file has its own database and task queues, so files run in parallel on one server.
const tag = `t${process.pid}_${randomBytes(3).toString('hex')}`;
process.env.MONGODB_DB_NAME = tag;
process.env.TEMPORAL_TASK_QUEUE_PREFIX = `${tag}-`;
process.env.LOG_LEVEL ??= 'silent';
// Test files open many sessions from 127.0.0.1; the limits themselves are tested with their own values.
process.env.AUTH_SESSION_LIMIT_PER_CLIENT ??= '10000';
process.env.ACCESS_TOKEN_LIMIT_PER_CLIENT ??= '10000';
