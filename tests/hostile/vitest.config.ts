// The hostile identity service suite. Run after `vite build`:
//   npx vitest run --config tests/hostile/vitest.config.ts
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  test: {
    environment: 'node',
    include: ['tests/hostile/**/*.test.ts'],
    // A case runs its variants in turn, some waiting out the app's 3 s timeout.
    testTimeout: 300_000,
    hookTimeout: 60_000,
    // Two files, each with its own browser and servers, side by side: a variant mostly waits on the
    // network and the page. Tests within a file run one at a time.
    fileParallelism: true,
    maxWorkers: 2,
    reporters: ['default', './tests/hostile/reporter.ts'],
  },
});
