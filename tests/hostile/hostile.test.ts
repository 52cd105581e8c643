// The hostile identity service suite: every case of issue 4 against the built app in headless Chromium.
// One browser, one app server and one hostile server for the file; a fresh browser context per variant.
import { afterAll, beforeAll, test } from 'vitest';
import { cases, inputsOf } from './cases';
import { startHarness, type Harness, type Verdict } from './harness';
import type { HostileMeta } from './meta';

let harness: Harness | undefined;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(async () => {
  await harness?.close();
});

function report(id: string, verdicts: Verdict[]): string {
  const bad = verdicts.filter((v) => v.problems.length);
  return [
    `${id}: ${bad.length} of ${verdicts.length} variant(s) ACCEPTED`,
    ...bad.map((v) => [`✗ ${v.variant}`, ...v.problems.map((p) => `   - ${p}`), v.evidence].join('\n')),
  ].join('\n');
}

for (const c of cases) {
  const meta: HostileMeta = { kind: c.control ? 'control' : 'case', inputs: inputsOf(c), judged: 0, accepted: 0 };
  const name = `${c.id}: ${c.title} [${c.variants.map((v) => v.name).join(' | ')}]`;
  test(name, { meta: { hostile: meta } }, async ({ task }) => {
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
