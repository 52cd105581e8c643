// Sign-out from every state that knew a person, and from every tab: the provider's session ends and no
// token any tab was given works afterwards. The provider is a default oidc-provider at its end-session
// endpoint: GET only (a POST is a 404), and a prompt the person answers.
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { answerSignOut, endSessionRequests, tokenResponses } from '../support/flows';
import { getWith, refreshGrant } from '../support/node-client';
import { joined, readClaims, signIn, useEnv, type Session } from './helpers';

/** A page that is not the app, where the person was before opening it. */
const BEFORE = 'data:text/html,<title>Before</title><h1>Before the app</h1>';

const endpoints = (idp: { accountUrl: string }) => ({
  endSessionUrl: idp.accountUrl + '/connect/endsession',
  revocationUrl: idp.accountUrl + '/connect/revocation',
});
const appSignIn = (page: Page) => page.getByRole('main').getByRole('button', { name: 'Sign in', exact: true });

/** Presses Back and waits for the page it lands on: the app settled signed out, or another page's heading. */
async function back(page: Page, appUrl: string): Promise<string> {
  await page.goBack();
  // A provider page may send the browser on to the app by itself: wait for a page that stays.
  await page.locator('h1').or(appSignIn(page)).first().waitFor();
  if (page.url().startsWith(appUrl)) await appSignIn(page).or(page.getByRole('alert')).first().waitFor();
  return page.url();
}

/** Signs in as alice from BEFORE, then signs out and answers the provider's prompt; returns the ID token. */
async function signInAndOut(session: Session, appUrl: string): Promise<string> {
  const { page, log } = session;
  await page.goto(BEFORE);
  await signIn(session, appUrl);
  await readClaims(page);
  await log.settle();
  const idToken = String(tokenResponses(log).at(-1)?.id_token);
  await page.getByRole('banner').getByRole('button', { name: 'Sign out' }).click();
  await answerSignOut(page, 'Sign out', appUrl);
  await appSignIn(page).waitFor();
  return idToken;
}

/** The URLs of the tab's history entries (Chromium's own list). */
async function historyOf(page: Page): Promise<string[]> {
  const cdp = await page.context().newCDPSession(page);
  const { entries } = (await cdp.send('Page.getNavigationHistory')) as { entries: { url: string }[] };
  await cdp.detach();
  return entries.map((entry) => entry.url);
}

describe('sign-out at a provider that takes the end-session request as a GET only', () => {
  const env = useEnv({ extraConfig: endpoints });

  it("sign in, sign out: back in the app with 'Sign in'; Back x3 sends no end-session request again and shows no claims", async () => {
    const session = await env.open();
    const { page, log } = session;
    const { app, idp } = env.stack;
    const idToken = await signInAndOut(session, app.url);
    expect(await page.getByRole('alert').count()).toBe(0);
    expect(await page.locator('[data-claim]').count()).toBe(0);
    expect(new URL(page.url()).search).toBe('');

    // One end-session request, a GET top-level navigation: client_id, post_logout_redirect_uri and state,
    // and no ID token. The provider came back with that state.
    const [end, ...more] = endSessionRequests(log);
    expect(more).toEqual([]);
    expect([end.method, end.isNavigation]).toEqual(['GET', true]);
    const sent = Object.fromEntries(new URL(end.url).searchParams);
    expect(sent).toEqual({
      client_id: idp.clientId,
      post_logout_redirect_uri: app.url,
      state: expect.stringMatching(/^[\w-]{22,}$/),
    });
    const returned = log.entries.filter((e) => e.isNavigation && e.url.startsWith(app.url)).at(-1);
    expect(new URL(returned!.url).searchParams.get('state')).toBe(sent.state);

    const mark = log.entries.length;
    const landings: string[] = [];
    for (let i = 0; i < 3; i++) {
      landings.push(await back(page, app.url));
      expect(await page.locator('[data-claim]').count(), `claims shown after Back to ${landings.at(-1)}`).toBe(0);
    }
    await log.settle();
    const since = { entries: log.entries.slice(mark) };
    expect(endSessionRequests(since), landings.join(' -> ')).toEqual([]);
    expect(since.entries.filter((e) => /\/connect\/(token|userinfo)/.test(e.url))).toEqual([]);
    // The signed-in page was replaced by the sign-out: no entry of the app is left that showed claims,
    // and no entry carries the ID token.
    const history = await historyOf(page);
    expect(history.join(' ')).not.toContain(idToken);
    expect(history.some((url) => new URL(url).pathname === '/connect/endsession')).toBe(false);
    // A navigation, not a form: the app's form-action 'none' has nothing to refuse.
    expect(session.csp).toEqual([]);
  });

  it('after Sign out in one of three tabs, no token the browser was given works at the provider', async () => {
    const first = await env.open();
    const { context, log } = first;
    const { app, idp } = env.stack;
    await signIn(first, app.url);
    await readClaims(first.page);
    await joined(first.page);
    // Two more tabs of the same browser: they adopt the first tab's session, tokens and all.
    const tabs = [first.page, await context.newPage(), await context.newPage()];
    for (const tab of tabs.slice(1)) {
      await tab.goto(app.url + '#/profile');
      await readClaims(tab);
    }
    await log.settle();
    const issued = tokenResponses(log);
    expect(issued).toHaveLength(1);

    await tabs[1].getByRole('banner').getByRole('button', { name: 'Sign out' }).click();
    for (const tab of [tabs[0], tabs[2]])
      await tab.getByRole('main').getByRole('button', { name: 'Sign in', exact: true }).waitFor();
    // Revocation is best effort and not waited for: wait for its effect at the provider.
    for (const tokens of issued) {
      await expect
        .poll(
          async () => (await refreshGrant(idp.accountUrl + '/connect/token', idp.clientId, String(tokens.refresh_token))).status,
        )
        .toBe(400);
      const userinfo = await getWith(idp.authUrl + '/connect/userinfo', { authorization: `Bearer ${tokens.access_token}` });
      expect(userinfo.status, 'an access token still worked').toBe(401);
    }
  });
});

