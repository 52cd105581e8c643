// The session's rules in both of its hosts: the app's shared worker (one engine for every tab), and the
// engine in each page where a CSP refuses the worker (worker-src 'none'; tabs then reach each other only
// through the token-free signal). Each case is a defect of the old design, where equal tabs relayed the
// session over a BroadcastChannel, that must not come back.
import type { BrowserContext, Page } from 'playwright-core';
import { describe, expect, it, onTestFinished } from 'vitest';
import { captureBodies, pageState } from '../support/browser';
import { authorizeRequests, consent, prompts, signInAs, tokenRequests, tokenResponses } from '../support/flows';
import { refreshGrant } from '../support/node-client';
import { serveOnLoopback } from '../support/static-server';
import type { Idp } from '../support/stack';
import { ALICE, readClaims, signIn, useEnv, type Env, type Session } from './helpers';

const BOB = { username: 'bob', password: 'builder', email: 'bob@example.test' };
const ACCESS_TOKEN_TTL_S = 4;

type Host = 'worker' | 'in-page';

const mainSignIn = (page: Page) => page.getByRole('main').getByRole('button', { name: 'Sign in', exact: true });
const signOutButton = (page: Page) => page.getByRole('banner').getByRole('button', { name: 'Sign out' });

/** The provider's origins: account (authorize, token, revocation) and auth (userinfo). */
const idpOrigins = (idp: Idp) => [idp.accountUrl, idp.authUrl].map((url) => new URL(url).origin);

/** The page has connected to its engine: it holds its page lock (host/open.ts). */
async function connected(page: Page) {
  await expect
    .poll(() => page.evaluate(async () => (await navigator.locks.query()).held?.some((l) => l.name?.startsWith('auth page '))))
    .toBe(true);
}

/** The URLs of the context's shared workers, from the browser's own list of targets. */
async function sharedWorkers(env: Env, page: Page): Promise<string[]> {
  const own = await page.context().newCDPSession(page);
  const { targetInfo } = await own.send('Target.getTargetInfo');
  await own.detach();
  const cdp = await env.browser.newBrowserCDPSession();
  try {
    const { targetInfos } = await cdp.send('Target.getTargets');
    return targetInfos
      .filter((t) => t.type === 'shared_worker' && t.browserContextId === targetInfo.browserContextId)
      .map((t) => t.url);
  } finally {
    await cdp.detach();
  }
}

/** The session really runs where the case says: the app's shared worker, or the page (the CSP refused the worker). */
async function expectHost(env: Env, { page, csp }: Session, host: Host) {
  const refused = () => csp.filter((v) => v.directive === 'worker-src' || /worker-src/.test(v.text));
  if (host === 'worker') {
    await expect.poll(() => sharedWorkers(env, page)).toEqual([expect.stringMatching(/\/assets\/worker-[\w-]+\.js$/)]);
    expect(refused()).toEqual([]);
  } else {
    await expect.poll(() => refused().length).toBeGreaterThan(0);
    expect(await sharedWorkers(env, page)).toEqual([]);
  }
}

async function openTab({ context, log }: Session, url: string): Promise<Page> {
  const page = await context.newPage();
  await captureBodies(page, log, ['*/connect/token*']);
  await page.goto(url);
  return page;
}

/** Alice signed in on the profile in the session's first tab, its host checked. */
async function aliceSignedIn(env: Env, host: Host): Promise<Session> {
  const session = await env.open();
  await signIn(session, env.stack.app.url, '#/signin?returnTo=/profile');
  expect(await readClaims(session.page)).toMatchObject({ preferred_username: ALICE.username });
  await connected(session.page);
  await expectHost(env, session, host);
  return session;
}

/** What every BroadcastChannel message of the app's channel, in any page of the context, carried. */
async function listenToSignal(context: BrowserContext, channel: string): Promise<unknown[]> {
  const heard: unknown[] = [];
  await context.exposeBinding('__heardOnSignal', (_source, data: unknown) => void heard.push(data));
  await context.addInitScript((name: string) => {
    const listener = new BroadcastChannel(name);
    const report = (window as unknown as { __heardOnSignal(data: unknown): void }).__heardOnSignal;
    listener.onmessage = ({ data }) => void report(data);
  }, channel);
  return heard;
}

