/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' } }] },
  // Pure unit tests may live beside their code (a node kind's, in its folder); the rest is under test/.
  testMatch: ['<rootDir>/test/**/*.test.ts', '<rootDir>/shared/**/*.test.ts'],
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  setupFiles: ['<rootDir>/test/support/per-file-env.ts'],
  testTimeout: 180000,
  maxWorkers: 2,
};
