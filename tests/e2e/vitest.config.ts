// End-to-end tests: real Chromium against the built app and the local identity provider.
// Run after `vite build`: npx vitest run --config tests/e2e/vitest.config.ts
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  test: {
    environment: 'node',
    include: ['tests/e2e/**/*.test.ts'],
    // Browser flows include real redirects and token lifetimes of a few seconds.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Each file runs its own browser, app server and provider: three files side by side, as most of a
    // file's time is spent waiting on token lifetimes, redirects and the network, not on a CPU (in CI the
    // whole run keeps about one of the two CPUs busy).
    fileParallelism: true,
    maxWorkers: 3,
  },
});
