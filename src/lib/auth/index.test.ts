// The public API (index.ts): one auth instance, as main.ts and the views use it. createAuth makes
// nothing happen until start(); start() completes a callback at the redirect URI and hands returnTo
// back; the app navigates, never the module.
import { describe, expect, expectTypeOf, it, vi } from 'vitest';
import { get } from 'svelte/store';
import { noSession, useAuthHarness } from './__fixtures__/harness';
import {
  ALICE,
  API_URL,
  APP_URL,
  FakeBroadcastChannel,
  TOKEN_URL,
  USERINFO_URL,
  setPageUrl,
  testOptions,
} from './__fixtures__/fake-idp';
import * as api from '.';
import { createAuth } from '.';
import { assembleAuth } from './auth';

const h = useAuthHarness();

describe('the public API', () => {
  it('exports exactly the documented values and no module-level session', () => {
    expect(Object.keys(api).sort()).toEqual([
      'AuthError',
      'authContext',
      'createAuth',
      'getAuth',
      'hintsOf',
      'setAuth',
      'stepUpFor',
    ]);
  });

  it('exports the documented types', () => {
    expectTypeOf<api.Auth>().toHaveProperty('start');
    expectTypeOf<api.AuthOptions>().toHaveProperty('redirectUri');
    expectTypeOf<api.SignInOptions>().toHaveProperty('returnTo');
    expectTypeOf<api.SignInOptions>().toHaveProperty('scope');
    expectTypeOf<api.SignInOptions>().toHaveProperty('acr_values');
    expectTypeOf<api.SignInOptions['max_age']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<api.AuthOptions['apis']>().toEqualTypeOf<Record<string, api.ApiOptions> | undefined>();
    expectTypeOf<api.ApiOptions>().toEqualTypeOf<{ resource: string; scope?: string; stepUpScopes?: string }>();
    expectTypeOf<api.AuthOptions['stepUpScopes']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<api.SignInOptions['resource']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<api.AuthErrorDetails['scope']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<api.AuthErrorDetails['resource']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<api.AuthErrorDetails['acr_values']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<api.AuthErrorDetails['max_age']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<
      'insufficient_user_authentication' | 'step_up_failed' | 'interaction_required' | 'scope_not_allowed'
    >().toExtend<api.AuthErrorCode>();
    expectTypeOf<api.StartOptions>().toHaveProperty('returnTo');
    expectTypeOf<api.StartResult>().toHaveProperty('returnTo');
    expectTypeOf<api.AuthErrorCode>().toExtend<string>();
    expectTypeOf<api.AuthErrorDetails>().toHaveProperty('host');
    expectTypeOf<api.StandardClaims>().toHaveProperty('sub');
    expectTypeOf<api.Resource<number>>().toHaveProperty('reload');
    expectTypeOf<api.ResourceOptions<number>>().toHaveProperty('read');
    expectTypeOf<api.ResourceState<number>>().toHaveProperty('status');
    expectTypeOf<api.ResourceStatus>().toExtend<string>();
    expectTypeOf<api.ResourceUrl>().toExtend<string | URL | null | (() => string | URL | null | undefined)>();
    expectTypeOf<api.ReactiveStore<number>>().toHaveProperty('current');
    expectTypeOf<api.SessionError>().toHaveProperty('returnTo');
    expectTypeOf<api.SessionState<{ sub: string; role: string }>['user']>().toEqualTypeOf<{ sub: string; role: string } | null>();
    expectTypeOf<api.SessionStatus>().toEqualTypeOf<
      'loading' | 'signed-out' | 'redirecting' | 'signed-in' | 'expired' | 'error'
    >();
  });
});

