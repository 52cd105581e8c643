// Mutation testing of the auth module's session engine and its hosts (`npm run mutation`, not part of
// `npm test`): every mutant of these files must be killed by the module's unit tests (docs/testing.md).
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  plugins: ['@stryker-mutator/vitest-runner'],
  mutate: [
    'src/lib/auth/session/*.ts',
    '!src/lib/auth/session/*.test.ts',
    'src/lib/auth/host/*.ts',
    '!src/lib/auth/host/*.test.ts',
    // The worker's script only calls serveWorker with the browser's globals: nothing a unit test can run.
    '!src/lib/auth/host/worker.ts',
    // The options' checks, and the worker's name a page opens it by (workerName): the hosts' too.
    'src/lib/auth/options.ts',
  ],
  // The module's own unit tests, all of them (stryker.vitest.config.ts, not `testFiles`: see there): the
  // engine and its hosts are also driven through the public API (auth.test.ts, page/*.test.ts,
  // svelte/*.test.ts), never through the app's.
  vitest: { related: false, configFile: 'stryker.vitest.config.ts' },
  coverageAnalysis: 'perTest',
  // The machine's two CPUs are shared; one test run per CPU.
  concurrency: 2,
  timeoutMS: 10_000,
  ignorePatterns: ['dist', 'package', 'coverage', 'examples', 'tests', 'idp', 'reports'],
  tempDirName: '.stryker-tmp',
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  // Later runs re-test only the mutants whose code or tests changed.
  incremental: true,
  incrementalFile: 'reports/mutation/incremental.json',
  thresholds: { high: 95, low: 90, break: 90 },
};
