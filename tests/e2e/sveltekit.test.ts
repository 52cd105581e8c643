// End-to-end: the SvelteKit example (examples/sveltekit: adapter-static, path routes, the packed
// @pkce-spa/auth) in real Chromium against the local identity provider. It proves the library fits
// SvelteKit's router: the app, not the library, navigates, so no URL ever carries a '#'; and that a
// `load` using auth.fetch works wherever SvelteKit runs it: hydration, client navigation, a tab that
// adopts another tab's session, and again when someone signs in or out elsewhere.
// Needs the example built after `npm run package` (npm test does both; see assertExampleBuilt).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, test } from 'vitest';
import { joined } from './helpers';
import { answerSignOut, tokenRequests } from '../support/flows';
import { pathAppTests, signInFromOrders, usePathApp } from '../support/path-app';
import { assertExampleBuilt, exampleBuild, serveSite } from '../support/sveltekit-site';

const GREETING = 'The API says: Hello, Alice Liddell!';

/** What the orders page's load put on `page`: the API's answer, or the code of its failure. */
async function loaded(page: Page): Promise<string> {
  const greeting = page.locator('[data-greeting]');
  const failed = page.locator('[data-api-error]');
  await greeting.or(failed).first().waitFor();
  return (await greeting.count())
    ? ((await greeting.textContent()) ?? '')
    : `failed: ${await failed.getAttribute('data-api-error')}`;
}

describe('SvelteKit example with the packed library', () => {
  const app = usePathApp(async () => {
    assertExampleBuilt();
    return serveSite();
  });

  test('every page was prerendered in Node, where createAuth() and the views using it ran', () => {
    const html = (file: string) => readFileSync(path.join(exampleBuild, file), 'utf8');
    // The loading state: what a view shows before start() ran in the browser.
    expect(html('index.html')).toMatch(/<h1>Start<\/h1>[\s\S]*One moment…/);
    expect(html('orders.html')).toMatch(/<h1>Orders<\/h1>[\s\S]*One moment…/);
    expect(html('callback.html')).toContain('Signing in…');
    // The static host's answer for every path that was not prerendered.
    expect(html('200.html')).toContain('/_app/immutable/');
  });

  test("the orders page's load calls the API with auth.fetch after the sign-in and on every client navigation to it", async () => {
    const session = await app.visit();
    const { page, log, console } = session;
    await signInFromOrders(app, page);
    // The callback's goto(returnTo) is a client navigation: the load ran once the session was there.
    expect(await loaded(page)).toBe(GREETING);
    await page.getByRole('link', { name: 'Start' }).click();
    await page.waitForURL(app.appUrl('/'));
    await page.getByRole('link', { name: 'Orders' }).click();
    await page.waitForURL(app.appUrl('/orders'));
    await page.locator('[data-greeting]').waitFor();
    expect(await loaded(page)).toBe(GREETING);
    await log.settle();
    const calls = log.matching('/api/greeting', 'GET');
    expect(calls.map((call) => [call.status, call.headers.authorization?.split(' ')[0]])).toEqual([
      [200, 'Bearer'],
      [200, 'Bearer'],
    ]);
    expect(console.filter((entry) => entry.type === 'pageerror')).toEqual([]);
  });

  test('a tab opened at /orders adopts the session during hydration: its load waits for it, then calls the API once', async () => {
    const session = await app.visit();
    const { page, context, log, console } = session;
    await signInFromOrders(app, page);
    await joined(page);
    await log.settle();
    const calls = log.matching('/api/greeting', 'GET').length;

    const other = await context.newPage();
    // A full page load: SvelteKit hydrates the prerendered page and runs its load before start() has settled.
    await other.goto(app.appUrl('/orders?page=3'));
    expect(await loaded(other)).toBe(GREETING);
    expect(await other.locator('[data-orders-page]').textContent()).toContain('Page 3');
    await log.settle();
    // Adopted: no sign-in of its own; and one API call, not a second one from a load run again.
    expect(tokenRequests(log)).toHaveLength(1);
    expect(log.matching('/api/greeting', 'GET')).toHaveLength(calls + 1);
    expect(await other.locator('[role="alert"]').count()).toBe(0);
    expect(console.filter((entry) => entry.type === 'pageerror')).toEqual([]);
  });

  test('a sign-in in another tab runs the load again; a sign-out there takes its data away', async () => {
    const session = await app.visit();
    const { page, context } = session;
    const waiting = await context.newPage();
    await waiting.goto(app.appUrl('/orders'));
    await waiting.getByRole('button', { name: 'Sign in', exact: true }).waitFor();

    await signInFromOrders(app, page);
    // The waiting tab takes the new session, and its load runs again, now with a token.
    expect(await loaded(waiting)).toBe(GREETING);

    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await waiting.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
    expect(await waiting.locator('[data-greeting]').count()).toBe(0);
    await answerSignOut(page, 'Sign out', app.site.url);
    await page.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
  });

  pathAppTests(app);
});