describe('nothing before start()', () => {
  it('createAuth reads no storage, opens no channel and sends nothing; the session is loading', () => {
    // createAuth's network is the global fetch: the fake identity service stands in for it here.
    h.idp.install();
    const getItem = vi.spyOn(Storage.prototype, 'getItem');
    const channels = FakeBroadcastChannel.open.size;
    const opened = vi.fn();
    vi.stubGlobal('BroadcastChannel', opened);
    const auth = createAuth(h.options);
    expect(auth.session.current).toEqual(noSession('loading'));
    expect(getItem).not.toHaveBeenCalled();
    expect(opened).not.toHaveBeenCalled();
    expect(FakeBroadcastChannel.open.size).toBe(channels);
    expect(h.idp.requests).toHaveLength(0);
    auth.destroy();
  });

  it('the browser is asked for only when start() runs, and once', async () => {
    const browser = vi.fn(h.port);
    const auth = assembleAuth(h.options, { browser, network: (r) => h.idp.fetch(r) });
    expect(browser).not.toHaveBeenCalled();
    await auth.start();
    await auth.signIn();
    expect(browser).toHaveBeenCalledTimes(1);
    auth.destroy();
  });

  it('requests go to the network it was given, never to the global fetch', async () => {
    const global = vi.fn<typeof fetch>();
    vi.stubGlobal('fetch', global);
    const network = vi.fn((request: Request) => h.idp.fetch(request));
    // The engine in this page makes the identity service's requests too (a shared worker has the worker's fetch).
    h.sharedWorkers = false;
    const authorizeUrl = await h.startSignIn();
    setPageUrl(`${APP_URL}?${h.idp.approve(authorizeUrl)}`);
    const auth = assembleAuth(h.options, { browser: h.port, network });
    await auth.start();
    expect(auth.session.current.status).toBe('signed-in');
    expect(network.mock.calls.map(([request]) => request.url)).toEqual([TOKEN_URL, USERINFO_URL]);
    expect((await auth.fetch(API_URL)).status).toBe(200);
    expect(network.mock.calls.at(-1)?.[0].url).toBe(API_URL);
    expect(global).not.toHaveBeenCalled();
    auth.destroy();
  });
});

describe('start()', () => {
  it('takes the callback from the URL itself and hands back the returnTo of its sign-in', async () => {
    const authorizeUrl = await h.startSignIn({ returnTo: '/api?tab=2' });
    setPageUrl(`${APP_URL}?${h.idp.approve(authorizeUrl)}`);
    const tab = h.newTab();
    expect(await tab.auth.start()).toEqual({ returnTo: '/api?tab=2' });
    expect(tab.state.status).toBe('signed-in');
    expect(location.search).toBe('');
  });

  it('never navigates within the app: the callback URL is only cleaned, and the identity service is the only place it went', async () => {
    const tab = await h.signIn({ returnTo: '/api' });
    expect(tab.started).toEqual({ returnTo: '/api' });
    expect(location.href).toBe(APP_URL);
    expect(h.assign).toHaveBeenCalledTimes(1);
    expect(h.assign.mock.calls[0][0]).toBe(tab.authorizeUrl);
  });

  it('keeps the hash route of a callback URL', async () => {
    const callback = h.idp.approve(await h.startSignIn());
    const tab = await h.loadAt(`${APP_URL}?${callback}#/api`);
    expect(tab.state.status).toBe('signed-in');
    expect(location.href).toBe(`${APP_URL}#/api`);
  });

  it('is {} without a callback, and {} for a callback that fails or answers nothing of this tab', async () => {
    expect((await h.loadAt(APP_URL)).started).toEqual({});
    const denied = await h.completeCallback(h.idp.deny(await h.startSignIn({ returnTo: '/api' })));
    expect(denied.state.status).toBe('error');
    expect(denied.started).toEqual({});
    const stale = await h.loadAt(`${APP_URL}?code=c&state=nobody`);
    expect(stale.state.error).toEqual({ code: 'unknown_transaction' });
    expect(stale.started).toEqual({});
  });

  it('only the redirect URI is a callback: a response-like query on another page is left alone, its sign-in still pending', async () => {
    const callback = h.idp.approve(await h.startSignIn());
    const elsewhere = await h.loadAt(`${APP_URL}orders?${callback}`);
    expect(elsewhere.state.status).toBe('signed-out');
    expect(elsewhere.started).toEqual({});
    expect(location.href).toBe(`${APP_URL}orders?${callback}`);
    expect(h.idp.tokenRequests()).toHaveLength(0);
    const tab = await h.completeCallback(callback);
    expect(tab.state.status).toBe('signed-in');
  });

  it('a redirect URI with a path and query of its own: its callback signs in and keeps that query in the URL', async () => {
    const options = testOptions({ redirectUri: 'http://localhost:5173/auth/done?tenant=a' });
    const authorizeUrl = await h.startSignIn({ options });
    expect(new URL(authorizeUrl).searchParams.get('redirect_uri')).toBe('http://localhost:5173/auth/done?tenant=a');
    const tab = await h.loadAt(`http://localhost:5173/auth/done?tenant=a&${h.idp.approve(authorizeUrl)}`, options);
    expect(tab.state.status).toBe('signed-in');
    expect(location.href).toBe('http://localhost:5173/auth/done?tenant=a');
    expect(h.idp.tokenRequests()[0].form.get('redirect_uri')).toBe('http://localhost:5173/auth/done?tenant=a');
  });

  it("a restore comes back to start()'s returnTo, or to the page when it is not a path of this origin", async () => {
    await h.signIn();
    for (const [returnTo, expected] of [
      ['/api?x=1', '/api?x=1'],
      ['https://evil.example/', '/notes?y=2'],
      ['//evil.example', '/notes?y=2'],
    ]) {
      await h.closeTabs();
      // The browser ended the app's worker with its last page: only the provider has the session now.
      h.endWorkers();
      setPageUrl(`${APP_URL}notes?y=2#/x`);
      h.reloaded = true;
      await h.newTab().auth.start({ returnTo });
      const back = await h.completeCallback(h.idp.approve(h.lastNavigation()));
      expect(back.started, returnTo).toEqual({ returnTo: expected });
    }
  });
});

