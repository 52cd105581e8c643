// The checks every path-routed app embedding the packed library must pass, whatever its framework (the
// SvelteKit example, a plain Vite app): sign-in returns to the page it started from, sign-out comes
// back to the start page (the apps' postLogoutRedirectUri), and a stale callback. The library completes
// the callback and hands back `returnTo`; the app navigates, so no URL ever carries a '#'. Each app
// provides /, /orders (`[data-orders-page]`) and /callback, and reads its settings from /config.json.
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect, test } from 'vitest';
import { ALICE, closeSessions, newSession, readClaims, type Session } from '../e2e/helpers';
import { launchBrowser } from './browser';
import { answerSignOut, endSessionRequests, signInAs, tokenRequests } from './flows';
import { startIdp, type Idp } from './stack';
import type { Site } from './sveltekit-site';

export interface Visit extends Session {
  /** Every URL the tab showed, full loads and history changes (pushState, replaceState, '#') alike. */
  urls: string[];
}

export interface PathApp {
  readonly site: Site;
  /** A fresh browser context that records every URL its page shows. */
  visit(): Promise<Visit>;
  appUrl(route: string): string;
}

/** Serves the app (`serve`), starts the local provider with its /callback and a browser, for the file's tests. */
export function usePathApp(serve: () => Promise<Site>): PathApp {
  let site: Site | undefined;
  let idp: Idp | undefined;
  let browser: Browser | undefined;
  const open: Session[] = [];

  beforeAll(async () => {
    site = await serve();
    // The start page is where a sign-out comes back to, and no redirect URI.
    idp = await startIdp({ redirectUris: [new URL('callback', site.url).href], postLogoutRedirectUris: [site.url] });
    site.setConfig({
      server: {
        issuer: idp.issuer,
        authorization_endpoint: `${idp.accountUrl}/connect/authorize`,
        token_endpoint: `${idp.accountUrl}/connect/token`,
        userinfo_endpoint: `${idp.authUrl}/connect/userinfo`,
        end_session_endpoint: `${idp.accountUrl}/connect/endsession`,
        revocation_endpoint: `${idp.accountUrl}/connect/revocation`,
      },
      clientId: idp.clientId,
      // service.api: the demo API's greeting, which the SvelteKit example's orders page loads.
      scope: 'openid profile email service.api',
      apiUrl: `${idp.apiUrl}/api/greeting`,
    });
    browser = await launchBrowser();
  });

  afterEach((context) => closeSessions(open, context));

  afterAll(async () => {
    await browser?.close();
    await Promise.allSettled([site?.close(), idp?.close()]);
  });

  return {
    get site() {
      return site!;
    },
    async visit() {
      const session = await newSession(browser!);
      open.push(session);
      const urls: string[] = [];
      session.page.on('framenavigated', (frame) => {
        if (frame === session.page.mainFrame()) urls.push(frame.url());
      });
      return { ...session, urls };
    },
    appUrl: (route) => new URL(route, site!.url).href,
  };
}

const pageErrors = ({ console }: Visit) => console.filter((entry) => entry.type === 'pageerror');
const withHash = ({ urls }: Visit) => urls.filter((url) => url.includes('#'));

/** Open /orders?page=2 in `page`, sign in from there as alice, and wait until the orders show. */
export async function signInFromOrders(app: PathApp, page: Page): Promise<void> {
  await page.goto(app.appUrl('/orders?page=2'));
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await signInAs(page, ALICE.username, ALICE.password, app.site.url);
  await page.locator('[data-orders-page]').waitFor();
}

/** Registers the three checks, in the calling describe(). */
export function pathAppTests(app: PathApp): void {
  test('signing in from /orders?page=2 comes back to /orders?page=2 with the claims', async () => {
    const session = await app.visit();
    const { page, log, urls } = session;
    await signInFromOrders(app, page);
    await page.waitForURL(app.appUrl('/orders?page=2'));

    expect(await readClaims(page)).toEqual({
      sub: expect.stringMatching(/^[\w-]+$/),
      email: ALICE.email,
      name: ALICE.name,
      preferred_username: ALICE.username,
    });
    expect(await page.locator('[data-orders-page]').textContent()).toContain('Page 2');
    expect(tokenRequests(log, 'authorization_code')).toHaveLength(1);
    // The provider's answer arrives at the redirect URI only, and leaves the URL there. (A framework
    // may replace the entry once as it starts, with the same URL: hence the set.)
    const withCode = urls.filter((url) => url.startsWith(app.site.url) && /[?&]code=/.test(url));
    expect([...new Set(withCode.map((url) => new URL(url).pathname))]).toEqual(['/callback']);
    expect(page.url()).not.toMatch(/[?&](code|state)=/);
    expect(withHash(session)).toEqual([]);
    expect(pageErrors(session)).toEqual([]);
  });

  test('signing out ends the provider session and comes back to the signed-out start page, never to /callback', async () => {
    const session = await app.visit();
    const { page, log, urls } = session;
    await signInFromOrders(app, page);
    const before = urls.length;

    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await answerSignOut(page, 'Sign out', app.site.url);
    await page.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
    // The return's state is taken and leaves the URL: the start page, as the app's links name it.
    await page.waitForURL(app.appUrl('/'));
    expect(await page.locator('[data-claim]').count()).toBe(0);
    // The state was this tab's: no unknown_signout notice.
    expect(await page.locator('[role="alert"]').count()).toBe(0);

    await log.settle();
    const [end, ...more] = endSessionRequests(log);
    expect(more).toEqual([]);
    const sent = new URL(end.url).searchParams;
    expect(sent.get('post_logout_redirect_uri')).toBe(app.appUrl('/'));
    const back = urls.slice(before).filter((url) => url.startsWith(app.site.url));
    expect(back).toContain(`${app.appUrl('/')}?state=${sent.get('state')}`);
    expect(back.filter((url) => new URL(url).pathname === '/callback')).toEqual([]);
    expect(withHash(session)).toEqual([]);
    expect(pageErrors(session)).toEqual([]);
  });

  test('a stale callback shows a notice on the start page and sends no token request', async () => {
    const session = await app.visit();
    const { page, log } = session;
    await page.goto(app.appUrl('/callback?code=x&state=y'));

    await page.locator('[role="alert"][data-error-code="unknown_transaction"]').waitFor();
    await page.waitForURL(app.appUrl('/'));
    await page.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
    expect(page.url()).toBe(app.appUrl('/'));
    expect(tokenRequests(log)).toEqual([]);
    expect(withHash(session)).toEqual([]);
    expect(pageErrors(session)).toEqual([]);
  });
}
