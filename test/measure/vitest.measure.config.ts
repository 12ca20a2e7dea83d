import { defineConfig } from 'vitest/config';
export default defineConfig({ test: { include: ['test/measure/*.measure.ts'], testTimeout: 120000, pool: 'forks', maxWorkers: 1, fileParallelism: false } });
