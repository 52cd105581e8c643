// Sign-out that lets the person switch accounts: prompt=login next time, the provider's session ended
// (RP-Initiated Logout 1.0) and the refresh token revoked (RFC 7009) when configured.
import { describe, expect, it, vi } from 'vitest';
import { useAuthHarness } from '../../testing/auth-harness';
import { ACCOUNT_URL, APP_URL, END_SESSION_URL, REVOCATION_URL, deferred, setPageUrl } from '../../testing/fake-idp';

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
    h.reloaded = true;
    const tab = h.newTab();
    await tab.auth.start();
    expect(promptOf(h.lastNavigation())).toBe('none');
  });

  it('sign-out without endSessionUrl stays in the app', async () => {
    const tab = await h.signIn();
    const navigations = h.assign.mock.calls.length;
    tab.auth.signOut();
    expect(h.assign.mock.calls.length).toBe(navigations);
    expect(tab.navigate).toHaveBeenLastCalledWith('/');
  });
});

describe('with endSessionUrl and revocationUrl', () => {
  const h = useAuthHarness({ endSessionUrl: END_SESSION_URL, revocationUrl: REVOCATION_URL });

  it('ends the provider session with a top-level navigation carrying id_token_hint, client_id, post_logout_redirect_uri, state', async () => {
    const tab = await h.signIn();
    tab.auth.signOut();
    expect(tab.state.status).toBe('signed-out');
    const url = new URL(h.lastNavigation());
    expect(url.origin + url.pathname).toBe(END_SESSION_URL);
    expect(url.searchParams.get('id_token_hint')).toBe(h.idp.issued[0].id_token);
    expect(url.searchParams.get('client_id')).toBe('demo-spa');
    expect(url.searchParams.get('post_logout_redirect_uri')).toBe(APP_URL);
    expect(url.searchParams.get('state')).toMatch(/^[\w-]{20,}$/);
    expect(h.assign.mock.lastCall?.[1]).toBeFalsy();
  });

  it('the return with our state shows the signed-out start page, without a restore or a notice', async () => {
    const tab = await h.signIn();
    tab.auth.signOut();
    const state = new URL(h.lastNavigation()).searchParams.get('state');
    const navigations = h.assign.mock.calls.length;
    const back = await h.loadAt(`${APP_URL}?state=${state}`);
    expect(back.state).toEqual({ status: 'signed-out', user: null, expiresAt: null, error: null });
    expect(h.assign.mock.calls.length).toBe(navigations);
    expect(location.href).toBe(APP_URL);
    expect(h.idp.tokenRequests('authorization_code')).toHaveLength(1);
  });

  it('a forged or stale sign-out return changes nothing: a signed-in browser is restored as on any load', async () => {
    await h.signIn();
    const tab = await h.loadAt(`${APP_URL}?state=forged`);
    expect(tab.state.status).toBe('redirecting');
    expect(promptOf(h.lastNavigation())).toBe('none');
    expect(tab.state.error).toBeNull();
  });

  it('a stale return with another state than ours changes nothing either', async () => {
    const tab = await h.signIn();
    tab.auth.signOut();
    const back = await h.loadAt(`${APP_URL}?state=not-ours`);
    expect(back.state).toEqual({ status: 'signed-out', user: null, expiresAt: null, error: null });
  });

  it('revokes the refresh token (RFC 7009) without waiting for the answer', async () => {
    h.idp.refreshTokens = true;
    const tab = await h.signIn();
    const refreshToken = h.idp.currentRefreshToken;
    const answer = deferred<Response>();
    h.idp.revocation = () => answer.promise;
    tab.auth.signOut();
    // Signed out and on its way to the provider before the revocation answers.
    expect(tab.state.status).toBe('signed-out');
    expect(h.lastNavigation().startsWith(END_SESSION_URL)).toBe(true);
    await vi.waitFor(() => expect(h.idp.to(REVOCATION_URL)).toHaveLength(1));
    const request = h.idp.to(REVOCATION_URL)[0];
    expect(request.form.get('token')).toBe(refreshToken);
    expect(request.form.get('client_id')).toBe('demo-spa');
    expect(request.init.keepalive).toBe(true);
    expect(request.init.credentials).toBe('omit');
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
    await vi.waitFor(() => expect(h.idp.to(REVOCATION_URL)).toHaveLength(1));
    await new Promise((resolve) => setTimeout(resolve, 0));
    window.removeEventListener('unhandledrejection', onRejection);
    expect(rejections).toEqual([]);
    expect(tab.state).toEqual({ status: 'signed-out', user: null, expiresAt: null, error: null });
  });

  it('without a refresh token nothing is revoked', async () => {
    const tab = await h.signIn();
    tab.auth.signOut();
    expect(h.idp.to(REVOCATION_URL)).toHaveLength(0);
  });

  it('another tab signs out quietly: no second provider sign-out, no second revocation', async () => {
    h.idp.refreshTokens = true;
    const other = await h.signIn();
    const tab = await h.signIn();
    tab.auth.signOut();
    await vi.waitFor(() => expect(other.state.status).toBe('signed-out'));
    expect(h.assign.mock.calls.filter(([url]) => String(url).startsWith(END_SESSION_URL))).toHaveLength(1);
    expect(h.idp.to(REVOCATION_URL)).toHaveLength(1);
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
    expect(tab.state).toMatchObject({ status: 'error', error: { code: 'invalid_response', returnTo: '/profile' } });
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
