// Issue 3, "Keeping the session": expiry, refresh tokens, sign-out across tabs, restore after reload.
// Time is fake (vi.useFakeTimers) so expiry is exact and nothing sleeps.
import { describe, expect, it, vi } from 'vitest';
import { AuthError } from './errors';
import type { StandardClaims } from './protocol';
import { createSession } from './session';
import { appNames } from './storage';
import { useAuthHarness, type Tab } from '../../testing/auth-harness';
import {
  API_URL,
  APP_URL,
  FakeBroadcastChannel,
  allStorage,
  idTokenClaims,
  json,
  setPageUrl,
  unsignedIdToken,
  NAMES,
} from '../../testing/fake-idp';

const h = useAuthHarness();

const refreshRequests = () => h.idp.tokenRequests('refresh_token');

/** Sign-in at a fake "now", with the token lifetime the identity service announces. */
async function signInAt(expiresIn: number | undefined, { refresh = false } = {}) {
  vi.useFakeTimers();
  h.idp.expiresIn = expiresIn;
  h.idp.refreshTokens = refresh;
  const t0 = Date.now();
  const tab = await h.signIn();
  return { tab, t0 };
}

async function expectUnauthenticatedWithoutRequest(tab: Tab) {
  const before = h.idp.requests.length;
  await expect(tab.auth.fetch(API_URL)).rejects.toMatchObject({ code: 'unauthenticated' });
  expect(h.idp.requests.length).toBe(before);
}

describe('expiry without a refresh token', () => {
  it('stays signed in until expires_in runs out, then becomes expired', async () => {
    const { tab, t0 } = await signInAt(300);
    setPageUrl(`${APP_URL}#/api`);
    expect(tab.state.expiresAt).toBe(t0 + 300_000);
    await vi.advanceTimersByTimeAsync(299_999);
    expect(tab.state.status).toBe('signed-in');
    await vi.advanceTimersByTimeAsync(1);
    expect(tab.state).toMatchObject({ status: 'expired', user: null, error: { code: 'session_expired' } });
    expect(refreshRequests()).toHaveLength(0);
    await expectUnauthenticatedWithoutRequest(tab);
  });

  it.each([
    ['missing', undefined, 3600],
    ['absurdly large (beyond the 2^31-1 ms timer limit)', 1e10, 86_400],
    ['short', 5, 5],
  ])('expires_in %s: the session lasts %ss, never longer than the server said', async (_name, expiresIn, seconds) => {
    const { tab, t0 } = await signInAt(expiresIn);
    expect(tab.state.expiresAt).toBe(t0 + seconds * 1000);
    await vi.advanceTimersByTimeAsync(seconds * 1000 - 1);
    expect(tab.state.status).toBe('signed-in');
    await vi.advanceTimersByTimeAsync(1);
    expect(tab.state.status).toBe('expired');
  });

  it('expires_in 0 without a refresh token: expired at once, nothing sent', async () => {
    const { tab } = await signInAt(0);
    const requests = h.idp.requests.length;
    await vi.advanceTimersByTimeAsync(0);
    expect(tab.state.status).toBe('expired');
    expect(h.idp.requests.length).toBe(requests);
  });

  it.each([0, 1])('expires_in %i with a refresh token: renewals, but never a tight loop', async (expiresIn) => {
    const { tab } = await signInAt(expiresIn, { refresh: true });
    await vi.advanceTimersByTimeAsync(10_000);
    const renewals = refreshRequests().length;
    expect(renewals).toBeGreaterThanOrEqual(1);
    expect(renewals).toBeLessThanOrEqual(10);
    expect(tab.state.status).not.toBe('error');
  });

  it.each([
    ['online', () => window.dispatchEvent(new Event('online'))],
    ['visibilitychange', () => document.dispatchEvent(new Event('visibilitychange'))],
    ['pageshow', () => window.dispatchEvent(new Event('pageshow'))],
  ])('re-checks expiry on %s after the timers stalled (laptop asleep)', async (_name, wake) => {
    const { tab, t0 } = await signInAt(300);
    // The clock jumps without any timer firing, as after a sleep.
    vi.setSystemTime(t0 + 301_000);
    expect(tab.state.status).toBe('signed-in');
    wake();
    await vi.waitFor(() => expect(tab.state.status).toBe('expired'));
  });
});

