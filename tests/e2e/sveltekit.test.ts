// End-to-end: the SvelteKit example (examples/sveltekit: adapter-static, path routes, the packed
// @pkce-spa/auth) in real Chromium against the local identity provider. It proves the library fits
// SvelteKit's router: the app, not the library, navigates, so no URL ever carries a '#'.
// Needs the example built after `npm run package` (npm test does both; see assertExampleBuilt).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { launchBrowser } from '../support/browser';
import { signInAs, tokenRequests } from '../support/flows';
import { startIdp, type Idp } from '../support/stack';
import { assertExampleBuilt, exampleBuild, serveSite, type Site } from '../support/sveltekit-site';
import { ALICE, newSession, readClaims, type Session } from './helpers';

let site: Site | undefined;
let idp: Idp | undefined;
let browser: Browser | undefined;
const open: Session[] = [];

beforeAll(async () => {
  assertExampleBuilt();
  site = await serveSite();
  idp = await startIdp({ redirectUris: [new URL('callback', site.url).href] });
  site.setConfig({
    server: {
      issuer: idp.issuer,
      authorization_endpoint: `${idp.accountUrl}/connect/authorize`,
      token_endpoint: `${idp.accountUrl}/connect/token`,
      userinfo_endpoint: `${idp.authUrl}/connect/userinfo`,
    },
    clientId: idp.clientId,
    scope: 'openid profile email',
  });
  browser = await launchBrowser();
});

afterEach(async () => {
  for (const session of open.splice(0)) await session.context.close();
});

afterAll(async () => {
  await browser?.close();
  await Promise.allSettled([site?.close(), idp?.close()]);
});

interface Visit extends Session {
  /** Every URL the tab showed, full loads and history changes (pushState, replaceState, '#') alike. */
  urls: string[];
}

async function visit(): Promise<Visit> {
  const session = await newSession(browser!);
  open.push(session);
  const urls: string[] = [];
  session.page.on('framenavigated', (frame) => {
    if (frame === session.page.mainFrame()) urls.push(frame.url());
  });
  return { ...session, urls };
}

const appUrl = (route: string) => new URL(route, site!.url).href;

/** Open /orders?page=2, sign in from there as alice, and wait until the orders show. */
async function signInFromOrders({ page }: Visit): Promise<void> {
  await page.goto(appUrl('/orders?page=2'));
  // Rendered once the app has hydrated and start() found no session; the prerendered page has none.
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await signInAs(page, ALICE.username, ALICE.password, site!.url);
  await page.locator('[data-orders-page]').waitFor();
}

const pageErrors = ({ console }: Visit) => console.filter((entry) => entry.type === 'pageerror');

describe('SvelteKit example with the packed library', () => {
  test('every page was prerendered in Node, where createAuth() and the views using it ran', () => {
    const html = (file: string) => readFileSync(path.join(exampleBuild, file), 'utf8');
    // The loading state: what a view shows before start() ran in the browser.
    expect(html('index.html')).toMatch(/<h1>Start<\/h1>[\s\S]*One moment…/);
    expect(html('orders.html')).toMatch(/<h1>Orders<\/h1>[\s\S]*One moment…/);
    expect(html('callback.html')).toContain('Signing in…');
    // The static host's answer for every path that was not prerendered.
    expect(html('200.html')).toContain('/_app/immutable/');
  });

  test('signing in from /orders?page=2 comes back to /orders?page=2 with the claims', async () => {
    const session = await visit();
    const { page, log, urls } = session;
    await signInFromOrders(session);
    await page.waitForURL(appUrl('/orders?page=2'));

    expect(await readClaims(page)).toEqual({
      sub: expect.stringMatching(/^[\w-]+$/),
      email: ALICE.email,
      name: ALICE.name,
      preferred_username: ALICE.username,
    });
    expect(await page.locator('[data-orders-page]').textContent()).toContain('Page 2');
    expect(tokenRequests(log, 'authorization_code')).toHaveLength(1);
    // The provider's answer arrives at the redirect URI only, and leaves the URL there. (SvelteKit
    // itself replaces the entry once as it starts, with the same URL: hence the set.)
    const withCode = urls.filter((url) => url.startsWith(site!.url) && /[?&]code=/.test(url));
    expect([...new Set(withCode.map((url) => new URL(url).pathname))]).toEqual(['/callback']);
    expect(page.url()).not.toMatch(/[?&](code|state)=/);
    expect(urls.filter((url) => url.includes('#'))).toEqual([]);
    expect(pageErrors(session)).toEqual([]);
  });

  test('signing out shows the signed-out start page', async () => {
    const session = await visit();
    const { page, urls } = session;
    await signInFromOrders(session);

    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.waitForURL(appUrl('/'));
    await page.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
    expect(await page.locator('[data-claim]').count()).toBe(0);
    expect(urls.filter((url) => url.includes('#'))).toEqual([]);
    expect(pageErrors(session)).toEqual([]);
  });

  test('a stale callback shows a notice on the start page and sends no token request', async () => {
    const session = await visit();
    const { page, log, urls } = session;
    await page.goto(appUrl('/callback?code=x&state=y'));

    await page.locator('[data-error-code="unknown_transaction"]').waitFor();
    await page.waitForURL(appUrl('/'));
    await page.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
    expect(page.url()).toBe(appUrl('/'));
    expect(tokenRequests(log)).toEqual([]);
    expect(urls.filter((url) => url.includes('#'))).toEqual([]);
    expect(pageErrors(session)).toEqual([]);
  });
});
