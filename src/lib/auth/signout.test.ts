// Sign-out that lets the person switch accounts: prompt=login next time, the provider's session ended
// by a form POST (RP-Initiated Logout 1.0) and the tokens revoked (RFC 7009) when configured, from
// every state that knew a person; the provider's return matched to the state sent, once.
import { describe, expect, it, vi } from 'vitest';
import { useAuthHarness } from '../../testing/auth-harness';
import {
  ACCOUNT_URL,
  API_URL,
  APP_URL,
  END_SESSION_URL,
  REVOCATION_URL,
  deferred,
  json,
  setPageUrl,
} from '../../testing/fake-idp';

const promptOf = (url: string) => new URL(url).searchParams.get('prompt');

describe('account switching without provider endpoints', () => {
  const h = useAuthHarness();

  it('the first interactive sign-in sends no prompt', async () => {
    expect(promptOf(await h.startSignIn())).toBeNull();
  });

  it('after an explicit sign-out the next interactive sign-in sends prompt=login, once', async () => {
    const tab = await h.signIn();
    tab.auth.signOut();
    expect(promptOf(await h.startSignIn())).toBe('login');
    await h.completeCallback(h.idp.approve(h.lastNavigation()));
    expect(promptOf(await h.startSignIn())).toBeNull();
  });

  it('prompt=login survives a reload of the signed-out page, and reaches other tabs', async () => {
    const tab = await h.signIn();
    tab.auth.signOut();
    setPageUrl(APP_URL);
    h.reloaded = true;
    const reloaded = h.newTab();
    await reloaded.auth.start();
    expect(h.assign).toHaveBeenCalledTimes(1); // no restore after a sign-out
    await reloaded.auth.signIn();
    expect(promptOf(h.lastNavigation())).toBe('login');
  });

  it('a plain reload while signed in restores silently: prompt=none, never login', async () => {
    await h.signIn();
    await h.closeTabs();
    h.reloaded = true;
    const tab = h.newTab();
    await tab.auth.start();
    expect(promptOf(h.lastNavigation())).toBe('none');
  });

  it('sign-out without endSessionUrl stays in the app: no navigation, no form', async () => {
    const tab = await h.signIn();
    const navigations = h.assign.mock.calls.length;
    tab.auth.signOut();
    // The provider's part of a sign-out runs with its module: let it load and run.
    await vi.dynamicImportSettled();
    expect(h.assign.mock.calls.length).toBe(navigations);
    expect(h.post).not.toHaveBeenCalled();
    expect(tab.state).toEqual({ status: 'signed-out', user: null, expiresAt: null, error: null });
  });
});

