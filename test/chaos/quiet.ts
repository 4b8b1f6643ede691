// The harness's own store connection logs as the service does; its chatter is not the soak's output.
process.env.LOG_LEVEL ??= 'error';