describe('refresh tokens', () => {
  it('renews before expiry without the person noticing, and uses the new access token', async () => {
    const { tab, t0 } = await signInAt(300, { refresh: true });
    const firstAccessToken = h.idp.issued[0].access_token;
    await vi.advanceTimersByTimeAsync(150_000);
    expect(refreshRequests()).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(149_999);
    expect(refreshRequests()).toHaveLength(1);
    const [request] = refreshRequests();
    expect(request.form.get('client_id')).toBe(h.config.clientId);
    expect(request.form.has('client_secret')).toBe(false);
    expect(request.headers.has('authorization')).toBe(false);
    expect(tab.state.status).toBe('signed-in');
    expect(tab.state.expiresAt).toBeGreaterThan(t0 + 300_000);

    h.idp.validAccessTokens.delete(firstAccessToken as string);
    const response = await tab.auth.fetch(API_URL);
    expect(response.status).toBe(200);
    expect(h.idp.to(API_URL)[0].headers.get('authorization')).toBe(`Bearer ${h.idp.issued[1].access_token}`);
  });

  it('rotates: the new refresh token is used next time, the old one never again', async () => {
    const { tab } = await signInAt(300, { refresh: true });
    const rt1 = h.idp.issued[0].refresh_token;
    await vi.advanceTimersByTimeAsync(300_000);
    const rt2 = h.idp.issued[1].refresh_token;
    await vi.advanceTimersByTimeAsync(300_000);
    const rt3 = h.idp.issued[2]?.refresh_token;
    expect(new Set([rt1, rt2, rt3]).size).toBe(3);
    expect(refreshRequests().map((r) => r.form.get('refresh_token'))).toEqual([rt1, rt2]);
    expect(tab.state.status).toBe('signed-in');
  });

  it('keeps the old refresh token when the answer carries no new one', async () => {
    const { tab } = await signInAt(300, { refresh: true });
    const rt1 = h.idp.issued[0].refresh_token as string;
    h.idp.token = ({ form }) =>
      json({ access_token: `at-x-${form.get('refresh_token')}`, token_type: 'Bearer', expires_in: 300 });
    await vi.advanceTimersByTimeAsync(600_000);
    expect(refreshRequests().map((r) => r.form.get('refresh_token'))).toEqual([rt1, rt1]);
    expect(tab.state.status).toBe('signed-in');
  });

  it('invalid_grant on refresh ends the session as "expired"', async () => {
    const { tab } = await signInAt(300, { refresh: true });
    h.idp.currentRefreshToken = 'revoked-by-the-server';
    await vi.advanceTimersByTimeAsync(300_000);
    expect(refreshRequests()).toHaveLength(1);
    expect(tab.state).toMatchObject({
      status: 'expired',
      user: null,
      error: { code: 'session_expired', oauthError: 'invalid_grant' },
    });
    await expectUnauthenticatedWithoutRequest(tab);
    // No retry loop afterwards.
    await vi.advanceTimersByTimeAsync(24 * 3600_000);
    expect(refreshRequests()).toHaveLength(1);
  });

  it('retries a renewal that failed on the network while the token is still valid', async () => {
    const { tab, t0 } = await signInAt(300, { refresh: true });
    let failures = 1;
    h.idp.token = (request, standard) => (failures-- > 0 ? Promise.reject(new TypeError('Failed to fetch')) : standard(request));
    await vi.advanceTimersByTimeAsync(300_000 - 1);
    expect(refreshRequests().length).toBeGreaterThanOrEqual(1);
    expect(tab.state.status).toBe('signed-in');
    expect(tab.state.expiresAt).toBeGreaterThan(t0 + 300_000);
  });

  it('a renewed ID token for another subject ends the session', async () => {
    const { tab } = await signInAt(300, { refresh: true });
    h.idp.token = () =>
      json({
        access_token: 'at-mallory',
        token_type: 'Bearer',
        expires_in: 300,
        id_token: unsignedIdToken(idTokenClaims('mallory-sub', undefined)),
      });
    await vi.advanceTimersByTimeAsync(300_000);
    expect(tab.state.status).toBe('expired');
    expect(tab.state.user).toBeNull();
  });
});

