// Sign-out at the identity service (signout.ts): the provider's session ended by a GET navigation
// (RP-Initiated Logout 1.0) and the tokens revoked (RFC 7009) when configured, from every state that
// knew a person; the provider's return matched to the state sent, once. (Sign-out in the app and the
// next sign-in's prompt=login: auth tests.)
import { describe, expect, it, vi } from 'vitest';
import * as oauth from 'oauth4webapi';
import { noSession, useAuthHarness } from '../__fixtures__/harness';
import type { Network } from './http';
import type { Server } from './steps';
import { endSessionRequest, revoke } from './signout';
import { API_URL, APP_URL, END_SESSION_URL, REVOCATION_URL, deferred, json } from '../__fixtures__/fake-idp';

const promptOf = (url: string) => new URL(url).searchParams.get('prompt');

describe('with end_session_endpoint and revocation_endpoint', () => {
  const h = useAuthHarness({ server: { end_session_endpoint: END_SESSION_URL, revocation_endpoint: REVOCATION_URL } });
  const revoked = () => h.idp.to(REVOCATION_URL).map(({ form }) => [form.get('token_type_hint'), form.get('token')]);
  /** The end-session requests the tabs navigated to, as URLs. */
  const endSessions = () =>
    h.assign.mock.calls.map(([url]) => new URL(url)).filter((url) => url.origin + url.pathname === END_SESSION_URL);
  /** The `state` of the latest end-session request, once it has left (other than `before`). */
  const sentState = async (before?: string) => {
    let state: string | null | undefined;
    await vi.waitFor(() => {
      state = endSessions().at(-1)?.searchParams.get('state');
      expect(state).toBeTruthy();
      expect(state).not.toBe(before);
    });
    return state!;
  };

  it('ends the provider session with a GET that replaces the entry: client_id, post_logout_redirect_uri, state, and no ID token', async () => {
    const tab = await h.signIn();
    const navigations = h.assign.mock.calls.length;
    tab.auth.signOut();
    expect(tab.state.status).toBe('signed-out');
    await vi.waitFor(() => expect(h.assign.mock.calls.length).toBe(navigations + 1));
    const [url, replace] = h.assign.mock.lastCall!;
    // Replaced: Back from the signed-out app never shows the page that was signed in.
    expect(replace).toBe(true);
    const end = new URL(url);
    expect(end.origin + end.pathname).toBe(END_SESSION_URL);
    expect(Object.fromEntries(end.searchParams)).toEqual({
      client_id: 'demo-spa',
      post_logout_redirect_uri: APP_URL,
      state: expect.stringMatching(/^[\w-]{20,}$/),
    });
    // The ID token is in no URL: not the end-session request's, not any other navigation's.
    expect(JSON.stringify([location.href, h.assign.mock.calls])).not.toContain(String(h.idp.issued[0].id_token));
  });

  it('the return with our state shows the signed-out start page, without a restore or a notice; the state works once', async () => {
    const tab = await h.signIn();
    tab.auth.signOut();
    const state = await sentState();
    const navigations = h.assign.mock.calls.length;
    const back = await h.loadAt(`${APP_URL}?state=${state}`);
    expect(back.state).toEqual(noSession('signed-out'));
    expect(back.started).toEqual({});
    expect(h.assign.mock.calls.length).toBe(navigations);
    expect(location.href).toBe(APP_URL);
    expect(h.idp.tokenRequests('authorization_code')).toHaveLength(1);
    const again = await h.loadAt(`${APP_URL}?state=${state}`);
    expect(again.state.error).toEqual({ code: 'unknown_signout' });
  });

  it('each sign-out sends a fresh state, and the return is matched to the latest', async () => {
    const first = await h.signIn();
    first.auth.signOut();
    const old = await sentState();
    const second = await h.signIn();
    second.auth.signOut();
    const latest = await sentState(old);
    expect((await h.loadAt(`${APP_URL}?state=${latest}`)).state).toEqual(noSession('signed-out'));
  });

  it('a forged return signs out here with a notice: no restore, no loop, nothing sent', async () => {
    await h.signIn();
    const navigations = h.assign.mock.calls.length;
    const requests = h.idp.requests.length;
    const tab = await h.loadAt(`${APP_URL}?state=forged`);
    expect(tab.state).toEqual({
      status: 'signed-out',
      user: null,
      expiresAt: null,
      error: { code: 'unknown_signout' },
      known: false,
      offline: false,
      endsAt: null,
    });
    expect(h.assign.mock.calls.length).toBe(navigations);
    expect(h.idp.requests.length).toBe(requests);
    expect(location.href).toBe(APP_URL);
  });

  it('a stale return with another state than ours is a notice too', async () => {
    const tab = await h.signIn();
    tab.auth.signOut();
    const back = await h.loadAt(`${APP_URL}?state=not-ours`);
    expect(back.state).toEqual({
      status: 'signed-out',
      user: null,
      expiresAt: null,
      error: { code: 'unknown_signout' },
      known: false,
      offline: false,
      endsAt: null,
    });
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
    await vi.waitFor(() => expect(endSessions()).toHaveLength(1));
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
    expect(tab.state).toEqual(noSession('signed-out'));
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
    await vi.waitFor(() => expect(endSessions()).toHaveLength(1));
    await vi.waitFor(() => expect(h.idp.to(REVOCATION_URL)).toHaveLength(2));
    expect(revoked()).toEqual(
      expect.arrayContaining([
        ['refresh_token', refreshToken],
        ['access_token', h.idp.issued.at(-1)!.access_token],
      ]),
    );
  });

  it('an expired session can still sign out: the provider session ends (no ID token in the URL), its tokens are revoked', async () => {
    h.idp.refreshTokens = true;
    const tab = await h.signIn();
    const refreshToken = h.idp.currentRefreshToken;
    h.idp.token = () => json({ error: 'invalid_grant' }, 400);
    await tab.auth.fetch(API_URL).catch(() => {});
    h.idp.validAccessTokens.clear();
    await tab.auth.fetch(API_URL).catch(() => {});
    await vi.waitFor(() => expect(tab.state.status).toBe('expired'));
    tab.auth.signOut();
    expect(tab.state).toEqual(noSession('signed-out'));
    await vi.waitFor(() => expect(endSessions()).toHaveLength(1));
    expect(endSessions()[0].searchParams.get('client_id')).toBe('demo-spa');
    expect(endSessions()[0].searchParams.has('id_token_hint')).toBe(false);
    await vi.waitFor(() => expect(revoked()).toContainEqual(['refresh_token', refreshToken]));
  });

  it('after a failed sign-in, sign-out still ends the provider session (client_id, no hint) and remembers the choice', async () => {
    const callback = h.idp.approve(await h.startSignIn());
    callback.set('state', 'tampered');
    const tab = await h.completeCallback(callback);
    expect(tab.state.status).toBe('signed-out');
    tab.auth.signOut();
    await vi.waitFor(() => expect(endSessions()).toHaveLength(1));
    const [end] = endSessions();
    expect(end.searchParams.get('client_id')).toBe('demo-spa');
    expect(end.searchParams.has('id_token_hint')).toBe(false);
    expect(promptOf(await h.startSignIn())).toBe('login');
  });
});

