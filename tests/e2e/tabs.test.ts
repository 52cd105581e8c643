// One session per browser (several tabs of one context, the real local provider): a new tab adopts the
// session without the identity service, a sign-in reaches the waiting tabs, the app's shared worker
// renews once for all and goes on when the tab that signed in closes, sign-out ends every tab and revokes the one refresh token, and
// nothing of the session is ever stored.
import type { BrowserContext, Page } from 'playwright-core';
import { decodeProtectedHeader } from 'jose';
import { describe, expect, it } from 'vitest';
import { pageState, type RequestLog } from '../support/browser';
import { authorizeRequests, formOf, tokenRequests, tokenResponses } from '../support/flows';
import { getWith, refreshGrant } from '../support/node-client';
import { joined, readClaims, signIn, useEnv, type Session } from './helpers';

const ACCESS_TOKEN_TTL_S = 6;

/** Every token the provider issued in this context, and the claims, appear nowhere the pages can store. */
async function expectNothingStored(context: BrowserContext, log: RequestLog) {
  await log.settle();
  const secrets = tokenResponses(log).flatMap((t) =>
    ['access_token', 'refresh_token', 'id_token'].map((key) => t[key]).filter((v): v is string => typeof v === 'string'),
  );
  const cookies = JSON.stringify(await context.cookies());
  for (const page of context.pages()) {
    const dump = JSON.stringify(await pageState(page)) + cookies;
    for (const secret of [...secrets, 'alice@example.test', 'Alice Liddell']) {
      expect(dump.includes(secret), `${secret.slice(0, 12)}… stored: ${dump}`).toBe(false);
    }
  }
}

const signOutButton = (page: Page) => page.getByRole('banner').getByRole('button', { name: 'Sign out' });
const noAlert = async (page: Page) => expect(await page.getByRole('alert').count()).toBe(0);

async function openTab(session: Session, appUrl: string, hash = '#/profile'): Promise<Page> {
  const page = await session.context.newPage();
  await page.goto(appUrl + hash);
  return page;
}

