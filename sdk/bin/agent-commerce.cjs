#!/usr/bin/env node
// The SDK is TypeScript run in place (docs/decisions.md, "The agent SDK and CLI"): tsx compiles on load.
require('tsx/cjs/api').register();
const { main } = require('../src/cli/main.ts');

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    console.error(err && err.stack ? err.stack : String(err));
    process.exitCode = 1;
  },
);
