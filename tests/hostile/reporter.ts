// Prints the suite's one-line verdict after vitest's own summary, so it is the last line of `npm test`.
import type { Reporter, TestModule } from 'vitest/node';
import type { HostileMeta } from './meta';

export default class HostileSummary implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    let cases = 0;
    let inputs = 0;
    let accepted = 0;
    let controls = 0;
    let controlsPassed = 0;
    for (const module of modules) {
      for (const test of module.children.allTests()) {
        const meta = test.meta().hostile as HostileMeta | undefined;
        const state = test.result().state;
        if (!meta || state === 'skipped' || state === 'pending') continue; // filtered out with -t
        const passed = state === 'passed';
        if (meta.kind === 'control') {
          controls++;
          if (passed) controlsPassed++;
          continue;
        }
        cases++;
        inputs += meta.inputs;
        // A case that failed before judging all its variants cannot vouch for the rest: count them too.
        if (!passed) accepted += Math.max(meta.accepted, 1) + Math.max(0, meta.inputs - meta.judged);
      }
    }
    process.stdout.write(
      `hostile: ${cases} cases, ${inputs} bad inputs, ${accepted} accepted; controls ${controlsPassed}/${controls} passed\n`,
    );
  }
}