describe('sign-out', () => {
  it('drops the token, aborts requests in flight, clears what it kept and shows the start page', async () => {
    const tab = await h.signIn();
    h.idp.api = () => new Promise<Response>(() => {});
    const pending = tab.auth.fetch(API_URL).catch((err: unknown) => err);
    await vi.waitFor(() => expect(h.idp.to(API_URL)).toHaveLength(1));
    await h.startSignIn(); // another pending sign-in of this tab
    tab.auth.signOut();
    expect(await pending).toMatchObject({ code: 'aborted' });
    expect(h.idp.to(API_URL)[0].init.signal?.aborted).toBe(true);
    expect(tab.state).toEqual({ status: 'signed-out', user: null, expiresAt: null, error: null, known: false });
    // The module never navigates in the app (the app does), and sends nothing anywhere without endSessionUrl.
    expect(location.href).toBe(APP_URL);
    // Only the non-secret "signed out on purpose" mark stays, for prompt=login on the next sign-in.
    expect(allStorage()).toBe(`${NAMES.key('hint')}=out`);
    await expectUnauthenticatedWithoutRequest(tab);
  });

  it('tells the other tabs on BroadcastChannel "auth"', async () => {
    const tab = await h.signIn();
    tab.auth.signOut();
    const signedOut = FakeBroadcastChannel.posted.filter(({ data }) => (data as { type: string }).type === 'signed-out');
    expect(signedOut).toHaveLength(1);
    expect(signedOut[0].name).toBe(NAMES.channel);
  });

  it('signing out in one tab signs out the others at once: token dropped, requests aborted, no echo', async () => {
    const other = await h.signIn();
    const tab = await h.signIn();
    h.idp.api = () => new Promise<Response>(() => {});
    const pending = other.auth.fetch(API_URL).catch((err: unknown) => err);
    await vi.waitFor(() => expect(h.idp.to(API_URL)).toHaveLength(1));
    tab.auth.signOut();
    await vi.waitFor(() => expect(other.state.status).toBe('signed-out'));
    expect(other.state.user).toBeNull();
    expect(await pending).toMatchObject({ code: 'aborted' });
    await expectUnauthenticatedWithoutRequest(other);
    expect(FakeBroadcastChannel.posted.filter(({ data }) => (data as { type: string }).type === 'signed-out')).toHaveLength(1);
  });

  it('a "signed-out" message naming this session signs this tab out; one without its id, or of another app, does not', async () => {
    const tab = await h.signIn();
    const id = (FakeBroadcastChannel.posted
      .map(({ data }) => data as { type: string; session?: { id: string } })
      .find((m) => m.type === 'offer')?.session?.id ?? '') as string;
    const otherTab = new FakeBroadcastChannel(NAMES.channel);
    const otherApp = new FakeBroadcastChannel('something-else');
    otherApp.postMessage({ app: NAMES.app, type: 'signed-out', id });
    otherTab.postMessage({ app: NAMES.app, type: 'hello' });
    otherTab.postMessage('signed-out');
    otherTab.postMessage({ app: NAMES.app, type: 'signed-out' });
    otherTab.postMessage({ app: NAMES.app, type: 'signed-out', id: 'b'.repeat(43) });
    otherTab.postMessage({ app: appNames('https://other.example', 'demo-spa').app, type: 'signed-out', id });
    await Promise.resolve();
    await Promise.resolve();
    expect(tab.state.status).toBe('signed-in');
    otherTab.postMessage({ app: NAMES.app, type: 'signed-out', id });
    await vi.waitFor(() => expect(tab.state.status).toBe('signed-out'));
  });

  it('a page restored from the back/forward cache after a sign-out elsewhere shows nothing of the user', async () => {
    const tab = await h.signIn();
    localStorage.removeItem(NAMES.key('hint')); // what the other tab's sign-out left behind
    const pageshow = new Event('pageshow');
    Object.defineProperty(pageshow, 'persisted', { value: true });
    window.dispatchEvent(pageshow);
    await vi.waitFor(() => expect(tab.state.status).toBe('signed-out'));
    expect(tab.state.user).toBeNull();
  });

  it('Back from the identity service to a cached page that began a sign-in shows it as before, not an endless redirect', async () => {
    const tab = h.newTab();
    await tab.auth.start();
    await tab.auth.signIn();
    expect(tab.state.status).toBe('redirecting');
    const pageshow = new Event('pageshow');
    Object.defineProperty(pageshow, 'persisted', { value: true });
    window.dispatchEvent(pageshow);
    expect(tab.state).toEqual({ status: 'signed-out', user: null, expiresAt: null, error: null, known: false });
  });

  it('a page restored from the back/forward cache while still signed in stays signed in', async () => {
    const tab = await h.signIn();
    const pageshow = new Event('pageshow');
    Object.defineProperty(pageshow, 'persisted', { value: true });
    window.dispatchEvent(pageshow);
    expect(tab.state.status).toBe('signed-in');
  });
});

