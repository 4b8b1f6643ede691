import { randomBytes } from 'node:crypto';

// Each test file has its own database and task queues, so files run in parallel on one server.
const tag = `t${process.pid}_${randomBytes(3).toString('hex')}`;
process.env.MONGODB_DB_NAME = tag;
process.env.TEMPORAL_TASK_QUEUE_PREFIX = `${tag}-`;
process.env.LOG_LEVEL ??= 'silent';
// Test files open many sessions from 127.0.0.1; the limits themselves are tested with their own values.
process.env.AUTH_SESSION_LIMIT_PER_CLIENT ??= '10000';
process.env.ACCESS_TOKEN_LIMIT_PER_CLIENT ??= '10000';
process.env.JOB_RESERVE_LIMIT_PER_CLIENT ??= '10000';
// The API runs in the test's own process. When a loaded machine stalls that process for longer
// than the server's 5 s keep-alive (a first schema compile, a workflow bundle), the client reuses
// a pooled socket that the server's overdue idle timer closes a moment later: "fetch failed: other
// side closed". With the server's timeout far beyond any stall, the client always closes first.
// The keep-alive timeout itself is tested with its own value (test/api/edges.test.ts).
process.env.HTTP_KEEP_ALIVE_TIMEOUT_MS ??= '65000';
