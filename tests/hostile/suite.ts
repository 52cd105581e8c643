// The hostile identity service suite: every case of issue 4 against the built app in headless Chromium.
// Each test file runs a share of the cases with a browser, an app server and a hostile server of its
// own (a fresh browser context per variant), so the files can run side by side: a variant spends most
// of its time waiting on the network and the page, not on a CPU.
import { afterAll, beforeAll, test } from 'vitest';
import { inputsOf, type Case } from './cases';
import { startHarness, type Harness, type Verdict } from './harness';
import type { HostileMeta } from './meta';

function report(id: string, verdicts: Verdict[]): string {
  const bad = verdicts.filter((v) => v.problems.length);
  return [
    `${id}: ${bad.length} of ${verdicts.length} variant(s) ACCEPTED`,
    ...bad.map((v) => [`✗ ${v.variant}`, ...v.problems.map((p) => `   - ${p}`), v.evidence].join('\n')),
  ].join('\n');
}

/** Declares a test per case, run against one harness started for the calling file. */
export function hostileSuite(cases: Case[]): void {
  let harness: Harness | undefined;
  beforeAll(async () => {
    harness = await startHarness();
  });
  afterAll(async () => {
    await harness?.close();
  });
  for (const c of cases) defineCase(c, () => harness);
}

function defineCase(c: Case, harnessOf: () => Harness | undefined): void {
  const meta: HostileMeta = { kind: c.control ? 'control' : 'case', inputs: inputsOf(c), judged: 0, accepted: 0 };
  const name = `${c.id}: ${c.title} [${c.variants.map((v) => v.name).join(' | ')}]`;
  test(name, { meta: { hostile: meta } }, async ({ task }) => {
    const harness = harnessOf();
    if (!harness) throw new Error('the harness did not start');
    const m = (task.meta.hostile ??= meta);
    const verdicts: Verdict[] = [];
    for (const variant of c.variants) {
      const verdict = await harness.run(variant, c.expect);
      verdicts.push(verdict);
      // HOSTILE_VERBOSE=1 prints every verdict as it is reached, passing or not.
      if (process.env.HOSTILE_VERBOSE)
        console.log(
          `${c.id} / ${verdict.variant}: ${verdict.ms} ms, ${verdict.problems.length ? verdict.problems.join('; ') : 'safe'}`,
        );
      m.judged++;
      if (verdict.problems.length) m.accepted++;
    }
    if (verdicts.some((v) => v.problems.length)) throw new Error(report(c.id, verdicts));
  });
}
