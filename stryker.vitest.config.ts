// The tests of a mutation run (stryker.config.mjs): the auth module's own unit tests, alone. Stryker
// 9.6.1 turns a `testFiles` option into a test filter, under which a static mutant (one that acts as
// its module loads) is switched on after the module loaded and so counts as survived whatever the
// tests do (stryker-js#6144): the tests are chosen here instead.
import { defineConfig } from 'vitest/config';
import app from './vite.config';

export default defineConfig({
  ...app,
  test: {
    pool: 'threads',
    environment: 'happy-dom',
    include: ['src/lib/auth/**/*.test.ts'],
    setupFiles: ['src/test-setup.ts'],
    restoreMocks: true,
  },
});