describe('the end-session request', () => {
  const END = 'https://id.example.test/end';
  const APP = 'https://app.example.test/';
  const ID_TOKEN = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2ln';
  /** `null`: a provider without an end-session endpoint. */
  const serverWith = (endSessionEndpoint: string | null = END): Server => ({
    as: { issuer: 'https://id.example.test', end_session_endpoint: endSessionEndpoint ?? undefined },
    client: { client_id: 'spa' },
    redirectUri: APP,
    scope: 'openid',
    resources: [],
    timeoutMs: 1000,
    network: vi.fn(),
  });
  const paramsOf = (url: string) => Object.fromEntries(new URL(url).searchParams);

  it('is the URL of a GET with client_id, post_logout_redirect_uri and a fresh state: no id_token_hint by default', () => {
    const first = endSessionRequest(serverWith(), ID_TOKEN)!;
    expect(first.url).toBe(`${END}?client_id=spa&post_logout_redirect_uri=${encodeURIComponent(APP)}&state=${first.state}`);
    expect(paramsOf(first.url)).toEqual({ client_id: 'spa', post_logout_redirect_uri: APP, state: first.state });
    expect(first.state).toMatch(/^[\w-]{22,}$/);
    expect(first.url).not.toContain(ID_TOKEN);
    expect(endSessionRequest(serverWith(), ID_TOKEN)!.state).not.toBe(first.state);
  });

  it('carries the ID token as id_token_hint only when asked to, and only when there is one', () => {
    const hinted = endSessionRequest(serverWith(), ID_TOKEN, true)!;
    expect(paramsOf(hinted.url)).toEqual({
      id_token_hint: ID_TOKEN,
      client_id: 'spa',
      post_logout_redirect_uri: APP,
      state: hinted.state,
    });
    expect(paramsOf(endSessionRequest(serverWith(), undefined, true)!.url)).not.toHaveProperty('id_token_hint');
  });

  it('returns the person to the postLogoutRedirectUri the app names, else to the redirect URI', () => {
    const bye = 'https://app.example.test/signed-out?lang=en';
    expect(
      paramsOf(endSessionRequest({ ...serverWith(), postLogoutRedirectUri: bye }, ID_TOKEN)!.url).post_logout_redirect_uri,
    ).toBe(bye);
    expect(paramsOf(endSessionRequest(serverWith(), ID_TOKEN)!.url).post_logout_redirect_uri).toBe(APP);
  });

  it("keeps the endpoint's own query, and its parameters are ours, once each", () => {
    const { url, state } = endSessionRequest(serverWith(`${END}?ui=1&state=theirs&client_id=other`), ID_TOKEN)!;
    const params = new URL(url).searchParams;
    expect(params.get('ui')).toBe('1');
    expect(params.getAll('state')).toEqual([state]);
    expect(params.getAll('client_id')).toEqual(['spa']);
  });

  it('is nothing without an endpoint', () => {
    expect(endSessionRequest(serverWith(null), ID_TOKEN)).toBeUndefined();
  });
});

