// Issue 9: Back after a sign-in is calm. It shows the app's earlier pages or the page before the
// app, shows the session the app's worker keeps (restoring silently at most once), and never bounces between app and provider.
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { RequestLog } from '../support/browser';
import { authorizeRequests, login } from '../support/flows';
import { ALICE, readClaims, signIn, useEnv, type Session } from './helpers';

/** A page that is not the app, where the person was before opening it. */
const BEFORE = 'data:text/html,<title>Before</title><h1>Before the app</h1>';

/** Silent restores and profile reads since entry `from` of the log. */
function restoresSince(log: RequestLog, from: number) {
  const since = { entries: log.entries.slice(from) } as RequestLog;
  return {
    silent: authorizeRequests(since).filter((e) => new URL(e.url).searchParams.get('prompt') === 'none').length,
    authorize: authorizeRequests(since).length,
    userinfo: since.entries.filter((e) => e.url.includes('/connect/userinfo') && e.method === 'GET').length,
  };
}

/** The app has settled on a page: signed in (greeting, profile, API answer) or signed out (its Sign in). */
async function appSettled(page: Page): Promise<void> {
  await page
    .getByRole('heading', { name: `Hello, ${ALICE.name}` })
    .or(page.locator('[data-claim="sub"]'))
    .or(page.getByTestId('api-result'))
    .or(page.getByRole('main').getByRole('button', { name: 'Sign in', exact: true }))
    .or(page.getByRole('alert'))
    .first()
    .waitFor();
}

/** Presses Back and waits until the page it lands on has settled; returns where it landed. */
async function back(page: Page, appUrl: string): Promise<string> {
  await page.goBack();
  if (page.url().startsWith(appUrl)) await appSettled(page);
  else await page.locator('h1').first().waitFor();
  return page.url();
}

/** The provider's cookies of a context where alice signed in: "already signed in at the provider". */
async function providerSessionOf(session: Session, accountUrl: string) {
  const cookies = await session.context.cookies(accountUrl);
  expect(cookies.length).toBeGreaterThan(0);
  return cookies;
}

describe('Back button', () => {
  const env = useEnv();

  it('three Backs after a sign-in show the API page, the start page, then the page before the app: one silent restore at most', async () => {
    const { app, idp } = env.stack;
    const first = await env.open();
    await signIn(first, app.url);
    await readClaims(first.page);
    const session = await env.open();
    await session.context.addCookies(await providerSessionOf(first, idp.accountUrl));
    const { page, log } = session;

    await page.goto(BEFORE);
    await page.goto(app.url);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    // The provider knows alice already: straight back to the app, signed in.
    await readClaims(page);
    const nav = page.getByRole('navigation', { name: 'Main' });
    await nav.getByRole('link', { name: 'API', exact: true }).click();
    await page.getByTestId('api-result').waitFor();
    await nav.getByRole('link', { name: 'Sign-in demo', exact: true }).click();
    await readClaims(page);
    const mark = log.entries.length;

    const landings = [await back(page, app.url), await back(page, app.url), await back(page, app.url)];
    expect(landings.map((url) => (url.startsWith(app.url) ? new URL(url).hash : url))).toEqual([
      '#/api',
      '#/profile',
      expect.stringMatching(/^(#\/)?$/),
    ]);
    expect(await page.getByRole('alert').count()).toBe(0);
    await log.settle();
    const counted = restoresSince(log, mark);
    expect(counted.authorize, JSON.stringify(counted)).toBeLessThanOrEqual(1);
    expect(counted.silent).toBe(counted.authorize);
    expect(counted.userinfo).toBeLessThanOrEqual(1);

    // The restore replaced its history entry: one more Back leaves the app.
    expect(await back(page, app.url)).toBe(BEFORE);
  });

  it("three Backs after an interactive sign-in pass the provider's finished steps without a new sign-in, then show the kept session", async () => {
    const { app, idp } = env.stack;
    const session = await env.open();
    const { page, log } = session;
    await page.goto(BEFORE);
    await signIn(session, app.url);
    await readClaims(page);
    const mark = log.entries.length;

    // Login and consent each left an entry at the provider. Those steps are finished: Back shows
    // that, and neither asks for the password again nor sends the browser anywhere.
    const landings = [await back(page, app.url), await back(page, app.url), await back(page, app.url)];
    expect(landings.map((url) => new URL(url).origin)).toEqual([idp.accountUrl, idp.accountUrl, new URL(app.url).origin]);
    expect(new URL(landings[2]).hash).toMatch(/^(#\/)?$/);
    await page.getByRole('heading', { name: `Hello, ${ALICE.name}` }).waitFor();
    expect(await page.getByRole('alert').count()).toBe(0);
    await log.settle();
    const counted = restoresSince(log, mark);
    // The app's shared worker still holds the session: the app shows it without asking the provider.
    expect(counted, JSON.stringify(counted)).toEqual({ silent: 0, authorize: 0, userinfo: 0 });
    expect(log.entries.slice(mark).filter((e) => e.url.includes('/interaction/') && e.method === 'POST')).toEqual([]);

    expect(await back(page, app.url)).toBe(BEFORE);
  });

  it('Back all the way out past two earlier app pages (sign in, sign out, sign in again) restores at most once', async () => {
    const { app } = env.stack;
    const session = await env.open();
    const { page, log } = session;
    await page.goto(BEFORE);
    await signIn(session, app.url);
    await readClaims(page);
    await page.getByRole('banner').getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('main').getByRole('button', { name: 'Sign in', exact: true }).click();
    await login(page, ALICE.username, ALICE.password);
    await readClaims(page);
    const mark = log.entries.length;

    const landings: string[] = [];
    while (landings.at(-1) !== BEFORE) {
      expect(landings.length, `Back never left the app: ${landings.join(' -> ')}`).toBeLessThan(10);
      landings.push(await back(page, app.url));
    }
    await log.settle();
    const counted = restoresSince(log, mark);
    expect(counted.authorize, `${JSON.stringify(counted)} via ${landings.join(' -> ')}`).toBeLessThanOrEqual(1);
    expect(counted.silent).toBe(counted.authorize);
    expect(counted.userinfo).toBeLessThanOrEqual(1);
    expect(log.entries.slice(mark).filter((e) => e.url.includes('/interaction/') && e.method === 'POST')).toEqual([]);
  });

  it('a link to #/signin goes to the provider; Back from its login page lands on the app with a Sign in button, and nothing starts again', async () => {
    const { app, idp } = env.stack;
    const session = await env.open();
    const { page, log } = session;
    await page.goto(BEFORE);
    await page.goto(app.url + '#/signin?returnTo=/profile');
    await page.getByLabel('Username').waitFor();
    const authorizations = authorizeRequests(log).length;

    await page.goBack();
    await page.waitForURL((url) => url.href.startsWith(app.url));
    await page.getByRole('main').getByRole('button', { name: 'Sign in', exact: true }).waitFor();
    expect(new URL(page.url()).hash).toBe('#/');
    // Nothing sends the person to the provider again by itself.
    const again = await page
      .waitForRequest((request) => request.url().startsWith(idp.accountUrl + '/connect/authorize'), { timeout: 3000 })
      .catch(() => undefined);
    expect(again?.url()).toBeUndefined();
    expect(authorizeRequests(log)).toHaveLength(authorizations);

    // The sign-in page gave its entry to the start page: one more Back leaves the app, not for the provider.
    expect(await back(page, app.url)).toBe(BEFORE);
    expect(authorizeRequests(log)).toHaveLength(authorizations);
  });
});
