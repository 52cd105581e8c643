// How long restoring a session after a reload and background renewal take, against the built app and
// the local provider. Prints one line per measure; asserts only that each flow worked.
import { describe, expect, it } from 'vitest';
import { authorizeRequests, tokenRequests } from '../support/flows';
import { readClaims, signIn, useEnv } from '../e2e/helpers';

const RUNS = 5;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

describe('session timings', () => {
  const env = useEnv({ accessTokenTtl: 5 });

  it('restore after reload', async () => {
    const session = await env.open();
    const { page, log } = session;
    await signIn(session, env.stack.app.url, '#/signin?returnTo=/profile');
    await readClaims(page);

    const restores: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const before = authorizeRequests(log).length;
      const started = Date.now();
      await page.reload();
      await page.locator('[data-claim="sub"]').waitFor();
      restores.push(Date.now() - started);
      expect(authorizeRequests(log).length - before).toBe(1);
    }
    console.log(
      `bench: restore after reload: median ${median(restores)} ms over ${RUNS} (${restores.join(', ')} ms), 1 prompt=none round trip each`,
    );
  });

  it('background renewal with 5 s access tokens', async () => {
    const session = await env.open();
    const { page, log } = session;
    await signIn(session, env.stack.app.url, '#/signin?returnTo=/profile');
    await readClaims(page);
    const from = Date.now();
    await expect
      .poll(() => tokenRequests(log, 'refresh_token').filter((e) => e.status === 200).length, { timeout: 60_000 })
      .toBeGreaterThanOrEqual(5);
    await log.settle();
    const answered = tokenRequests(log).filter((e) => e.status === 200);
    const leads = answered.slice(1).map((e, i) => {
      const previous = answered[i];
      const { expires_in } = JSON.parse(previous.body ?? '{}') as { expires_in: number };
      return (previous.responseTime ?? 0) + expires_in * 1000 - e.time;
    });
    console.log(
      `bench: renewal: ${answered.length - 1} refreshes in ${Date.now() - from} ms; ` +
        `sent ${Math.min(...leads)}-${Math.max(...leads)} ms before expiry; no reload, no alert`,
    );
  });
});
