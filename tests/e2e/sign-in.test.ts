// Issue 2: the main path a person takes, and its first ways to go wrong.
import { describe, expect, it } from 'vitest';
import { appNames } from '../../src/lib/auth/browser/storage';
import { pageState } from '../support/browser';
import { authorizeRequests, consent, login, tokenResponses } from '../support/flows';
import { ALICE, readClaims, routeOf, signIn, useEnv } from './helpers';

describe('sign-in', () => {
  const env = useEnv();

  it('signs in, shows the four claims, signs out; no CSP violation', async () => {
    const session = await env.open();
    const { page, log } = session;
    const appUrl = env.stack.app.url;
    await page.goto(appUrl);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await login(page, ALICE.username, ALICE.password);
    await consent(page, 'Allow');

    const claims = await readClaims(page);
    expect(routeOf(page)).toBe('#/profile');
    await log.settle();
    // The subject is opaque: it must be the one the ID token named.
    const idTokenJwt = tokenResponses(log)[0]?.id_token;
    expect(idTokenJwt, 'the token response carried an ID token').toEqual(expect.any(String));
    const idToken = JSON.parse(Buffer.from(String(idTokenJwt).split('.')[1], 'base64url').toString());
    expect(claims).toEqual({ sub: idToken.sub, email: ALICE.email, name: ALICE.name, preferred_username: ALICE.username });
    expect(claims.sub).toMatch(/^[\w-]+$/);
    expect(session.csp).toEqual([]);

    await page.getByRole('banner').getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
    expect(page.url()).toBe(appUrl + '#/');
    expect(await page.locator('[data-claim]').count()).toBe(0);

    // Signed out stays signed out: no session hint is left (only the non-secret mark that makes the next
    // sign-in ask for an account), and a reload does not quietly sign in.
    expect((await pageState(page)).localStorage).toEqual({
      [appNames(env.stack.idp.issuer, env.stack.idp.clientId).key('hint')]: 'out',
    });
    const authorizeBefore = authorizeRequests(log).length;
    await page.reload();
    await page.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
    expect(authorizeRequests(log)).toHaveLength(authorizeBefore);
    expect(session.csp).toEqual([]);
  });

  it('cancelling a first sign-in at consent shows the cancelled message, "Try again" and "Sign in", and no "Sign out"', async () => {
    const session = await env.open();
    const { page } = session;
    await page.goto(env.stack.app.url);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await login(page, ALICE.username, ALICE.password);
    await consent(page, 'Cancel');

    const alert = page.getByRole('alert');
    await alert.filter({ hasText: /cancelled/i }).waitFor();
    expect(page.url().startsWith(env.stack.app.url)).toBe(true);
    expect(await alert.locator('[data-error-code]').textContent()).toContain('access_denied');
    // The error parameters are gone from the address bar.
    expect(new URL(page.url()).search).toBe('');
    // No one was signed in: the page offers a sign-in, and nothing to sign out of.
    expect(await page.getByRole('main').getByRole('button', { name: 'Sign in', exact: true }).count()).toBe(1);
    expect(await page.getByRole('banner').getByRole('button', { name: 'Sign out' }).count()).toBe(0);

    // "Try again" starts a fresh attempt: a new authorization request with a new state.
    await page.getByRole('button', { name: 'Try again' }).click();
    await page.waitForURL((url) => url.href.startsWith(env.stack.idp.accountUrl));
    const states = authorizeRequests(session.log).map((e) => new URL(e.url).searchParams.get('state'));
    expect(states).toHaveLength(2);
    expect(states[1]).not.toBe(states[0]);
  });

  it('honours an app route in returnTo', async () => {
    const session = await env.open();
    await signIn(session, env.stack.app.url, '#/signin?returnTo=/api');
    await session.page.waitForURL(env.stack.app.url + '#/api');
  });

  it.each(['//evil.example/', 'https://evil.example/', 'javascript:alert(1)'])(
    'ignores an off-origin returnTo: %s',
    async (returnTo) => {
      const session = await env.open();
      const { page, log } = session;
      await signIn(session, env.stack.app.url, '#/signin?returnTo=' + encodeURIComponent(returnTo));
      // Signed in and still on the app: the profile.
      await page.locator('[data-claim="sub"]').waitFor();
      expect(page.url().startsWith(env.stack.app.url)).toBe(true);
      expect(['#/', '#/profile']).toContain(routeOf(page));
      expect(log.entries.filter((e) => e.url.includes('evil.example'))).toEqual([]);
    },
  );
});
