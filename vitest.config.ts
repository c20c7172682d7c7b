import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Integration tests start real servers on loopback ports; two cores keep the file pool small.
    maxWorkers: 2,
    setupFiles: ['test/support/setup.ts'],
  },
});
