// Timings of the session in real Chromium: printed, never asserted (timed tests flake).
// Run after `vite build`: npm run bench:session
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  test: {
    environment: 'node',
    include: ['tests/bench/**/*.bench-e2e.ts'],
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});
