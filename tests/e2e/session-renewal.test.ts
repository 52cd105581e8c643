// Issue 3: with 5-second access tokens the session renews in the background, unnoticed; issue 23: when
// it cannot, its end is said (issue 22: not for the network, which leaves it offline, but for a refusal).
import { describe, expect, it } from 'vitest';
import { setOffline } from '../support/browser';
import { formOf, tokenRequests } from '../support/flows';
import { readClaims, routeOf, signIn, useEnv } from './helpers';

describe('session renewal', () => {
  const env = useEnv({ accessTokenTtl: 5 });

  it('renews with rotating refresh tokens while the profile stays on screen', async () => {
    const session = await env.open();
    const { page, log } = session;
    await signIn(session, env.stack.app.url);
    const claims = await readClaims(page);
    const navigationsBefore = log.entries.filter((e) => e.isNavigation).length;

    // Two renewals: the second must use the refresh token the first one returned.
    await expect
      .poll(() => tokenRequests(log, 'refresh_token').filter((e) => e.status === 200).length, { timeout: 40_000 })
      .toBeGreaterThanOrEqual(2);
    await log.settle();

    // Each renewal sends the refresh token of the answer before it, never an older one.
    const answered = tokenRequests(log).filter((e) => e.status === 200);
    expect(answered.slice(1).every((e) => formOf(e).grant_type === 'refresh_token')).toBe(true);
    for (let i = 1; i < answered.length; i++) {
      const previous = JSON.parse(answered[i - 1].body ?? '{}') as { refresh_token?: string };
      expect(formOf(answered[i]).refresh_token, `refresh #${i}`).toBe(previous.refresh_token);
    }
    const used = tokenRequests(log, 'refresh_token').map((e) => formOf(e).refresh_token);
    expect(new Set(used).size, 'a rotated refresh token was reused').toBe(used.length);

    // Unnoticed: no page load, no redirect, no alert, same route and claims.
    expect(log.entries.filter((e) => e.isNavigation).length).toBe(navigationsBefore);
    expect(await page.getByRole('alert').filter({ visible: true }).count()).toBe(0);
    expect(routeOf(page)).toBe('#/profile');
    expect(await readClaims(page)).toEqual(claims);

    // Renewal is scheduled before the access token runs out, not after (a 5 s token is not absurd).
    for (let i = 1; i < answered.length; i++) {
      const { expires_in } = JSON.parse(answered[i - 1].body ?? '{}') as { expires_in: number };
      const expiresBy = (answered[i - 1].responseTime ?? 0) + expires_in * 1000;
      expect(answered[i].time, `refresh #${i} sent ${answered[i].time - expiresBy} ms after expiry`).toBeLessThan(expiresBy);
    }
  });

  it('offline, the session is kept; back online with a refresh token the provider refused meanwhile: "Sign in again", and Sign out beside it', async () => {
    const session = await env.open();
    const { page, context, log } = session;
    await signIn(session, env.stack.app.url);
    await readClaims(page);
    // The app has loaded what it shows lazily (its session notices among them) before the network goes.
    await page.waitForLoadState('networkidle');
    // The pages and the app's shared worker, which renews.
    await setOffline(context, true);
    // The renewal cannot reach the provider: the session stays, offline (offline.test.ts has the rest).
    await page.getByRole('status').filter({ hasText: 'Offline' }).waitFor({ timeout: 20_000 });
    // The refresh token the worker holds: the last one answered before the network went.
    await log.settle();
    const { refresh_token } = JSON.parse(tokenRequests(log).findLast((e) => e.status === 200)!.body ?? '{}') as {
      refresh_token: string;
    };
    // Meanwhile the refresh token is revoked (RFC 7009), as a provider does at its own sign-out or an admin's.
    const { accountUrl, clientId } = env.stack.idp;
    const revoked = await fetch(`${accountUrl}/connect/revocation`, {
      method: 'POST',
      body: new URLSearchParams({ token: refresh_token, token_type_hint: 'refresh_token', client_id: clientId }),
    });
    expect(revoked.status).toBe(200);
    await setOffline(context, false);
    // Back online the renewal is refused (invalid_grant): the session ends, and says so.
    const alert = page.getByRole('alert').filter({ hasText: 'Your session has expired.' });
    await alert.waitFor({ timeout: 20_000 });
    expect(await alert.getByRole('button', { name: 'Sign in again' }).count()).toBe(1);
    expect(await page.getByRole('banner').getByRole('button', { name: 'Sign out' }).count()).toBe(1);
    expect(await page.locator('[data-claim]').count()).toBe(0);
  });
});
