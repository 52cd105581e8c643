// Issue 21: two apps built from this module on one origin (the same build at /a/ and /b/, each with
// its own config.json, client and identity provider) share Web Storage, BroadcastChannel and Web Locks,
// yet nothing of a session: one app's tab never adopts, restores, renews or signs out the other's.
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { captureBodies, launchBrowser, type RecordedRequest } from '../support/browser';
import { answerSignOut, authorizeRequests, endSessionRequests, formOf, signInAs } from '../support/flows';
import { startApps, type AppsStack, type Idp, type MountedStack } from '../support/stack';
import { ALICE, closeSessions, joined, newSession, readClaims, signIn, type Session } from './helpers';

const BOB = { username: 'bob', password: 'builder', name: 'Bob Builder', email: 'bob@example.test' };
const A = '/a/';
const B = '/b/';

/** Sign-out ends the provider's session and revokes the tokens, so a sign-out that strays would show. */
const signOutThere = (idp: Idp) => ({
  endSessionUrl: idp.accountUrl + '/connect/endsession',
  revocationUrl: idp.accountUrl + '/connect/revocation',
});

/** The origins of a provider: account (authorize, token, revocation, end-session), auth (userinfo), API. */
const originsOf = (idp: Idp) => [idp.accountUrl, idp.authUrl, idp.apiUrl].map((url) => new URL(url).origin);
/** Requests among `entries` to any of `idps`' origins. */
const toProviders = (entries: RecordedRequest[], ...idps: Idp[]) =>
  entries.filter((e) => idps.some((idp) => originsOf(idp).includes(new URL(e.url).origin)));
const describeRequests = (entries: RecordedRequest[]) => entries.map((e) => `${e.method} ${e.url.split('?')[0]}`);

const mainSignIn = (page: Page) => page.getByRole('main').getByRole('button', { name: 'Sign in', exact: true });
const alertTexts = async (page: Page) => (await page.getByRole('alert').allTextContents()).map((t) => t.trim());

/** The app has settled: its claims, or its "Sign in". */
async function settled(page: Page) {
  await mainSignIn(page).or(page.locator('[data-claim="sub"]')).first().waitFor();
}

