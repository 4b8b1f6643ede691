import { randomBytes } from 'node:crypto';

// Each test file has its own database and task queues, so files run in parallel on one server.
const tag = `t${process.pid}_${randomBytes(3).toString('hex')}`;
process.env.MONGODB_DB_NAME = tag;
process.env.TEMPORAL_TASK_QUEUE_PREFIX = `${tag}-`;
process.env.LOG_LEVEL ??= 'silent';
