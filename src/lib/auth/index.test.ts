// The public API (index.ts): one auth instance, as main.ts and the views use it.
import { describe, expect, it, vi } from 'vitest';
import { get } from 'svelte/store';
import { useAuthHarness } from '../../testing/auth-harness';
import { ALICE, API_URL, APP_URL, FakeBroadcastChannel, USERINFO_URL, setPageUrl, testConfig } from '../../testing/fake-idp';
import { authOptions } from '../../config';
import * as api from '.';
import { createAuth, takeCallbackResponse } from '.';

const h = useAuthHarness();

describe('takeCallbackResponse', () => {
  const take = () => takeCallbackResponse(h.port());

  it('takes a query response out of the URL with replaceState, keeping the app route', () => {
    setPageUrl(`${APP_URL}?code=c0de&state=st4te&iss=${encodeURIComponent('http://localhost:9010')}#/x`);
    const historyLength = history.length;
    const response = take();
    expect(response?.params.get('code')).toBe('c0de');
    expect(response?.params.get('state')).toBe('st4te');
    expect(response?.params.get('iss')).toBe('http://localhost:9010');
    expect(response?.inFragment).toBe(false);
    expect(location.href).toBe(`${APP_URL}#/x`);
    expect(history.length).toBe(historyLength);
  });

  it.each(['?error=access_denied&error_description=no&state=s', '?state=s', '?code=c'])(
    'recognises %s as a response',
    (query) => {
      setPageUrl(APP_URL + query);
      expect(take()?.params).toBeInstanceOf(URLSearchParams);
      expect(location.href).toBe(APP_URL);
    },
  );

  it.each(['#code=c&state=s', '#access_token=at&token_type=bearer', '#id_token=x.y.z'])(
    'takes a response smuggled in the fragment (%s) out of the URL and marks it',
    (hash) => {
      setPageUrl(APP_URL + hash);
      expect(take()?.inFragment).toBe(true);
      expect(location.href).toBe(APP_URL);
    },
  );

  it('leaves an ordinary URL alone', () => {
    setPageUrl(`${APP_URL}?utm=1#/profile`);
    expect(take()).toBeUndefined();
    expect(location.href).toBe(`${APP_URL}?utm=1#/profile`);
  });

  it('start() takes the callback from the URL itself when none is given', async () => {
    const authorizeUrl = await h.startSignIn();
    setPageUrl(`${APP_URL}?${h.idp.approve(authorizeUrl)}`);
    const tab = h.newTab();
    await tab.auth.start();
    expect(tab.state.status).toBe('signed-in');
    expect(location.search).toBe('');
  });
});

describe('one instance', () => {
  it('exports exactly the documented names and no module-level session', () => {
    expect(Object.keys(api).sort()).toEqual(
      [
        'AuthError',
        'authContext',
        'browserPort',
        'createAuth',
        'getAuth',
        'isLoopbackHost',
        'safeRoute',
        'safeText',
        'setAuth',
        'takeCallbackResponse',
      ].sort(),
    );
  });

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

  it('two instances keep separate sessions', async () => {
    const signedIn = await h.signIn();
    const other = h.newTab();
    await other.auth.start();
    expect(signedIn.state.status).toBe('signed-in');
    expect(other.state.status).not.toBe('signed-in');
    await expect(other.auth.fetch(API_URL)).rejects.toMatchObject({ code: 'unauthenticated' });
  });

  it('destroy() removes its listeners, timers and channel: nothing acts afterwards', async () => {
    vi.useFakeTimers();
    h.idp.refreshTokens = true;
    const tab = await h.signIn();
    const channels = FakeBroadcastChannel.open.size;
    tab.auth.destroy();
    expect(FakeBroadcastChannel.open.size).toBe(channels - 1);
    const requests = h.idp.requests.length;
    window.dispatchEvent(new Event('online'));
    document.dispatchEvent(new Event('visibilitychange'));
    await vi.advanceTimersByTimeAsync(24 * 60 * 60 * 1000);
    expect(h.idp.requests.length).toBe(requests);
    await expect(tab.auth.fetch(API_URL)).rejects.toMatchObject({ code: 'unauthenticated' });
  });

  it('createAuth with the real browser port needs no harness: it reads location and storage', async () => {
    const auth = createAuth(authOptions(testConfig()));
    await auth.start();
    expect(auth.session.current.status).toBe('signed-out');
    auth.destroy();
  });
});

describe('defaults and late answers', () => {
  it('with only the required options: scope openid (so a nonce), and only userinfo may receive the token', async () => {
    const { server, clientId, redirectUri } = authOptions(h.config);
    const browser = h.port();
    const auth = createAuth({ server, clientId, redirectUri, browser });
    await auth.start();
    await auth.signIn();
    const url = new URL(h.lastNavigation());
    expect(url.searchParams.get('scope')).toBe('openid');
    expect(url.searchParams.get('nonce')).toBeTruthy();
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

it('a failure that is no protocol error (storage refusing a write) still ends in an alert, and is thrown on', async () => {
  const callback = h.idp.approve(await h.startSignIn());
  const refused = new DOMException('quota', 'QuotaExceededError');
  vi.spyOn(localStorage, 'setItem').mockImplementation(() => {
    throw refused;
  });
  setPageUrl(`${APP_URL}?${callback}`);
  const tab = h.newTab();
  await expect(tab.auth.start()).rejects.toBe(refused);
  expect(tab.state).toMatchObject({ status: 'error', user: null, error: { code: 'invalid_response' } });
});
