// Issue 21: one tab meets an API that refuses every token, the freshly renewed one too. The tabs
// relayed a session once, and the renewing tab's end stranded the others; now the app's shared worker
// holds the one session: it ends for every tab, each saying so, and nothing renews it afterwards.
import type { Page } from 'playwright-core';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { RecordedRequest } from '../support/browser';
import { formOf } from '../support/flows';
import { startRefusingApi } from '../support/refusing-api';
import { joined, readClaims, signIn, useEnv } from './helpers';

/** Short enough for several lifetimes in one test, long enough for three tabs on a slow machine (as tabs.test). */
const ACCESS_TOKEN_TTL_S = 6;
/** How long nothing may renew the ended session, in token lifetimes (one renewal per lifetime while it lived). */
const LIFETIMES = 1.5;

/** Refresh-token grants (RFC 6749 §6) among `entries`. */
const refreshGrants = (entries: RecordedRequest[]) =>
  entries.filter((e) => e.method === 'POST' && e.url.includes('/connect/token') && formOf(e).grant_type === 'refresh_token');

describe('tabs share one session when a tab meets an API that refuses every token', () => {
  const env = useEnv({ accessTokenTtl: ACCESS_TOKEN_TTL_S });

  it('the session ends in every tab, each says so, and nothing renews it afterwards', async () => {
    const { app, config } = env.stack;
    const api = await startRefusingApi(new URL(app.url).origin);
    onTestFinished(() => api.close());
    // The #/api page calls the refusing API with the session's access token.
    const apiOrigins = [...(config.apiOrigins as string[]), api.origin];
    app.setConfig({ ...config, apiOrigins, apiUrl: api.url + 'greeting' });
    onTestFinished(() => app.setConfig(config));

    const session = await env.open();
    const { page: holder, log, context } = session;
    await signIn(session, app.url, '#/signin?returnTo=/profile');
    const claims = await readClaims(holder);
    await joined(holder);
    const followers: Page[] = [];
    for (let i = 0; i < 2; i++) {
      const tab = await context.newPage();
      await tab.goto(app.url + '#/profile');
      expect(await readClaims(tab)).toEqual(claims);
      followers.push(tab);
    }

    // Only the first tab calls the API. It is refused, with the renewed token too: the session ends.
    await holder.getByRole('banner').getByRole('link', { name: 'API' }).click();
    await holder.getByRole('alert').filter({ hasText: 'Your session has expired.' }).first().waitFor();
    await holder.getByRole('button', { name: 'Sign in again' }).first().waitFor();
    const endedAt = Date.now();
    expect(await holder.locator('[data-claim]').count()).toBe(0);
    const calls = api.requests.filter((r) => r.method === 'GET');
    expect(calls.length).toBeGreaterThanOrEqual(1);
    for (const call of calls) expect(call.authorization).toMatch(/^Bearer \S+$/);

    // One session per browser: the app's worker ended it for every tab, and each says so at once, with
    // no claims left on screen and no tab stuck on a session that no longer renews.
    for (const tab of followers) {
      await tab.getByRole('alert').filter({ hasText: 'Your session has expired.' }).first().waitFor();
      expect(await tab.locator('[data-claim]').count()).toBe(0);
    }
    // Nothing renews the ended session: a lifetime and a half later, no refresh-token grant was sent since.
    await expect
      .poll(() => (Date.now() - endedAt) / (ACCESS_TOKEN_TTL_S * 1000), { timeout: 20_000, interval: 250 })
      .toBeGreaterThan(LIFETIMES);
    expect(refreshGrants(log.entries).filter((e) => e.time > endedAt)).toEqual([]);
    // Every grant of the session was answered: one refresh token, rotated in turn.
    expect(refreshGrants(log.entries).filter((e) => e.status !== undefined && e.status !== 200)).toEqual([]);
  });
});