describe('with endSessionUrl and revocationUrl', () => {
  const h = useAuthHarness({ endSessionUrl: END_SESSION_URL, revocationUrl: REVOCATION_URL });
  const revoked = () => h.idp.to(REVOCATION_URL).map(({ form }) => [form.get('token_type_hint'), form.get('token')]);

  it('ends the provider session with a form POST of id_token_hint, client_id, post_logout_redirect_uri, state: nothing in a URL', async () => {
    const tab = await h.signIn();
    const navigations = h.assign.mock.calls.length;
    tab.auth.signOut();
    expect(tab.state.status).toBe('signed-out');
    await vi.waitFor(() => expect(h.post).toHaveBeenCalledTimes(1));
    const [url, fields] = h.post.mock.lastCall!;
    expect(url).toBe(END_SESSION_URL);
    expect(fields).toEqual({
      id_token_hint: h.idp.issued[0].id_token,
      client_id: 'demo-spa',
      post_logout_redirect_uri: APP_URL,
      state: expect.stringMatching(/^[\w-]{20,}$/),
    });
    // No navigation at all carries the ID token: not the sign-out, not anything after it.
    expect(h.assign.mock.calls.length).toBe(navigations);
    expect(JSON.stringify([location.href, h.assign.mock.calls])).not.toContain(String(h.idp.issued[0].id_token));
  });

  it('the return with our state shows the signed-out start page, without a restore or a notice; the state works once', async () => {
    const tab = await h.signIn();
    tab.auth.signOut();
    await vi.waitFor(() => expect(h.post).toHaveBeenCalled());
    const { state } = h.post.mock.lastCall![1];
    const navigations = h.assign.mock.calls.length;
    const back = await h.loadAt(`${APP_URL}?state=${state}`);
    expect(back.state).toEqual({ status: 'signed-out', user: null, expiresAt: null, error: null });
    expect(back.started).toEqual({});
    expect(h.assign.mock.calls.length).toBe(navigations);
    expect(location.href).toBe(APP_URL);
    expect(h.idp.tokenRequests('authorization_code')).toHaveLength(1);
    const again = await h.loadAt(`${APP_URL}?state=${state}`);
    expect(again.state.error).toEqual({ code: 'unknown_signout' });
  });

  it('a forged return signs out here with a notice: no restore, no loop, nothing sent', async () => {
    await h.signIn();
    const navigations = h.assign.mock.calls.length;
    const requests = h.idp.requests.length;
    const tab = await h.loadAt(`${APP_URL}?state=forged`);
    expect(tab.state).toEqual({ status: 'signed-out', user: null, expiresAt: null, error: { code: 'unknown_signout' } });
    expect(h.assign.mock.calls.length).toBe(navigations);
    expect(h.idp.requests.length).toBe(requests);
    expect(location.href).toBe(APP_URL);
  });

  it('a stale return with another state than ours is a notice too', async () => {
    const tab = await h.signIn();
    tab.auth.signOut();
    const back = await h.loadAt(`${APP_URL}?state=not-ours`);
    expect(back.state).toEqual({ status: 'signed-out', user: null, expiresAt: null, error: { code: 'unknown_signout' } });
  });

  it('revokes the access and the refresh token (RFC 7009, with type hints) without waiting for the answers', async () => {
    h.idp.refreshTokens = true;
    const tab = await h.signIn();
    const refreshToken = h.idp.currentRefreshToken;
    const accessToken = h.idp.issued[0].access_token;
    const answer = deferred<Response>();
    h.idp.revocation = () => answer.promise;
    tab.auth.signOut();
    // Signed out and on its way to the provider before the revocations answer.
    expect(tab.state.status).toBe('signed-out');
    await vi.waitFor(() => expect(h.post).toHaveBeenCalledTimes(1));
    await vi.waitFor(() => expect(h.idp.to(REVOCATION_URL)).toHaveLength(2));
    expect(revoked()).toEqual(
      expect.arrayContaining([
        ['access_token', accessToken],
        ['refresh_token', refreshToken],
      ]),
    );
    for (const request of h.idp.to(REVOCATION_URL)) {
      expect(request.form.get('client_id')).toBe('demo-spa');
      expect(request.init.keepalive).toBe(true);
      expect(request.init.credentials).toBe('omit');
    }
    answer.resolve(new Response(null, { status: 503 }));
  });

  it('a failing revocation is ignored: nothing shown, nothing thrown', async () => {
    h.idp.refreshTokens = true;
    const tab = await h.signIn();
    h.idp.revocation = () => Promise.reject(new TypeError('Failed to fetch'));
    const rejections: unknown[] = [];
    const onRejection = (event: PromiseRejectionEvent) => rejections.push(event.reason);
    window.addEventListener('unhandledrejection', onRejection);
    tab.auth.signOut();
    await vi.waitFor(() => expect(h.idp.to(REVOCATION_URL)).toHaveLength(2));
    await new Promise((resolve) => setTimeout(resolve, 0));
    window.removeEventListener('unhandledrejection', onRejection);
    expect(rejections).toEqual([]);
    expect(tab.state).toEqual({ status: 'signed-out', user: null, expiresAt: null, error: null });
  });

  it('without a refresh token only the access token is revoked', async () => {
    const tab = await h.signIn();
    tab.auth.signOut();
    await vi.waitFor(() => expect(h.idp.to(REVOCATION_URL)).toHaveLength(1));
    expect(revoked()).toEqual([['access_token', h.idp.issued[0].access_token]]);
  });

  it('another tab signs out quietly (no second provider sign-out); the shared tokens are revoked once', async () => {
    h.idp.refreshTokens = true;
    const other = await h.signIn();
    // A second sign-in of the same person: the first tab follows it, so the browser holds one session.
    const tab = await h.signIn();
    const refreshToken = h.idp.currentRefreshToken;
    tab.auth.signOut();
    await vi.waitFor(() => expect(other.state.status).toBe('signed-out'));
    await vi.waitFor(() => expect(h.post).toHaveBeenCalledTimes(1));
    await vi.waitFor(() => expect(h.idp.to(REVOCATION_URL)).toHaveLength(2));
    expect(revoked()).toEqual(
      expect.arrayContaining([
        ['refresh_token', refreshToken],
        ['access_token', h.idp.issued.at(-1)!.access_token],
      ]),
    );
  });

  it('an expired session can still sign out: the provider session ends with its ID token, its tokens are revoked', async () => {
    h.idp.refreshTokens = true;
    const tab = await h.signIn();
    const refreshToken = h.idp.currentRefreshToken;
    h.idp.token = () => json({ error: 'invalid_grant' }, 400);
    await tab.auth.fetch(API_URL).catch(() => {});
    h.idp.validAccessTokens.clear();
    await tab.auth.fetch(API_URL).catch(() => {});
    await vi.waitFor(() => expect(tab.state.status).toBe('expired'));
    tab.auth.signOut();
    expect(tab.state).toEqual({ status: 'signed-out', user: null, expiresAt: null, error: null });
    await vi.waitFor(() => expect(h.post).toHaveBeenCalled());
    expect(h.post.mock.lastCall![1].id_token_hint).toBe(h.idp.issued[0].id_token);
    await vi.waitFor(() => expect(revoked()).toContainEqual(['refresh_token', refreshToken]));
  });

  it('after a failed sign-in, sign-out still ends the provider session (client_id, no hint) and remembers the choice', async () => {
    const callback = h.idp.approve(await h.startSignIn());
    callback.set('state', 'tampered');
    const tab = await h.completeCallback(callback);
    expect(tab.state.status).toBe('signed-out');
    tab.auth.signOut();
    await vi.waitFor(() => expect(h.post).toHaveBeenCalled());
    const fields = h.post.mock.lastCall![1];
    expect(fields.client_id).toBe('demo-spa');
    expect(fields).not.toHaveProperty('id_token_hint');
    expect(promptOf(await h.startSignIn())).toBe('login');
  });
});