describe('signIn()', () => {
  it("comes back by default to the page's path and query, without its fragment", async () => {
    setPageUrl(`${APP_URL}orders?page=2#section`);
    const tab = h.newTab();
    await tab.auth.start();
    await tab.auth.signIn();
    const back = await h.completeCallback(h.idp.approve(h.lastNavigation()));
    expect(back.started).toEqual({ returnTo: '/orders?page=2' });
  });

  it.each(['https://evil.example/', '//evil.example/x', '/\\evil.example', 'javascript:alert(1)', '/..//evil.example'])(
    'a returnTo that could leave the origin (%s) is never handed back',
    async (returnTo) => {
      const tab = await h.signIn({ returnTo });
      expect(tab.started?.returnTo).toMatch(/^\/(?![/\\])/);
    },
  );

  it('keeps an app path with its query exactly', async () => {
    expect((await h.signIn({ returnTo: '/notes/7?mode=edit' })).started).toEqual({ returnTo: '/notes/7?mode=edit' });
  });
});

describe('one instance', () => {
  it('session is a store and has a reactive current; neither carries a token', async () => {
    const states: string[] = [];
    const tab = h.newTab();
    const stop = tab.auth.session.subscribe((s) => states.push(JSON.stringify(s)));
    const signedIn = await h.signIn();
    stop();
    expect(get(signedIn.auth.session)).toEqual(signedIn.auth.session.current);
    expect(signedIn.auth.session.current).toMatchObject({ status: 'signed-in', user: ALICE, error: null });
    const seen = JSON.stringify(signedIn.auth.session.current);
    for (const state of [...states, seen]) expect(state).not.toContain(h.idp.issued[0].access_token as string);
  });

  it("instances of two clients keep separate sessions: one's sign-in is nothing to the other", async () => {
    const signedIn = await h.signIn();
    const other = await h.loadAt(APP_URL, testOptions({ clientId: 'other-spa' }));
    expect(signedIn.state.status).toBe('signed-in');
    expect(other.state.status).toBe('signed-out');
    await expect(other.auth.fetch(API_URL)).rejects.toMatchObject({ code: 'unauthenticated' });
    expect(other.state.status).toBe('signed-out');
    expect(h.workers.size).toBe(2);
  });

  it('destroy() removes its listeners, timers, channel and engine, and lets go of its lock: nothing acts afterwards', async () => {
    vi.useFakeTimers();
    h.idp.refreshTokens = true;
    // The engine in this page is the instance's own: it goes with it.
    h.sharedWorkers = false;
    const tab = await h.signIn();
    const channels = FakeBroadcastChannel.open.size;
    expect(h.locks.held()).toHaveLength(1);
    tab.auth.destroy();
    await vi.waitFor(() => expect(h.locks.held()).toEqual([]));
    expect(FakeBroadcastChannel.open.size).toBe(channels - 1);
    const requests = h.idp.requests.length;
    window.dispatchEvent(new Event('online'));
    document.dispatchEvent(new Event('visibilitychange'));
    await vi.advanceTimersByTimeAsync(24 * 60 * 60 * 1000);
    expect(h.idp.requests.length).toBe(requests);
  });

  it('createAuth completes a callback over the real browser port and the global fetch', async () => {
    h.idp.install();
    const url = await h.startSignIn();
    setPageUrl(`${APP_URL}?${h.idp.approve(url)}`);
    const auth = createAuth(testOptions());
    await auth.start();
    expect(auth.session.current.status).toBe('signed-in');
    expect(h.idp.tokenRequests('authorization_code')).toHaveLength(1);
    auth.destroy();
  });

  it('createAuth with the real browser port needs no harness: it reads location and storage', async () => {
    h.idp.install();
    const auth = createAuth(testOptions());
    await auth.start();
    expect(auth.session.current.status).toBe('signed-out');
    expect(h.idp.requests).toHaveLength(0);
    auth.destroy();
  });
});

