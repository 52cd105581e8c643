// The tests of a mutation run (stryker.config.mjs): the app's unit project (vite.config.ts), narrowed
// to the auth module's own tests. Stryker 9.6.1 turns a `testFiles` option into a test filter, under
// which a static mutant (one that acts as its module loads) is switched on after the module loaded and
// so counts as survived whatever the tests do (stryker-js#6144): the tests are chosen here instead.
import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';
import app from './vite.config';

const unit = app.test?.projects?.find(
  (project): project is TestProjectInlineConfiguration =>
    typeof project === 'object' && 'test' in project && project.test?.name === 'unit',
);
if (!unit?.test) throw new Error("vite.config.ts has no 'unit' test project");

export default defineConfig({
  ...app,
  test: { pool: app.test?.pool, ...unit.test, include: ['src/lib/auth/**/*.test.ts'] },
});