describe('two apps on one origin', () => {
  let stack: AppsStack;
  let browser: Browser;
  const open: Session[] = [];
  let a: MountedStack;
  let b: MountedStack;

  beforeAll(async () => {
    stack = await startApps({
      [A]: { clientId: 'app-a', extraConfig: signOutThere },
      [B]: { clientId: 'app-b', extraConfig: signOutThere },
    });
    ({ [A]: a, [B]: b } = stack.apps);
    browser = await launchBrowser();
  });
  afterEach((context) => closeSessions(open, context));
  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  /**
   * Alice signs in to /a/; /b/ in a new tab of the same browser shows "Sign in", no claims, and asks no
   * provider anything; bob signs in to /b/ at /b/'s provider. Returns the session, both tabs and claims.
   */
  async function aliceThenBob() {
    const session = await newSession(browser);
    open.push(session);
    const { page: tabA, log, context } = session;
    await signIn(session, a.app.url);
    const alice = await readClaims(tabA);
    expect(alice).toMatchObject({ email: ALICE.email, preferred_username: ALICE.username });
    // /a/'s tab has joined /a/'s worker (its page lock, the hint): /b/ must still adopt nothing of it.
    await joined(tabA);

    const tabB = await context.newPage();
    await captureBodies(tabB, log, ['*/connect/token*']);
    const opened = log.entries.length;
    await tabB.goto(b.app.url);
    await settled(tabB);
    expect(await tabB.locator('[data-claim]').allTextContents(), '/b/ shows the claims of a session it never had').toEqual([]);
    expect(await tabB.getByRole('banner').getByRole('button', { name: 'Sign out' }).count()).toBe(0);
    await mainSignIn(tabB).waitFor();
    await log.settle();
    expect(describeRequests(toProviders(log.entries.slice(opened), a.idp, b.idp)), 'requests to a provider').toEqual([]);

    // Bob signs in to /b/: its own sign-in, at its own provider's login page.
    await mainSignIn(tabB).click();
    await tabB.getByLabel('Username').waitFor();
    expect(new URL(tabB.url()).origin).toBe(new URL(b.idp.accountUrl).origin);
    await signInAs(tabB, BOB.username, BOB.password, b.app.url);
    const bob = await readClaims(tabB);
    expect(bob).toMatchObject({ email: BOB.email, preferred_username: BOB.username });
    return { session, tabA, tabB, alice, bob };
  }

  it('a second app on the origin adopts nothing of the first one’s session: each signs in at its own provider and keeps its person', async () => {
    const { session, tabA, tabB, alice, bob } = await aliceThenBob();
    const { log } = session;

    // /a/ still shows alice, in its open tab and after a reload (from /a/'s own worker: no provider asked).
    expect(await readClaims(tabA)).toEqual(alice);
    expect(await alertTexts(tabA)).toEqual([]);
    await tabA.reload();
    expect(await readClaims(tabA)).toEqual(alice);
    expect(await alertTexts(tabA)).toEqual([]);
    expect(await readClaims(tabB)).toEqual(bob);
    expect(await alertTexts(tabB)).toEqual([]);

    // Every authorization request went to the app's own provider, for its own client and redirect URI.
    const sent = authorizeRequests(log).map((e) => {
      const url = new URL(e.url);
      return { origin: url.origin, client: url.searchParams.get('client_id'), back: url.searchParams.get('redirect_uri') };
    });
    const at = (app: MountedStack) => ({
      origin: new URL(app.idp.accountUrl).origin,
      client: app.idp.clientId,
      back: app.app.url,
    });
    expect(sent).toEqual([at(a), at(b)]);
  });

  it('signing out of one app leaves the other signed in, and tells the other’s provider nothing', async () => {
    const { session, tabA, tabB, alice } = await aliceThenBob();
    const { log } = session;
    await log.settle();
    // What /b/'s provider issued: the only tokens /b/'s sign-out may send anywhere.
    const issuedByB = log
      .matching(b.idp.accountUrl + '/connect/token', 'POST')
      .filter((e) => e.status === 200 && e.body)
      .map((e) => JSON.parse(e.body!) as Record<string, unknown>);
    const tokensOfB = issuedByB.flatMap((t) => [t.access_token, t.refresh_token]);
    expect(issuedByB).toHaveLength(1);

    const before = log.entries.length;
    await tabB.getByRole('banner').getByRole('button', { name: 'Sign out' }).click();
    await answerSignOut(tabB, 'Sign out', b.app.url);
    await mainSignIn(tabB).waitFor();
    expect(await tabB.locator('[data-claim]').count()).toBe(0);
    // /b/'s revocations (best effort, not waited for by the app) have gone out. They leave as the tab navigates
    // away; on a loaded machine they were once not in the log a second after the tab came back.
    const revocations = () =>
      log.entries.slice(before).filter((e) => e.method === 'POST' && e.url.endsWith('/connect/revocation'));
    await expect.poll(() => revocations().length, { timeout: 5_000 }).toBeGreaterThanOrEqual(2);
    await log.settle();

    // /a/ still shows alice, and nothing of the sign-out went to /a/'s provider.
    expect(await readClaims(tabA)).toEqual(alice);
    expect(await alertTexts(tabA)).toEqual([]);
    expect(describeRequests(toProviders(log.entries.slice(before), a.idp)), "requests to /a/'s provider").toEqual([]);
    for (const revocation of revocations()) {
      expect(revocation.url).toBe(b.idp.accountUrl + '/connect/revocation');
      expect(tokensOfB).toContain(formOf(revocation).token);
    }
    // The one end-session request went to /b/'s provider for /b/'s client, and carried no ID token.
    const ends = endSessionRequests({ entries: log.entries.slice(before) });
    expect(ends.map((e) => [e.method, new URL(e.url).origin])).toEqual([['GET', new URL(b.idp.accountUrl).origin]]);
    const params = new URL(ends[0].url).searchParams;
    expect(params.get('client_id')).toBe(b.idp.clientId);
    expect(params.get('post_logout_redirect_uri')).toBe(b.app.url);
    expect(params.has('id_token_hint')).toBe(false);

    // A reload of /a/ still finds alice signed in (its provider's session is whole).
    await tabA.reload();
    expect(await readClaims(tabA)).toEqual(alice);
    expect(await alertTexts(tabA)).toEqual([]);
  });
});
