// The authorization round trip (signin.ts). The response in the URL: only the redirect URI's own origin
// and path is a callback, and only response parameters leave the URL (RFC 6749 §4.1.2, RFC 9207, RFC
// 9700 §2.1.2); the app's place to come back to never leaves its origin. Then through an instance over
// the fake identity service, observed at the edges (requests on the wire, storage, URL, session store):
// a silent restore after a reload.
import { describe, expect, it, vi } from 'vitest';
import { useAuthHarness } from '../../testing/auth-harness';
import { APP_URL, NAMES, allStorage, json, setPageUrl } from '../../testing/fake-idp';
import { safeReturnTo, takeCallbackResponse } from './signin';

const h = useAuthHarness();

const REDIRECT_URI = 'https://app.example.test/';

/** The page at `url`; `rewrite` records what the URL became. */
function page(url: string) {
  const browser = { href: url, url: () => browser.href, rewrite: vi.fn((next: string) => (browser.href = next)) };
  return browser;
}

describe('takeCallbackResponse', () => {
  it('takes a query response out of the URL with one rewrite, keeping the hash route', () => {
    const browser = page(`${REDIRECT_URI}?code=c0de&state=st4te&iss=${encodeURIComponent('https://id.example.test')}#/x`);
    const response = takeCallbackResponse(browser, REDIRECT_URI);
    expect(response?.params.get('code')).toBe('c0de');
    expect(response?.params.get('state')).toBe('st4te');
    expect(response?.params.get('iss')).toBe('https://id.example.test');
    expect(response?.inFragment).toBe(false);
    expect(browser.rewrite).toHaveBeenCalledExactlyOnceWith(`${REDIRECT_URI}#/x`);
  });

  it.each(['?error=access_denied&error_description=no&state=s', '?state=s', '?code=c', '?access_token=at&token_type=bearer'])(
    'recognises %s as a response and removes it',
    (query) => {
      const browser = page(REDIRECT_URI + query);
      expect(takeCallbackResponse(browser, REDIRECT_URI)?.params).toBeInstanceOf(URLSearchParams);
      expect(browser.href).toBe(REDIRECT_URI);
    },
  );

  it("removes only response parameters: the redirect URI's own query and the app's other parameters stay", () => {
    const redirectUri = 'https://app.example.test/auth/callback?tenant=a';
    const response = [
      'code=c',
      'state=s',
      'iss=i',
      'error=e',
      'error_description=d',
      'error_uri=u',
      'session_state=ss',
      'access_token=at',
      'id_token=it',
      'token_type=bearer',
      'expires_in=3600',
    ].join('&');
    const browser = page(`https://app.example.test/auth/callback?tenant=a&${response}&utm=1`);
    const taken = takeCallbackResponse(browser, redirectUri);
    expect(taken?.params.get('code')).toBe('c');
    expect(browser.href).toBe('https://app.example.test/auth/callback?tenant=a&utm=1');
  });

  it.each(['#code=c&state=s', '#access_token=at&token_type=bearer', '#id_token=x.y.z', '#error=access_denied'])(
    'takes a response smuggled in the fragment (%s) out of the URL and marks it',
    (hash) => {
      const browser = page(REDIRECT_URI + hash);
      expect(takeCallbackResponse(browser, REDIRECT_URI)?.inFragment).toBe(true);
      expect(browser.href).toBe(REDIRECT_URI);
    },
  );

  it("a fragment starting with '/' is a hash route, never a response", () => {
    const browser = page(`${REDIRECT_URI}#/orders?code=c&state=s`);
    expect(takeCallbackResponse(browser, REDIRECT_URI)).toBeUndefined();
    expect(browser.rewrite).not.toHaveBeenCalled();
  });

  it('leaves an ordinary URL of the redirect URI alone', () => {
    const browser = page(`${REDIRECT_URI}?utm=1#/profile`);
    expect(takeCallbackResponse(browser, REDIRECT_URI)).toBeUndefined();
    expect(browser.rewrite).not.toHaveBeenCalled();
  });

  it.each([
    ['another path', 'https://app.example.test/orders?code=c&state=s'],
    ['a longer path', 'https://app.example.test/auth/callback/x?code=c&state=s'],
    ['another origin', 'https://other.example.test/auth/callback?code=c&state=s'],
    ['another port', 'https://app.example.test:8443/auth/callback?code=c&state=s'],
    ['another scheme', 'http://app.example.test/auth/callback?code=c&state=s'],
  ])('any page but the redirect URI (%s) is no callback, whatever its query', (_name, url) => {
    const browser = page(url);
    expect(takeCallbackResponse(browser, 'https://app.example.test/auth/callback')).toBeUndefined();
    expect(browser.rewrite).not.toHaveBeenCalled();
  });

  it("the redirect URI's own query is no part of the match: its path is the callback whatever the query", () => {
    const browser = page('https://app.example.test/auth/callback?code=c&state=s');
    expect(takeCallbackResponse(browser, 'https://app.example.test/auth/callback?tenant=a')?.params.get('code')).toBe('c');
  });
});

describe('safeReturnTo', () => {
  it.each(['//evil.example', '/\\evil.example', 'https://evil.example', ' /profile', 42, null, '', '/' + 'x'.repeat(600)])(
    '%j is refused',
    (input) => {
      expect(safeReturnTo(input)).toBeUndefined();
    },
  );

  it.each(['/..//evil.example', '/.//evil.example', '/a/..//evil.example', '/\t/evil.example', '/\n/evil.example'])(
    '%j never yields a path starting with //',
    (input) => {
      const path = safeReturnTo(input);
      expect(path === undefined || !path.startsWith('//')).toBe(true);
    },
  );

  it('keeps path and query, normalised, and drops a fragment', () => {
    expect(safeReturnTo('/orders?page=2')).toBe('/orders?page=2');
    expect(safeReturnTo('/x/../api?x=1#top')).toBe('/api?x=1');
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
      expect(tab.state).toEqual({ status: 'signed-out', user: null, expiresAt: null, error: null });
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