describe('tabs share one session', () => {
  const env = useEnv({
    accessTokenTtl: ACCESS_TOKEN_TTL_S,
    extraConfig: (idp) => ({ revocationUrl: idp.accountUrl + '/connect/revocation' }),
  });

  it('a new tab beside a signed-in one shows the profile with no request to the identity service', async () => {
    const session = await env.open();
    const { page, log, context } = session;
    const { app } = env.stack;
    await signIn(session, app.url, '#/signin?returnTo=/profile');
    const claims = await readClaims(page);
    await joined(page);
    await expectNothingStored(context, log);

    const second = await openTab(session, app.url);
    expect(await readClaims(second)).toEqual(claims);
    // Neither a navigation to the provider nor a code of its own: the worker's session. (The worker renews
    // the short-lived token meanwhile, by its own clock: refresh grants are no request of the tab's.)
    expect(authorizeRequests(log)).toHaveLength(1);
    expect(tokenRequests(log).filter((e) => formOf(e).grant_type !== 'refresh_token')).toHaveLength(1);
    expect(log.matching('/connect/userinfo', 'GET').length).toBe(1);
    await expectNothingStored(context, log);
  });

  it('a sign-in in one tab signs in a tab waiting signed out', async () => {
    const session = await env.open();
    const { page, log, context } = session;
    const { app } = env.stack;
    await page.goto(app.url + '#/profile');
    await page.getByRole('main').getByRole('button', { name: 'Sign in', exact: true }).waitFor();

    const other = await context.newPage();
    await signIn({ ...session, page: other }, app.url, '#/signin?returnTo=/profile');
    const claims = await readClaims(other);
    // The waiting tab shows the profile by itself: no authorization, token or userinfo request of its own.
    expect(await readClaims(page)).toEqual(claims);
    await log.settle();
    expect(authorizeRequests(log)).toHaveLength(1);
    expect(tokenRequests(log)).toHaveLength(1);
    expect(log.matching('/connect/userinfo', 'GET').length).toBe(1);
    await expectNothingStored(context, log);
  });

  it('three tabs over several token lifetimes renew once per lifetime, with no alert', async () => {
    const session = await env.open();
    const { page, log, context } = session;
    const { app } = env.stack;
    await signIn(session, app.url, '#/signin?returnTo=/profile');
    await readClaims(page);
    await joined(page);
    const tabs = [page, await openTab(session, app.url), await openTab(session, app.url)];
    for (const tab of tabs) await readClaims(tab);
    const from = Date.now();
    const lifetimes = 3;
    await expect
      .poll(() => tokenRequests(log, 'refresh_token').filter((e) => e.status === 200).length, { timeout: 30_000 })
      .toBeGreaterThanOrEqual(lifetimes);
    const elapsed = Date.now() - from;
    // One renewal per lifetime for the whole browser (a lifetime is renewed shortly before it ends).
    expect(tokenRequests(log, 'refresh_token').length).toBeLessThanOrEqual(Math.ceil(elapsed / (ACCESS_TOKEN_TTL_S * 1000)) + 1);
    expect(tokenRequests(log, 'refresh_token').every((e) => e.status === 200)).toBe(true);
    for (const tab of tabs) {
      await noAlert(tab);
      await readClaims(tab);
    }
    await expectNothingStored(context, log);
  });

  it('the tab that signed in closes while the worker renews: the other tab keeps the session, renewed', async () => {
    const session = await env.open();
    const { log } = session;
    const { app } = env.stack;
    const first = session.page;
    await signIn({ ...session, page: first }, app.url, '#/signin?returnTo=/profile');
    await readClaims(first);
    await joined(first);
    const other = await openTab(session, app.url);
    await readClaims(other);
    // The worker renews for every page: the page that signed in goes away as its first renewal starts.
    const renewals = () => tokenRequests(log, 'refresh_token');
    await expect.poll(() => renewals().length, { timeout: 15_000 }).toBeGreaterThanOrEqual(1);
    await first.close();
    const renewed = () => renewals().filter((e) => e.status === 200).length;
    await expect.poll(renewed, { timeout: 15_000 }).toBeGreaterThanOrEqual(1);
    // A lifetime later, with only the other tab left, the session is renewed again.
    await expect.poll(renewed, { timeout: 15_000 }).toBeGreaterThanOrEqual(2);
    expect(renewals().every((e) => e.status === 200)).toBe(true);
    await noAlert(other);
    await readClaims(other);
  });

  it('sign-out in one tab signs out every tab and revokes the browser refresh token once', async () => {
    const session = await env.open();
    const { page, log, context } = session;
    const { app, idp } = env.stack;
    await signIn(session, app.url, '#/signin?returnTo=/profile');
    await readClaims(page);
    await joined(page);
    const tabs = [page, await openTab(session, app.url), await openTab(session, app.url)];
    for (const tab of tabs) await readClaims(tab);

    await signOutButton(tabs[1]).click();
    for (const tab of tabs) await tab.getByRole('main').getByRole('button', { name: 'Sign in', exact: true }).waitFor();
    // No token the browser was given works at the provider any more (the worker may have renewed the
    // 6 s token meanwhile, so every one is tried): a replay fails.
    await log.settle();
    const issued = tokenResponses(log);
    for (const refreshToken of new Set(issued.map((t) => t.refresh_token).filter(Boolean))) {
      await expect
        .poll(async () => (await refreshGrant(idp.accountUrl + '/connect/token', idp.clientId, String(refreshToken))).status)
        .toBe(400);
    }
    for (const { access_token } of issued) {
      const userinfo = await getWith(idp.authUrl + '/connect/userinfo', { authorization: `Bearer ${access_token}` });
      expect(userinfo.status).toBe(401);
    }
    await log.settle();
    expect(log.matching(idp.accountUrl + '/connect/revocation', 'POST')).toHaveLength(2);
    // A tab opened after the sign-out stays signed out without asking the provider.
    const later = await openTab(session, app.url);
    await later.getByRole('main').getByRole('button', { name: 'Sign in', exact: true }).waitFor();
    expect(authorizeRequests(log)).toHaveLength(1);
    await expectNothingStored(context, log);
  });
});

describe('tabs share one DPoP-bound session', () => {
  const env = useEnv({ extraConfig: { dpop: true } });

  it('all three tabs call the DPoP-protected demo API, every proof signed with the one shared key', async () => {
    const session = await env.open();
    const { page, log, context } = session;
    const { app } = env.stack;
    await signIn(session, app.url, '#/signin?returnTo=/api');
    await page.getByTestId('api-result').waitFor();
    await joined(page);
    const tabs = [page, await openTab(session, app.url, '#/api'), await openTab(session, app.url, '#/api')];
    for (const tab of tabs) {
      await tab.getByTestId('api-result').waitFor();
      expect(await tab.getByTestId('api-result').textContent()).toContain('Hello, Alice Liddell!');
    }
    await log.settle();
    // One sign-in; the API's own tokens (RFC 8707) come from the worker's refresh-token grants.
    expect(tokenRequests(log, 'authorization_code')).toHaveLength(1);
    const calls = log.matching('/api/greeting', 'GET').filter((e) => e.status === 200);
    expect(calls.length).toBeGreaterThanOrEqual(3);
    for (const call of calls) expect(call.headers.authorization).toMatch(/^DPoP /);
    const keys = [...tokenRequests(log), ...calls].map((e) => JSON.stringify(decodeProtectedHeader(e.headers.dpop ?? '').jwk));
    expect(new Set(keys).size).toBe(1);
    await expectNothingStored(context, log);
  });
});