describe('revoke over a given network', () => {
  const SERVER = 'https://id.example.test';
  const serverOn = (network: Network): Server => ({
    as: { issuer: SERVER, token_endpoint: `${SERVER}/token`, revocation_endpoint: `${SERVER}/revoke` },
    client: { client_id: 'spa' },
    redirectUri: 'https://app.example.test/',
    scope: 'openid',
    resources: [],
    timeoutMs: 1000,
    network,
  });

  it.each(['access_token', 'refresh_token'] as const)('sends the token with token_type_hint=%s, kept alive', async (hint) => {
    const network = vi.fn<Network>(async () => new Response(null, { status: 200 }));
    await revoke(serverOn(network), 'tok-1', hint);
    const [request] = network.mock.calls[0];
    expect([request.method, request.url]).toEqual(['POST', `${SERVER}/revoke`]);
    const form = new URLSearchParams(await request.text());
    expect(Object.fromEntries(form)).toEqual({ token: 'tok-1', token_type_hint: hint, client_id: 'spa' });
    expect(request.keepalive).toBe(true);
    expect(request.credentials).toBe('omit');
  });

  it('rejects when the endpoint refuses, for the caller to ignore', async () => {
    const network = vi.fn<Network>(async () => json({ error: 'unsupported_token_type' }, 400));
    const refused = revoke(serverOn(network), 'tok-1', 'access_token');
    await expect(refused).rejects.toThrow(oauth.ResponseBodyError);
    await expect(refused).rejects.toMatchObject({ error: 'unsupported_token_type', status: 400 });
  });
});