describe('defaults and late answers', () => {
  it('with only the required options: scope openid (so a nonce), and only userinfo may receive the token', async () => {
    const { server, clientId, redirectUri } = h.options;
    const minimal = () => assembleAuth({ server, clientId, redirectUri }, { browser: h.port, network: (r) => h.idp.fetch(r) });
    const first = minimal();
    await first.start();
    await first.signIn();
    const url = new URL(h.lastNavigation());
    expect(url.searchParams.get('scope')).toBe('openid');
    expect(url.searchParams.get('nonce')).toBeTruthy();
    first.destroy();
    setPageUrl(`${APP_URL}?${h.idp.approve(url.href)}`);
    const auth = minimal();
    await auth.start();
    expect(auth.session.current.status).toBe('signed-in');
    expect((await auth.fetch(USERINFO_URL)).status).toBe(200);
    await expect(auth.fetch(API_URL)).rejects.toMatchObject({ code: 'forbidden_origin' });
    auth.destroy();
  });

  it('a sign-out while the code is being exchanged wins: the late answer signs nobody in', async () => {
    const callback = h.idp.approve(await h.startSignIn());
    let release!: () => void;
    const hold = new Promise<void>((resolve) => (release = resolve));
    h.idp.userinfo = async (request, standard) => (await hold, standard(request));
    setPageUrl(`${APP_URL}?${callback}`);
    const tab = h.newTab();
    const started = tab.auth.start();
    await vi.waitFor(() => expect(h.idp.to(USERINFO_URL)).toHaveLength(1));
    tab.auth.signOut();
    release();
    await started;
    expect(tab.state.status).toBe('signed-out');
    await expect(tab.auth.fetch(API_URL)).rejects.toMatchObject({ code: 'unauthenticated' });
  });
});

it('a failure that is no protocol error (the browser refusing a lock) still ends in an alert, and is thrown on', async () => {
  const callback = h.idp.approve(await h.startSignIn());
  const refused = new DOMException('locks', 'SecurityError');
  vi.spyOn(h.locks, 'request').mockImplementation(() => {
    throw refused;
  });
  setPageUrl(`${APP_URL}?${callback}`);
  const tab = h.newTab();
  await expect(tab.auth.start()).rejects.toBe(refused);
  expect(tab.state).toMatchObject({ status: 'error', user: null, error: { code: 'invalid_response' } });
  expect(h.idp.tokenRequests()).toHaveLength(0);
});

describe('before start()', () => {
  it("auth.fetch resolves a relative URL against the page's, and sends nothing without a session", async () => {
    const network = vi.fn<(request: Request) => Promise<Response>>();
    const auth = assembleAuth(h.options, { browser: h.port, network });
    await expect(auth.fetch('/api')).rejects.toMatchObject({ code: 'forbidden_origin' });
    await expect(auth.fetch(API_URL)).rejects.toMatchObject({ code: 'unauthenticated' });
    await expect(auth.fetch(USERINFO_URL)).rejects.toMatchObject({ code: 'unauthenticated' });
    expect(network).not.toHaveBeenCalled();
    expect(auth.session.current.status).toBe('loading');
    auth.destroy();
  });
});
