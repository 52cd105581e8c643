// Issue 22, offline and sleep: a session whose renewal cannot reach the provider is kept, past its
// expiry, and renewed by itself once the network returns; a page frozen past expiry (a background tab,
// a sleeping laptop) renews as it resumes, before an API call can fail. 5-second tokens.
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { tokenRequests } from '../support/flows';
import { setOffline, type RequestLog } from '../support/browser';
import { readClaims, routeOf, signIn, useEnv, type Session } from './helpers';

const OFFLINE = 'Offline — your session is kept; reconnecting…';

/** When the access token of the last answered token request runs out, by the browser's clock. */
function expiryOf(log: RequestLog): number {
  const answered = tokenRequests(log).filter((e) => e.status === 200);
  const last = answered.at(-1)!;
  const { expires_in } = JSON.parse(last.body ?? '{}') as { expires_in: number };
  return (last.responseTime ?? last.time) + expires_in * 1000;
}

/** Waits, on the clock, until `at` has passed by a margin: the token is then surely expired. */
async function until(at: number) {
  await expect.poll(() => Date.now(), { timeout: 30_000, interval: 250 }).toBeGreaterThan(at + 1_000);
}

/** Calls the demo API from its page: the answer the view shows. */
async function callApi(page: Page) {
  await page.evaluate(() => (location.hash = '#/api'));
  await page.getByTestId('api-result').or(page.getByRole('alert')).first().waitFor({ timeout: 15_000 });
}

const alerts = (page: Page) => page.getByRole('alert').filter({ visible: true });

describe('offline and sleep', () => {
  const env = useEnv({ accessTokenTtl: 5 });

  async function signedIn(): Promise<Session & { claims: Record<string, string> }> {
    const session = await env.open();
    await signIn(session, env.stack.app.url);
    const claims = await readClaims(session.page);
    await session.log.settle();
    return { ...session, claims };
  }

  it('offline across expiry and back: the person stays, the status says offline; back online, renewed within seconds and the API works', async () => {
    const { page, context, log, claims } = await signedIn();
    const status = page.getByRole('status').filter({ hasText: OFFLINE });
    // The pages and the app's shared worker, which renews.
    await setOffline(context, true);
    await status.waitFor({ timeout: 15_000 });
    await log.settle();
    await until(expiryOf(log));

    // Past the expiry: still signed in, the person's claims on screen, no alert, Sign out and no Sign in.
    expect(await readClaims(page)).toEqual(claims);
    expect(await alerts(page).count()).toBe(0);
    expect(await status.isVisible()).toBe(true);
    const banner = page.getByRole('banner');
    expect(await banner.getByRole('button', { name: 'Sign out' }).count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Sign in', exact: true }).count()).toBe(0);

    const renewals = () => tokenRequests(log, 'refresh_token').filter((e) => e.status === 200).length;
    const before = renewals();
    const online = Date.now();
    await setOffline(context, false);
    await expect.poll(renewals, { timeout: 5_000 }).toBe(before + 1);
    const renewedAt = tokenRequests(log, 'refresh_token').at(-1)!.time;
    expect(renewedAt - online, 'renewed within a few seconds of the network').toBeLessThan(3_000);
    await status.waitFor({ state: 'detached', timeout: 5_000 });
    expect(await alerts(page).count()).toBe(0);
    expect(await readClaims(page)).toEqual(claims);

    await callApi(page);
    expect(await alerts(page).count()).toBe(0);
    expect(await page.getByTestId('api-result').textContent()).toContain(claims.sub);
    expect(routeOf(page)).toBe('#/api');
  });

  it('a page frozen past expiry and resumed renews before its first API call, which works', async () => {
    const { page, context, log, claims } = await signedIn();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Page.setWebLifecycleState', { state: 'frozen' });
    await until(expiryOf(log));
    const renewalsBefore = tokenRequests(log, 'refresh_token').length;
    const resumedAt = Date.now();
    await cdp.send('Page.setWebLifecycleState', { state: 'active' });
    await callApi(page);

    await log.settle();
    const api = log.matching('/api/greeting').filter((e) => e.time >= resumedAt);
    const renewal = tokenRequests(log, 'refresh_token').slice(renewalsBefore);
    expect(renewal.length, 'a renewal after the page resumed').toBeGreaterThanOrEqual(1);
    expect(renewal[0].status).toBe(200);
    // The API saw only the renewed token: its first request after the freeze came after the renewal and was answered.
    expect(api[0].time).toBeGreaterThanOrEqual(renewal[0].responseTime!);
    expect(api.map((e) => e.status)).toEqual([200]);
    expect(await alerts(page).count()).toBe(0);
    expect(await page.getByTestId('api-result').textContent()).toContain(claims.sub);
  });
});
