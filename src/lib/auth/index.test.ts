// Issue 3, "Public API": what other views get from one import, used the way main.ts and views use it.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { get } from 'svelte/store';
import { useAuthHarness } from '../../testing/auth-harness';
import { ALICE, API_URL, APP_URL, USERINFO_URL, allStorage, setPageUrl } from '../../testing/fake-idp';
import { authFetch, authResource, profileResource, session, signIn, signOut, startAuth, takeCallbackResponse } from '.';

const h = useAuthHarness();
const navigate = vi.fn<(route: string) => void>();
let started = false;

afterEach(() => {
  if (started) signOut();
  started = false;
  navigate.mockReset();
});

/** What main.ts does on a page load: take the callback from the URL first, then start. */
async function pageLoad(url = APP_URL) {
  setPageUrl(url);
  const callback = takeCallbackResponse();
  started = true;
  await startAuth(h.config, navigate, callback);
}

async function signInThroughTheApp(returnTo?: string) {
  await pageLoad();
  await signIn({ returnTo });
  await pageLoad(`${APP_URL}?${h.idp.approve(h.lastNavigation())}`);
}

describe('takeCallbackResponse', () => {
  it('takes a query response out of the URL with replaceState, keeping the app route', () => {
    setPageUrl(`${APP_URL}?code=c0de&state=st4te&iss=${encodeURIComponent('http://localhost:9010')}#/x`);
    const historyLength = history.length;
    const response = takeCallbackResponse();
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
      expect(takeCallbackResponse()?.params).toBeInstanceOf(URLSearchParams);
      expect(location.href).toBe(APP_URL);
    },
  );

  it.each(['#code=c&state=s', '#access_token=at&token_type=bearer', '#id_token=x.y.z'])(
    'takes a response smuggled in the fragment (%s) out of the URL and marks it',
    (hash) => {
      setPageUrl(APP_URL + hash);
      expect(takeCallbackResponse()?.inFragment).toBe(true);
      expect(location.href).toBe(APP_URL);
    },
  );

  it('leaves an ordinary URL alone', () => {
    setPageUrl(`${APP_URL}?utm=1#/profile`);
    expect(takeCallbackResponse()).toBeUndefined();
    expect(location.href).toBe(`${APP_URL}?utm=1#/profile`);
  });
});

describe('session, signIn, signOut', () => {
  it('the functions refuse to run before startAuth()', async () => {
    vi.resetModules();
    const fresh = await import('.');
    expect(() => fresh.signOut()).toThrow();
    expect(() => fresh.authFetch(API_URL)).toThrow();
  });

  it('the session store follows the sign-in and never carries a token', async () => {
    const states: string[] = [];
    const stop = session.subscribe((s) => states.push(JSON.stringify(s)));
    await signInThroughTheApp('/api');
    stop();
    expect(get(session)).toMatchObject({ status: 'signed-in', user: ALICE, error: null });
    expect(navigate).toHaveBeenLastCalledWith('/api');
    const issued = h.idp.issued[0];
    for (const state of states) expect(state).not.toContain(issued.access_token as string);
    expect(allStorage()).toBe('auth:hint=1');
  });

  it('authFetch carries the token to allow-listed origins only', async () => {
    await signInThroughTheApp();
    expect((await authFetch(API_URL)).status).toBe(200);
    await expect(authFetch('https://evil.example/')).rejects.toMatchObject({ code: 'forbidden_origin' });
  });

  it('signOut drops the session and shows the start page', async () => {
    await signInThroughTheApp();
    signOut();
    expect(get(session).status).toBe('signed-out');
    expect(navigate).toHaveBeenLastCalledWith('/');
    await expect(authFetch(API_URL)).rejects.toMatchObject({ code: 'unauthenticated' });
  });
});

describe('resources', () => {
  it('authResource loads JSON with the token', async () => {
    await signInThroughTheApp();
    const greeting = authResource<{ greeting: string }>(API_URL);
    const stop = greeting.subscribe(() => {});
    await vi.waitFor(() => expect(get(greeting)).toMatchObject({ status: 'ok', data: { greeting: 'Hello, Alice Liddell' } }));
    stop();
  });

  it('profileResource shows the profile of the sign-in without a second request, and reload() refetches', async () => {
    await signInThroughTheApp();
    const userinfoRequests = () => h.idp.to(USERINFO_URL).length;
    const afterSignIn = userinfoRequests();
    const profile = profileResource();
    const stop = profile.subscribe(() => {});
    expect(get(profile)).toMatchObject({ status: 'ok', data: ALICE });
    expect(userinfoRequests()).toBe(afterSignIn);
    h.idp.user = { ...ALICE, name: 'Alice L.' };
    profile.reload();
    await vi.waitFor(() => expect(get(profile).data).toMatchObject({ name: 'Alice L.' }));
    expect(userinfoRequests()).toBe(afterSignIn + 1);
    expect(h.idp.to(USERINFO_URL).at(-1)?.headers.get('authorization')).toBe(`Bearer ${h.idp.issued[0].access_token}`);
    stop();
  });

  it('profileResource refuses a userinfo answer for another subject', async () => {
    await signInThroughTheApp();
    const profile = profileResource();
    const stop = profile.subscribe(() => {});
    h.idp.user = { ...ALICE, sub: 'mallory-sub' };
    profile.reload();
    await vi.waitFor(() => expect(get(profile).status).toBe('error'));
    expect(get(profile).error?.code).toBe('invalid_response');
    expect(get(profile).data).toBeNull();
    stop();
  });
});
