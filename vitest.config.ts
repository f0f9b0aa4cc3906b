import { resolve } from 'node:path';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Real servers in real sandboxes: give process start-up room, and keep
    // the two cores of a CI machine from being oversubscribed.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    maxWorkers: 2,
    // People read the default report; CI's summary line reads the JSON one.
    reporters: ['default', ['json', { outputFile: 'test-results/vitest.json' }]],
    alias: {
      // Importing the real `electron` package outside Electron throws; shell code
      // is tested through narrow interfaces, and this stub fails loudly if used.
      electron: resolve(import.meta.dirname, 'test/support/electron-stub.ts'),
    },
  },
});