describe('restore after a reload', () => {
  /**
   * A reload: memory gone, storage kept, the page at `hash`; `reloaded` false is a load by Back or a
   * link. The hash route is the restore's returnTo, as a hash-routed app's main.ts passes it.
   */
  async function reload(hash = '', { reloaded = true } = {}) {
    await h.closeTabs();
    setPageUrl(APP_URL + hash);
    h.reloaded = reloaded;
    const navigations = h.assign.mock.calls.length;
    const tab = h.newTab();
    await tab.auth.start({ returnTo: hash.slice(1) || undefined });
    return { tab, navigated: h.assign.mock.calls.length > navigations };
  }

  it('with the hint, a top-level prompt=none request brings the person back to the same route', async () => {
    await h.signIn();
    const { tab, navigated } = await reload('#/api');
    expect(navigated).toBe(true);
    expect(tab.state.status).toBe('redirecting');
    const url = new URL(h.lastNavigation());
    expect(url.searchParams.get('prompt')).toBe('none');
    for (const name of ['client_id', 'redirect_uri', 'code_challenge', 'state', 'nonce'])
      expect(url.searchParams.get(name)).toBeTruthy();
    const restored = await h.completeCallback(h.idp.approve(url.href));
    expect(restored.state.status).toBe('signed-in');
    expect(restored.started).toEqual({ returnTo: '/api' });
    expect(h.idp.tokenRequests('authorization_code')).toHaveLength(2);
  });

  it('without the hint, nothing is tried: signed out', async () => {
    const { tab, navigated } = await reload('#/profile');
    expect(navigated).toBe(false);
    expect(tab.state.status).toBe('signed-out');
  });

  it('the hint is non-secret: "1", and nothing else is kept', async () => {
    await h.signIn();
    expect(allStorage()).toBe(`${NAMES.key('hint')}=1`);
  });

  it('after a successful restore, the next reload restores again', async () => {
    await h.signIn();
    await reload();
    await h.completeCallback(h.idp.approve(h.lastNavigation()));
    expect((await reload()).navigated).toBe(true);
  });

  it('a guard stops a loop: no second restore within the guard window unless the person reloads', async () => {
    vi.useFakeTimers();
    await h.signIn();
    expect((await reload()).navigated).toBe(true);
    // The person came back without an answer (Back, a link): no second try.
    const second = await reload('', { reloaded: false });
    expect(second.navigated).toBe(false);
    expect(second.tab.state.status).toBe('signed-out');
    // A reload is the person asking: it may restore again.
    expect((await reload()).navigated).toBe(true);
    vi.setSystemTime(Date.now() + 10 * 60_000);
    expect((await reload('', { reloaded: false })).navigated).toBe(true);
  });

  it('a silent restore replaces the history entry instead of adding one; an interactive sign-in adds one', async () => {
    await h.startSignIn();
    expect(h.assign.mock.lastCall?.[1]).toBeFalsy();
    localStorage.setItem(NAMES.key('hint'), '1');
    await reload();
    expect(h.assign.mock.lastCall?.[1]).toBe(true);
  });

  it.each(['login_required', 'interaction_required', 'consent_required', 'access_denied', 'invalid_request', 'server_error'])(
    'an OAuth error (%s) answering the silent attempt: signed out, no alert, no token request, no retry',
    async (error) => {
      await h.signIn();
      await reload('#/api');
      const tokenRequests = h.idp.tokenRequests().length;
      const tab = await h.completeCallback(h.idp.deny(h.lastNavigation(), error, { error_description: 'id_token mandatory' }));
      expect(tab.state).toEqual({ status: 'signed-out', user: null, expiresAt: null, error: null, known: false });
      expect(h.idp.tokenRequests()).toHaveLength(tokenRequests);
      expect(tab.started).toEqual({ returnTo: '/api' });
      expect((await reload()).navigated).toBe(false);
    },
  );

  it('a silent attempt whose answer fails validation or whose token request fails is an alert', async () => {
    await h.signIn();
    await reload();
    const forged = h.idp.deny(h.lastNavigation(), 'login_required');
    forged.set('iss', 'https://evil.example');
    expect((await h.completeCallback(forged)).state.error?.code).toBe('invalid_response');
    await reload();
    h.idp.token = () => json({ error: 'invalid_grant' }, 400);
    const tab = await h.completeCallback(h.idp.approve(h.lastNavigation()));
    expect(tab.state).toMatchObject({ status: 'error', error: { code: 'invalid_grant' } });
  });

  it('login_required on an interactive sign-in is an error the person sees', async () => {
    const tab = await h.completeCallback(h.idp.deny(await h.startSignIn(), 'login_required'));
    expect(tab.state.status).toBe('error');
    expect(tab.state.error?.code).toBe('login_required');
  });
});

