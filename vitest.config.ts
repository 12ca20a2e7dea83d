import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/support/setup.ts'],
    // A temporary root per run (TMPDIR for workers and everything they spawn), removed at the end; fails the run
    // if agentd-* folders leaked into the real TMPDIR.
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Process-edge and SDK tests spawn daemons; two workers match the 2-core CI machine.
    maxWorkers: 2,
  },
});