describe('sign-out after the session expired', () => {
  const env = useEnv({ accessTokenTtl: 4, extraConfig: endpoints });

  it('an expired session still offers Sign out, which ends the provider session', async () => {
    const session = await env.open();
    const { page, log } = session;
    const { app, idp } = env.stack;
    await signIn(session, app.url);
    await readClaims(page);
    await log.settle();
    const tokens = tokenResponses(log).at(-1)!;
    // The refresh token stops working (revoked elsewhere): the next renewal fails and the session expires.
    const revoked = await fetch(idp.accountUrl + '/connect/revocation', {
      method: 'POST',
      body: new URLSearchParams({ token: String(tokens.refresh_token), client_id: idp.clientId }),
    });
    expect(revoked.status).toBe(200);
    const signOut = page.getByRole('banner').getByRole('button', { name: 'Sign out' });
    // Renewal comes shortly before the 4-second token expires, and is refused.
    await page.getByRole('alert').filter({ hasText: 'Your session has expired.' }).waitFor();
    expect(await page.locator('[data-claim]').count()).toBe(0);

    await signOut.click();
    await answerSignOut(page, 'Sign out', app.url);
    await appSignIn(page).waitFor();
    expect(await page.getByRole('alert').count()).toBe(0);
    const [end] = endSessionRequests(log);
    expect(new URL(end.url).searchParams.get('client_id')).toBe(idp.clientId);
    expect(end.url).not.toContain(String(tokens.id_token));
    // The provider's session is gone: a sign-in asks for the password again.
    await appSignIn(page).click();
    await page.getByLabel('Username').waitFor();
  });
});

describe('sign-out at a provider that prompts at the end-session URL itself (a stock oidc-provider page)', () => {
  const env = useEnv({ logoutPromptAtEndSession: true, extraConfig: endpoints });

  it('Back re-requests that URL at most once, without the ID token; signed out, no claims, and Back still leaves', async () => {
    const session = await env.open();
    const { page, log } = session;
    const { app } = env.stack;
    const idToken = await signInAndOut(session, app.url);
    expect(await page.getByRole('alert').count()).toBe(0);

    const mark = log.entries.length;
    const landings: string[] = [];
    for (let i = 0; i < 3; i++) {
      landings.push(await back(page, app.url));
      expect(await page.locator('[data-claim]').count(), `claims shown after Back to ${landings.at(-1)}`).toBe(0);
    }
    await log.settle();
    const since = { entries: log.entries.slice(mark) };
    // The prompt was the end-session request's own page, so it is a history entry: Back loads it again
    // (the browser cannot help it for a GET). Without a session the provider returns to the app at once.
    const again = endSessionRequests(since);
    expect(again.length, landings.join(' -> ')).toBeLessThanOrEqual(1);
    for (const request of again) expect(request.url).not.toContain(idToken);
    expect(since.entries.filter((e) => /\/connect\/(token|userinfo)/.test(e.url))).toEqual([]);
    // Not a trap: the three Backs left the app.
    expect(landings.at(-1)!.startsWith(app.url)).toBe(false);
  });
});