for (const host of ['worker', 'in-page'] as const) {
  describe(`the session in the ${host} host`, () => {
    const env = useEnv({
      accessTokenTtl: ACCESS_TOKEN_TTL_S,
      extraConfig: (idp) => ({ revocationUrl: idp.accountUrl + '/connect/revocation' }),
      ...(host === 'in-page' && { workerSrc: "'none'" }),
    });

    it('a sign-out from a tab whose step-up was cancelled signs out the other tab, which gets no token grant after it', async () => {
      const session = await aliceSignedIn(env, host);
      const { page: tabA, log } = session;
      const { app, idp } = env.stack;
      const tabB = await openTab(session, app.url + '#/profile');
      await readClaims(tabB);

      // Tab A's API call asks for notes.write; the person cancels the step-up at the consent screen.
      await tabA.route(idp.apiUrl + '/api/greeting', (route) =>
        route.request().method() === 'OPTIONS'
          ? route.continue()
          : route.fulfill({
              status: 403,
              headers: {
                'www-authenticate': 'Bearer error="insufficient_scope", scope="notes.write"',
                'access-control-allow-origin': new URL(app.url).origin,
                'access-control-expose-headers': 'WWW-Authenticate',
              },
            }),
      );
      await tabA.goto(app.url + '#/api');
      await tabA.getByRole('alert').getByRole('button', { name: 'Grant access' }).click();
      await consent(tabA, 'Cancel');
      await tabA.waitForURL((url) => url.href.startsWith(app.url));
      await tabA
        .getByRole('alert')
        .filter({ hasText: /cancelled/i })
        .waitFor();
      const backAt = Date.now();

      // Tab A left for the provider: the grants since are the other tab's session's (one engine for both
      // in the worker; tab B's own in-page). The refresh token it holds is the one it got last.
      await expect
        .poll(() => tokenRequests(log, 'refresh_token').filter((e) => e.time > backAt && e.status === 200).length, {
          timeout: 15_000,
        })
        .toBeGreaterThan(0);
      await log.settle();
      const held = tokenRequests(log)
        .filter((e) => e.status === 200 && e.body)
        .map((e) => JSON.parse(e.body!) as Record<string, unknown>)
        .findLast((t) => typeof t.refresh_token === 'string')!.refresh_token;
      const signedOutAt = Date.now();
      const grantsSince = () => tokenRequests(log).filter((e) => e.time >= signedOutAt);
      await signOutButton(tabA).click();
      for (const tab of [tabA, tabB]) await mainSignIn(tab).waitFor();
      expect(await tabB.locator('[data-claim]').count()).toBe(0);
      // The refresh token the other tab renewed with is revoked ...
      await expect
        .poll(async () => (await refreshGrant(idp.accountUrl + '/connect/token', idp.clientId, String(held))).status)
        .toBe(400);
      // ... and nothing asks for a grant any more. Absence needs a window: two access-token lifetimes,
      // in which the session renewed at least once while it lived.
      await expect
        .poll(() => Date.now() - signedOutAt, { timeout: 4 * ACCESS_TOKEN_TTL_S * 1000 })
        .toBeGreaterThan(2 * ACCESS_TOKEN_TTL_S * 1000);
      expect(grantsSince().map((e) => e.url)).toEqual([]);
      expect(await tabB.locator('[data-claim]').count()).toBe(0);
    });

    it('bob signing in beside alice replaces her session everywhere; his sign-out leaves no tab signed in', async () => {
      const session = await env.open();
      const { page: tabA, log, context } = session;
      const { app, idp } = env.stack;
      // Tab B waits at the provider's login page, its sign-in sent before alice's.
      const tabB = await openTab(session, app.url + '#/');
      await mainSignIn(tabB).click();
      await tabB.getByLabel('Username').waitFor();

      await signIn(session, app.url, '#/signin?returnTo=/profile');
      expect(await readClaims(tabA)).toMatchObject({ preferred_username: ALICE.username });
      await connected(tabA);
      await expectHost(env, session, host);
      await log.settle();
      const [alice] = tokenResponses(log);
      expect(alice?.refresh_token).toEqual(expect.any(String));

      await signInAs(tabB, BOB.username, BOB.password, app.url);
      // The callback's page may show the session it joined (alice's) while it exchanges bob's code.
      await expect.poll(async () => (await readClaims(tabB)).preferred_username).toBe(BOB.username);
      expect(await readClaims(tabB)).toMatchObject({ email: BOB.email });
      if (host === 'worker') {
        // One person per browser: tab A shows bob, with no request of its own.
        await expect.poll(async () => (await readClaims(tabA)).preferred_username).toBe(BOB.username);
      } else {
        // Tab A's engine heard another person began: it ended alice's session.
        await mainSignIn(tabA).waitFor();
        expect(await tabA.locator('[data-claim]').count()).toBe(0);
      }
      // Alice's refresh token was revoked when bob's session replaced hers.
      const replay = (token: unknown) => refreshGrant(idp.accountUrl + '/connect/token', idp.clientId, String(token));
      await expect.poll(async () => (await replay(alice.refresh_token)).status).toBe(400);
      await log.settle();
      const bob = tokenResponses(log).findLast((t) => typeof t.refresh_token === 'string');
      expect(bob?.refresh_token).not.toBe(alice.refresh_token);

      await signOutButton(tabB).click();
      for (const tab of [tabA, tabB]) await mainSignIn(tab).waitFor();
      for (const tab of context.pages()) expect(await tab.locator('[data-claim]').count()).toBe(0);
      await expect.poll(async () => (await replay(bob!.refresh_token)).status).toBe(400);
      // A reload finds no one either.
      await tabA.reload();
      await mainSignIn(tabA).waitFor();
      expect(await tabA.locator('[data-claim]').count()).toBe(0);
    });

    it(
      host === 'worker'
        ? "a lone tab's reload shows the claims with no request to the identity service and no navigation"
        : "a lone tab's reload shows the claims after exactly one silent (prompt=none) authorization",
      async () => {
        const session = await aliceSignedIn(env, host);
        const { page, log } = session;
        const { app, idp } = env.stack;
        const claims = await readClaims(page);
        await log.settle();
        const before = log.entries.length;

        await page.reload();
        expect(await readClaims(page)).toEqual(claims);
        await connected(page);
        await log.settle();
        const after = log.entries.slice(before);
        const toIdp = after.filter((e) => idpOrigins(idp).includes(new URL(e.url).origin));
        const navigations = after.filter((e) => e.isNavigation).map((e) => new URL(e.url).origin);
        if (host === 'worker') {
          expect(toIdp.map((e) => `${e.method} ${e.url}`)).toEqual([]);
          expect(navigations, 'the reload itself, nothing else').toEqual([new URL(app.url).origin]);
        } else {
          expect(prompts({ ...log, entries: after })).toEqual(['none']);
        }
      },
    );

    it('Back from another site within a minute keeps the session', async () => {
      const session = await aliceSignedIn(env, host);
      const { page, log } = session;
      const { app, idp } = env.stack;
      const claims = await readClaims(page);
      const elsewhere = await serveOnLoopback(async (_req, res) => {
        res
          .writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' })
          .end('<!doctype html><title>Elsewhere</title><p>Elsewhere</p>');
      });
      onTestFinished(() => elsewhere.close());
      await page.goto(elsewhere.url);
      await page.getByText('Elsewhere').waitFor();
      await log.settle();
      const before = log.entries.length;

      await page.goBack();
      expect(await readClaims(page)).toEqual(claims);
      await log.settle();
      const after = log.entries.slice(before);
      // The app's document was loaded again (no back/forward cache), so its session came from the host.
      expect(after.find((e) => e.isNavigation)?.url.split('#')[0]).toBe(app.url);
      const toIdp = after.filter((e) => idpOrigins(idp).includes(new URL(e.url).origin));
      if (host === 'worker') expect(toIdp.map((e) => `${e.method} ${e.url}`)).toEqual([]);
      else expect(prompts({ ...log, entries: after })).toEqual(['none']);
    });

    it('no token reaches page storage, cookies or the app’s BroadcastChannel, across sign-in, a second tab, renewals and sign-out', async () => {
      const session = await env.open();
      const { page, log, context } = session;
      const { app, idp } = env.stack;
      const heard = await listenToSignal(context, `auth ${JSON.stringify([idp.issuer, idp.clientId])}`);
      await signIn(session, app.url, '#/signin?returnTo=/profile');
      await readClaims(page);
      await connected(page);
      await expectHost(env, session, host);
      const second = await openTab(session, app.url + '#/profile');
      await readClaims(second);
      await expect
        .poll(() => tokenRequests(log, 'refresh_token').filter((e) => e.status === 200).length, { timeout: 15_000 })
        .toBeGreaterThanOrEqual(2);
      const states = [];
      for (const tab of context.pages()) states.push(await pageState(tab));
      await signOutButton(second).click();
      for (const tab of [page, second]) await mainSignIn(tab).waitFor();
      for (const tab of context.pages()) states.push(await pageState(tab));
      // The listener works: it heard the sign-in and the sign-out.
      await expect
        .poll(() => heard.map((m) => (m as { type?: string }).type))
        .toEqual(expect.arrayContaining(['signed-in', 'signed-out']));

      await log.settle();
      const issued = tokenResponses(log);
      const refreshTokens = issued.map((t) => t.refresh_token).filter((v): v is string => typeof v === 'string');
      expect(refreshTokens.length, 'the sign-in and renewals each issued a refresh token').toBeGreaterThanOrEqual(3);
      const secrets = [
        ...refreshTokens,
        ...issued.flatMap((t) => [t.access_token, t.id_token]).filter((v): v is string => typeof v === 'string'),
      ];
      const readable = JSON.stringify({ states, heard, cookies: await context.cookies() });
      for (const secret of secrets) expect(readable.includes(secret), `${secret.slice(0, 12)}… readable by the page`).toBe(false);
      expect(authorizeRequests(log).length).toBeGreaterThan(0);
    });
  });
}