describe('whether a person is known (the header offers sign-out exactly then)', () => {
  /** A reload of the app (memory gone, storage kept) that restores when the hint says so. */
  async function reload() {
    await h.closeTabs();
    setPageUrl(APP_URL);
    h.reloaded = true;
    const tab = h.newTab();
    await tab.auth.start();
    return tab;
  }

  it('known while signed in and once the session expired; no one after sign-out', async () => {
    const { tab } = await signInAt(300);
    expect(tab.state).toMatchObject({ status: 'signed-in', known: true });
    await vi.advanceTimersByTimeAsync(300_000);
    expect(tab.state).toMatchObject({ status: 'expired', known: true });
    tab.auth.signOut();
    expect(tab.state).toMatchObject({ status: 'signed-out', known: false });
  });

  it('a visitor and a page still loading know no one', async () => {
    const tab = h.newTab();
    expect(tab.state).toMatchObject({ status: 'loading', known: false });
    await tab.auth.start();
    expect(tab.state).toMatchObject({ status: 'signed-out', known: false });
  });

  it.each([
    ['cancelled at the identity service', 'cancelled', (url: string) => h.idp.deny(url)],
    [
      'refused at the token endpoint',
      'invalid_grant',
      (url: string) => ((h.idp.token = () => json({ error: 'invalid_grant' }, 400)), h.idp.approve(url)),
    ],
  ])('a first sign-in %s: an error, and no one known', async (_name, code, answer) => {
    const tab = await h.completeCallback(answer(await h.startSignIn()));
    expect(tab.state).toMatchObject({ status: 'error', error: { code }, known: false });
  });

  it('a sign-in after signing out that is cancelled knows no one', async () => {
    (await h.signIn()).auth.signOut();
    await h.closeTabs();
    const tab = await h.completeCallback(h.idp.deny(await h.startSignIn()));
    expect(tab.state).toMatchObject({ status: 'error', error: { code: 'cancelled' }, known: false });
  });

  it('a step-up that fails keeps the person known, on the page that comes back', async () => {
    const signedIn = await h.signIn();
    await signedIn.auth.signIn({ scope: 'notes.write' });
    expect(signedIn.state).toMatchObject({ status: 'redirecting', known: true });
    const tab = await h.completeCallback(h.idp.deny(h.lastNavigation()));
    expect(tab.state).toMatchObject({ status: 'error', error: { code: 'cancelled' }, known: true });
  });

  it('a restore after a session that fails keeps the person known; one the identity service refuses knows no one', async () => {
    await h.signIn();
    const restoring = await reload();
    expect(restoring.state).toMatchObject({ status: 'redirecting', known: false });
    h.idp.token = () => json({ error: 'invalid_grant' }, 400);
    const failed = await h.completeCallback(h.idp.approve(h.lastNavigation()));
    expect(failed.state).toMatchObject({ status: 'error', error: { code: 'invalid_grant' }, known: true });
    await reload();
    const refused = await h.completeCallback(h.idp.deny(h.lastNavigation(), 'login_required'));
    expect(refused.state).toMatchObject({ status: 'signed-out', error: null, known: false });
  });

  it("the transitions themselves: a redirect and its abandonment keep whoever was known, a failure adds the browser's session", () => {
    const { session, ...to } = createSession<StandardClaims>();
    const known = () => session.current.known;
    to.signedIn({ sub: 'alice' }, 1);
    to.redirecting();
    expect(known()).toBe(true);
    to.redirectAbandoned();
    expect(session.current).toMatchObject({ status: 'signed-in', known: true });
    to.failed(new AuthError('step_up_failed'));
    expect(known()).toBe(true);
    to.signedOut();
    to.redirecting();
    expect(known()).toBe(false);
    to.failed(new AuthError('cancelled'));
    expect(known()).toBe(false);
    to.failed(new AuthError('unreachable'), undefined, true);
    expect(known()).toBe(true);
    to.notice('unknown_transaction');
    expect(known()).toBe(false);
    to.expired();
    expect(known()).toBe(true);
  });

  it('a callback that answers nothing of this tab is a notice that knows no one', async () => {
    const tab = await h.loadAt(`${APP_URL}?code=c&state=nobody`);
    expect(tab.state).toMatchObject({ status: 'signed-out', error: { code: 'unknown_transaction' }, known: false });
  });
});

it('the session store never carries a token', async () => {
  h.idp.refreshTokens = true;
  const tab = await h.signIn();
  const seen: string[] = [];
  const unsubscribe = tab.auth.session.subscribe((s) => seen.push(JSON.stringify(s)));
  tab.auth.signOut();
  unsubscribe();
  const body = h.idp.issued[0];
  for (const state of seen) {
    for (const secret of [body.access_token, body.refresh_token, body.id_token]) expect(state).not.toContain(secret as string);
  }
});