describe('bounded callback values', () => {
  const h = useAuthHarness();

  it.each(['code', 'state', 'iss'])('a %s over 8 KiB is refused as invalid_response before any token request', async (name) => {
    const callback = h.idp.approve(await h.startSignIn());
    const state = callback.get('state')!;
    const long = name === 'state' ? state + 'x'.repeat(8193 - state.length) : 'x'.repeat(8193);
    callback.set(name, name === 'iss' ? ACCOUNT_URL + '/' + long : long);
    const tab = await h.completeCallback(callback);
    expect(tab.state).toMatchObject({ status: 'error', error: { code: 'invalid_response' } });
    expect(h.idp.tokenRequests()).toHaveLength(0);
  });

  it('a code of exactly 8 KiB is still exchanged', async () => {
    const callback = h.idp.approve(await h.startSignIn());
    callback.set('code', 'c'.repeat(8192));
    const tab = await h.completeCallback(callback);
    expect(h.idp.tokenRequests()).toHaveLength(1);
    expect(tab.state.error?.code).toBe('invalid_grant');
  });
});

describe('a sign-in that cannot start', () => {
  const h = useAuthHarness();

  it('shows a failure with a way forward instead of waiting forever, and the bug is thrown on', async () => {
    const tab = h.newTab();
    await tab.auth.start();
    const bug = new TypeError('crypto.subtle is unavailable');
    vi.spyOn(crypto.subtle, 'digest').mockRejectedValue(bug);
    await expect(tab.auth.signIn({ returnTo: '/api' })).rejects.toBe(bug);
    expect(tab.state).toMatchObject({ status: 'error', error: { code: 'invalid_response', returnTo: '/api' } });
    expect(h.assign).not.toHaveBeenCalled();
  });
});
