// The authorization round trip (signin.ts). The response in the URL: only the redirect URI's own origin
// and path is a callback, and only response parameters leave the URL (RFC 6749 §4.1.2, RFC 9207, RFC
// 9700 §2.1.2); the app's place to come back to never leaves its origin. Then through an instance over
// the fake identity service, observed at the edges (requests on the wire, storage, URL, session store):
// what the app sends to the identity service, what it accepts back, what it leaves behind; a reload that
// shows the engine's session, or restores it silently where the engine has none; a stranger's page; two
// instances on one page; the whole flow in both hosts; and the provider's sign-out coming back.
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import * as oauth from 'oauth4webapi';
import { noSession, useAuthHarness } from '../__fixtures__/harness';
import {
  ACCOUNT_URL,
  ALICE,
  APP_URL,
  AUTHORIZE_URL,
  CLIENT_ID,
  END_SESSION_URL,
  NAMES,
  REVOCATION_URL,
  TOKEN_URL,
  USERINFO_URL,
  allStorage,
  idTokenClaims,
  json,
  setPageUrl,
  testOptions,
  unsignedIdToken,
} from '../__fixtures__/fake-idp';
import { assembleAuth } from '../auth';
import { AuthError } from '../protocol/errors';
import type { StandardClaims } from '../protocol/steps';
import { createEvents } from './events';
import { createSession } from '../svelte/session';
import { safeReturnTo, takeCallbackResponse, takeSignOutReturn } from '../protocol/callback';

const h = useAuthHarness();

const REDIRECT_URI = 'https://app.example.test/';
/** Every name an authorization response, or a token answer in a URL, may carry (`scope` aside). */
const RESPONSE_NAMES = [
  'code',
  'state',
  'iss',
  'error',
  'error_description',
  'error_uri',
  'session_state',
  'access_token',
  'id_token',
  'refresh_token',
  'token_type',
  'expires_in',
  'response',
  'token',
];
const SECRET = 's3cret-v4lue';
/** An unsigned JWT, as a JARM answer carries one. */
const JWT = 'eyJhbGciOiJub25lIn0.eyJjb2RlIjoiYyIsInN0YXRlIjoicyJ9.';

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
      'refresh_token=rt',
      'token_type=bearer',
      'expires_in=3600',
      'scope=openid',
      'response=jw.t',
      'token=t',
    ].join('&');
    const browser = page(`https://app.example.test/auth/callback?tenant=a&${response}&utm=1`);
    const taken = takeCallbackResponse(browser, redirectUri);
    expect(taken?.params.get('code')).toBe('c');
    expect(browser.href).toBe('https://app.example.test/auth/callback?tenant=a&utm=1');
  });

  it.each(RESPONSE_NAMES)(
    "%s alone makes a callback, ours or not: it leaves the URL, the app's own query and its hash route stay",
    (name) => {
      const browser = page(`${REDIRECT_URI}auth?tenant=a&${name}=${SECRET}&utm=1#/orders?id=7`);
      expect(takeCallbackResponse(browser, `${REDIRECT_URI}auth?tenant=a`)?.params.get(name)).toBe(SECRET);
      expect(browser.rewrite).toHaveBeenCalledExactlyOnceWith(`${REDIRECT_URI}auth?tenant=a&utm=1#/orders?id=7`);
    },
  );

  it('a JARM answer (`response`, a JWT, no state) leaves the URL with nothing of it left', () => {
    const browser = page(`${REDIRECT_URI}?response=${JWT}`);
    expect(takeCallbackResponse(browser, REDIRECT_URI)?.params.get('response')).toBe(JWT);
    expect(browser.href).toBe(REDIRECT_URI);
  });

  it("`scope` alone is the app's own: no callback, nothing removed; with a response it goes too", () => {
    const own = page(`${REDIRECT_URI}?scope=mine#/x`);
    expect(takeCallbackResponse(own, REDIRECT_URI)).toBeUndefined();
    expect(own.rewrite).not.toHaveBeenCalled();
    const answer = page(`${REDIRECT_URI}?scope=openid&code=c&state=s#/x`);
    expect(takeCallbackResponse(answer, REDIRECT_URI)?.params.get('scope')).toBe('openid');
    expect(answer.href).toBe(`${REDIRECT_URI}#/x`);
  });

  it.each([...RESPONSE_NAMES.map((name) => `#${name}=${SECRET}`), '#access_token=at&token_type=bearer&scope=openid'])(
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

describe('takeSignOutReturn', () => {
  const at = (url: string) => {
    const rewrite = vi.fn();
    return { rewrite, browser: { url: () => url, rewrite } };
  };

  it('takes one state at exactly the URI, keeping its query and fragment', () => {
    const { browser, rewrite } = at('https://app.test/bye?lang=en&state=s1#top');
    expect(takeSignOutReturn(browser, 'https://app.test/bye?lang=en')).toEqual({
      params: new URLSearchParams({ state: 's1' }),
      inFragment: false,
    });
    expect(rewrite).toHaveBeenCalledWith('https://app.test/bye?lang=en#top');
  });

  it.each([
    ['another path', 'https://app.test/other?state=s1'],
    ['another origin', 'https://evil.test/bye?state=s1'],
    ['a query of the app beside state', 'https://app.test/bye?state=s1&page=2'],
    ['two states', 'https://app.test/bye?state=s1&state=s2'],
    ['no state', 'https://app.test/bye'],
    ['a sign-in response', 'https://app.test/bye?code=c&state=s1'],
  ])('leaves %s alone', (_, url) => {
    const { browser, rewrite } = at(url);
    expect(takeSignOutReturn(browser, 'https://app.test/bye')).toBeUndefined();
    expect(rewrite).not.toHaveBeenCalled();
  });

  it('is nothing without the option', () => {
    const { browser, rewrite } = at('https://app.test/?state=s1');
    expect(takeSignOutReturn(browser, undefined)).toBeUndefined();
    expect(rewrite).not.toHaveBeenCalled();
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

/** The pending transaction stored for `state`: the one of this tab, under the contract's key. */
function pendingFor(state: string): Record<string, unknown> {
  const raw = sessionStorage.getItem(NAMES.key('tx'));
  expect(raw, 'sessionStorage auth:tx').toBeTruthy();
  const pending = JSON.parse(raw!);
  expect(pending.state).toBe(state);
  return pending;
}

/** The stored string whose S256 hash is `challenge`: the verifier, whatever the field is called. */
async function storedVerifierFor(state: string, challenge: string): Promise<string | undefined> {
  for (const value of Object.values(pendingFor(state))) {
    if (typeof value === 'string' && (await oauth.calculatePKCECodeChallenge(value)) === challenge) return value;
  }
  return undefined;
}

describe('authorization request', () => {
  it('is a top-level navigation with every required parameter and an S256 challenge of the stored verifier', async () => {
    const url = new URL(await h.startSignIn());
    expect(url.origin + url.pathname).toBe(AUTHORIZE_URL);
    const p = url.searchParams;
    expect(p.get('client_id')).toBe(CLIENT_ID);
    expect(p.get('response_type')).toBe('code');
    expect(p.get('scope')).toBe('openid profile email service.api');
    expect(p.get('redirect_uri')).toBe(APP_URL);
    expect(p.get('code_challenge_method')).toBe('S256');
    expect(p.get('state')).toMatch(/^[\w-]{22,}$/);
    expect(p.get('nonce')).toMatch(/^[\w-]{22,}$/);
    expect(p.has('prompt')).toBe(false);
    const verifier = await storedVerifierFor(p.get('state')!, p.get('code_challenge')!);
    expect(verifier).toMatch(/^[\w-]{43,128}$/);
    // The verifier itself never travels in the front channel.
    expect(url.href).not.toContain(verifier);
  });

  it('uses a fresh verifier, state and nonce for every attempt', async () => {
    const first = new URL(await h.startSignIn()).searchParams;
    const second = new URL(await h.startSignIn()).searchParams;
    for (const name of ['state', 'nonce', 'code_challenge']) expect(second.get(name)).not.toBe(first.get(name));
  });

  it('sends no nonce when the scope does not contain openid', async () => {
    const url = new URL(await h.startSignIn({ options: testOptions({ scope: 'profile service.api' }) }));
    expect(url.searchParams.get('scope')).toBe('profile service.api');
    expect(url.searchParams.has('nonce')).toBe(false);
  });

  it('uses a configured redirect URI verbatim', async () => {
    const options = testOptions({ redirectUri: 'http://localhost:5173/app/' });
    const url = new URL(await h.startSignIn({ options }));
    expect(url.searchParams.get('redirect_uri')).toBe('http://localhost:5173/app/');
  });

  it('shows "redirecting" while the browser leaves', async () => {
    const tab = h.newTab();
    await tab.auth.start();
    expect(tab.state.status).toBe('signed-out');
    await tab.auth.signIn();
    expect(tab.state.status).toBe('redirecting');
  });
});

describe('successful callback', () => {
  it('exchanges the code once with code, identical redirect_uri, code_verifier and client_id, and no secret', async () => {
    const authorizeUrl = await h.startSignIn();
    const challenge = new URL(authorizeUrl).searchParams.get('code_challenge')!;
    const callback = h.idp.approve(authorizeUrl);
    const tab = await h.completeCallback(callback);

    const tokenRequests = h.idp.tokenRequests();
    expect(tokenRequests).toHaveLength(1);
    const [request] = tokenRequests;
    expect(request.method).toBe('POST');
    expect(request.headers.get('content-type')).toMatch(/^application\/x-www-form-urlencoded/);
    expect(request.headers.has('authorization')).toBe(false);
    const form = request.form;
    expect(form.get('grant_type')).toBe('authorization_code');
    expect(form.get('code')).toBe(callback.get('code'));
    expect(form.get('redirect_uri')).toBe(new URL(authorizeUrl).searchParams.get('redirect_uri'));
    expect(form.get('client_id')).toBe(CLIENT_ID);
    expect(await oauth.calculatePKCECodeChallenge(form.get('code_verifier')!)).toBe(challenge);
    expect(form.has('client_secret')).toBe(false);
    expect(request.init.credentials).toBe('omit');
    expect(tab.state.status).toBe('signed-in');
  });

  it('reads the profile from userinfo with the Bearer token and hands back the returnTo', async () => {
    const tab = await h.signIn({ returnTo: '/api' });
    const [userinfo] = h.idp.to(USERINFO_URL);
    expect(h.idp.to(USERINFO_URL)).toHaveLength(1);
    expect(userinfo.method).toBe('GET');
    expect(userinfo.headers.get('accept')).toBe('application/json');
    const token = userinfo.headers.get('authorization')?.replace(/^Bearer /, '');
    expect(h.idp.validAccessTokens.has(token!)).toBe(true);
    expect(tab.state).toMatchObject({ status: 'signed-in', user: ALICE, error: null });
    expect(tab.state.expiresAt).toBeGreaterThan(Date.now());
    expect(tab.started).toEqual({ returnTo: '/api' });
  });

  it("hands back the page's path without a returnTo, and for off-origin ones", async () => {
    for (const returnTo of [undefined, 'https://evil.example/', '//evil.example/x', '/\\evil.example', 'javascript:alert(1)']) {
      const tab = await h.signIn({ returnTo });
      expect(tab.started, String(returnTo)).toEqual({ returnTo: '/' });
    }
  });

  it('never hands back a returnTo that starts with // (it is a path of this origin only)', async () => {
    // "/..//evil.example" starts with a single slash but normalises to "//evil.example".
    const tab = await h.signIn({ returnTo: '/..//evil.example' });
    expect(tab.started?.returnTo?.startsWith('//')).toBe(false);
  });

  it('leaves no token, code, state, nonce or verifier in storage, the URL or the session store', async () => {
    const tab = await h.signIn();
    const [exchange] = h.idp.tokenRequests();
    const [tokenBody] = h.idp.issued;
    const secrets: Record<string, unknown> = {
      code: tab.callback.get('code'),
      state: tab.callback.get('state'),
      nonce: new URL(tab.authorizeUrl).searchParams.get('nonce'),
      code_verifier: exchange.form.get('code_verifier'),
      access_token: tokenBody.access_token,
      id_token: tokenBody.id_token,
    };
    const exposed = `${allStorage()}\n${location.href}\n${JSON.stringify(tab.state)}`;
    for (const [name, secret] of Object.entries(secrets)) {
      expect(typeof secret === 'string' && secret.length > 0, name).toBe(true);
      expect(exposed, name).not.toContain(secret as string);
    }
    expect(location.search).toBe('');
    expect(Object.keys(localStorage)).toEqual([NAMES.key('hint')]);
    expect(localStorage.getItem(NAMES.key('hint'))).toBe('1');
    expect(Object.keys(sessionStorage).filter((key) => key.startsWith('auth:tx'))).toEqual([]);
  });

  it('keeps a refresh token out of storage and the store as well', async () => {
    h.idp.refreshTokens = true;
    const tab = await h.signIn();
    const refreshToken = h.idp.currentRefreshToken!;
    expect(refreshToken).toBeTruthy();
    expect(`${allStorage()}\n${location.href}\n${JSON.stringify(tab.state)}`).not.toContain(refreshToken);
  });

  it('accepts an ID token whose signature is not checked (code flow over TLS), as oauth4webapi documents', async () => {
    // The fake's ID tokens carry a junk signature; the sign-in still succeeds, which is why the
    // claim checks below (iss, aud, exp, nonce) are the ones that matter.
    const tab = await h.signIn();
    expect(tab.state.status).toBe('signed-in');
  });
});

describe('callbacks that must not reach the token endpoint', () => {
  it.each([
    [
      'a JARM answer (`response`, a JWT)',
      (cb: URLSearchParams) => `response=${unsignedIdToken({ code: cb.get('code'), state: cb.get('state') })}`,
    ],
    ['an ID token', () => `id_token=${unsignedIdToken(idTokenClaims('alice-sub', 'n'))}&session_state=ss`],
    ['a token of a non-standard server', () => 'token=tk-smuggled-0123456789&scope=openid'],
    ['an error without state', () => 'error=access_denied&error_description=no'],
    ['a code without state', (cb: URLSearchParams) => `code=${cb.get('code')}&iss=${encodeURIComponent(ACCOUNT_URL)}`],
  ])(
    '%s answering no sign-in of this tab: no token request, a notice, every parameter gone, the hash route kept',
    async (_name, query) => {
      const authorizeUrl = await h.startSignIn();
      const tab = await h.loadAt(`${APP_URL}?${query(h.idp.approve(authorizeUrl))}#/api`);
      expect(h.idp.tokenRequests()).toHaveLength(0);
      expect(tab.state).toMatchObject({ status: 'signed-out', error: { code: 'unknown_transaction' }, known: false });
      expect(location.href).toBe(`${APP_URL}#/api`);
    },
  );

  it.each([
    ['a wrong state', (cb: URLSearchParams) => cb.set('state', 'forged-state-value-0123456789')],
    ['no state', (cb: URLSearchParams) => cb.delete('state')],
  ])('%s: no token request, signed out with a notice', async (_name, tamper) => {
    const callback = h.idp.approve(await h.startSignIn());
    tamper(callback);
    const tab = await h.completeCallback(callback);
    expect(h.idp.tokenRequests()).toHaveLength(0);
    expect(tab.state.status).toBe('signed-out');
    expect(tab.state.error?.code).toBe('unknown_transaction');
    // The pending sign-in of this tab is gone too: a forged link burns it.
    expect(Object.keys(sessionStorage).filter((key) => key.startsWith('auth:tx'))).toEqual([]);
  });

  it('no pending transaction at all (another tab, forged link): no token request', async () => {
    const callback = h.idp.approve(await h.startSignIn());
    sessionStorage.clear();
    const tab = await h.completeCallback(callback);
    expect(h.idp.tokenRequests()).toHaveLength(0);
    expect(tab.state.error?.code).toBe('unknown_transaction');
    expect(h.idp.requests).toHaveLength(0);
  });

  it('a pending transaction older than 10 minutes is not honoured', async () => {
    const authorizeUrl = await h.startSignIn();
    const callback = h.idp.approve(authorizeUrl);
    vi.useFakeTimers({ now: Date.now() + 10 * 60 * 1000 + 1 });
    const tab = await h.completeCallback(callback);
    expect(h.idp.tokenRequests()).toHaveLength(0);
    expect(tab.state.error?.code).toBe('unknown_transaction');
  });

  it.each([
    ['a code', (cb: URLSearchParams) => `#${cb}`],
    ['tokens (implicit style)', () => '#access_token=at-smuggled&token_type=bearer&state=x'],
  ])('a response in the fragment with %s: no token request, refused, URL cleaned', async (_name, fragment) => {
    const authorizeUrl = await h.startSignIn();
    const tab = await h.loadAt(APP_URL + fragment(h.idp.approve(authorizeUrl)));
    expect(h.idp.tokenRequests()).toHaveLength(0);
    expect(tab.state.status).not.toBe('signed-in');
    expect(location.href).toBe(APP_URL);
  });

  it('reloading the callback URL sends no second token request for the code', async () => {
    const tab = await h.signIn();
    expect(h.idp.tokenRequests()).toHaveLength(1);
    await h.completeCallback(tab.callback);
    expect(h.idp.tokenRequests()).toHaveLength(1);
    expect(h.idp.tokenRequests().filter((r) => r.form.get('code') === tab.callback.get('code'))).toHaveLength(1);
  });

  it('an iss that is not the issuer: no token request, an error', async () => {
    const callback = h.idp.approve(await h.startSignIn(), { iss: 'http://localhost:9999' });
    const tab = await h.completeCallback(callback);
    expect(h.idp.tokenRequests()).toHaveLength(0);
    expect(tab.state.status).toBe('error');
    expect(tab.state.error?.code).toBe('invalid_response');
  });

  it('a missing iss when requireIss is set: no token request', async () => {
    const options = testOptions({ requireIss: true });
    const callback = h.idp.approve(await h.startSignIn({ options }), { iss: null });
    const tab = await h.completeCallback(callback, options);
    expect(h.idp.tokenRequests()).toHaveLength(0);
    expect(tab.state.status).toBe('error');
  });

  it('a missing iss is accepted when requireIss is not set', async () => {
    const callback = h.idp.approve(await h.startSignIn(), { iss: null });
    const tab = await h.completeCallback(callback);
    expect(tab.state.status).toBe('signed-in');
  });

  it('error=access_denied: cancelled, with the OAuth code, no token request, transaction removed', async () => {
    const authorizeUrl = await h.startSignIn({ returnTo: '/api' });
    const tab = await h.completeCallback(h.idp.deny(authorizeUrl, 'access_denied', { error_description: 'User said no' }));
    expect(h.idp.requests).toHaveLength(0);
    expect(tab.state.status).toBe('error');
    expect(tab.state.error).toMatchObject({ code: 'cancelled', oauthError: 'access_denied', returnTo: '/api' });
    expect(Object.keys(sessionStorage).filter((key) => key.startsWith('auth:tx'))).toEqual([]);
    expect(location.search).toBe('');
  });

  it('other authorization errors keep their OAuth code; URL-supplied text is bounded, and kept as sent for the view to clean', async () => {
    const description = `<img src=x onerror=alert(1)>\u202e${'x'.repeat(5000)}`;
    const authorizeUrl = await h.startSignIn();
    const tab = await h.completeCallback(h.idp.deny(authorizeUrl, 'server_error', { error_description: description }));
    expect(tab.state.error).toMatchObject({ code: 'authorization_failed', oauthError: 'server_error' });
    expect(tab.state.error!.description).toBe(description.slice(0, 200));
  });

  it('an OAuth error code is bounded to 64 characters', async () => {
    const error = `e${'x'.repeat(500)}`;
    const tab = await h.completeCallback(h.idp.deny(await h.startSignIn(), error));
    expect(tab.state.error).toMatchObject({ code: 'authorization_failed', oauthError: error.slice(0, 64) });
  });
});

it('uses no endpoint other than the configured ones', async () => {
  await h.signIn();
  expect(new Set(h.idp.requests.map((r) => r.url))).toEqual(new Set([TOKEN_URL, USERINFO_URL]));
});

describe('a reload', () => {
  /**
   * A reload: memory gone, storage kept, the page at `hash`; `reloaded` false is a load by Back or a
   * link. The app's shared worker ends with the last page unless `keepWorker` (a browser that keeps it
   * for keepSessionMs): where it ended, the engine holds no session and the page restores it with the
   * provider. The hash route is the restore's returnTo, as a hash-routed app's main.ts passes it.
   */
  async function reload(hash = '', { reloaded = true, keepWorker = false } = {}) {
    await h.closeTabs();
    if (!keepWorker) h.endWorkers();
    setPageUrl(APP_URL + hash);
    h.reloaded = reloaded;
    const navigations = h.assign.mock.calls.length;
    const tab = h.newTab();
    tab.started = await tab.auth.start({ returnTo: hash.slice(1) || undefined });
    return { tab, navigated: h.assign.mock.calls.length > navigations };
  }

  it('of a signed-in tab shows the session the shared worker holds: no navigation, no request to the identity service', async () => {
    await h.signIn();
    const requests = h.idp.requests.length;
    const { tab, navigated } = await reload('#/api', { keepWorker: true });
    expect(navigated).toBe(false);
    expect(tab.state).toMatchObject({ status: 'signed-in', user: ALICE, error: null, known: true });
    expect(tab.started).toEqual({});
    // Back or a link within the restore guard's window finds it just the same: the guard is for restores.
    const back = await reload('', { reloaded: false, keepWorker: true });
    expect(back.navigated).toBe(false);
    expect(back.tab.state).toMatchObject({ status: 'signed-in', user: ALICE });
    expect(h.idp.requests).toHaveLength(requests);
  });

  it('once the worker has forgotten the session (keepSessionMs after the last page), restores with prompt=none', async () => {
    vi.useFakeTimers();
    await h.signIn();
    await h.closeTabs();
    await vi.advanceTimersByTimeAsync(120_000);
    const { tab, navigated } = await reload('', { keepWorker: true });
    expect(navigated).toBe(true);
    expect(tab.state.status).toBe('redirecting');
    expect(new URL(h.lastNavigation()).searchParams.get('prompt')).toBe('none');
  });

  it('where the engine ran in the page (no shared worker), restores with prompt=none', async () => {
    h.sharedWorkers = false;
    await h.signIn();
    const { tab, navigated } = await reload('#/api', { keepWorker: true });
    expect(navigated).toBe(true);
    expect(tab.state.status).toBe('redirecting');
    expect(new URL(h.lastNavigation()).searchParams.get('prompt')).toBe('none');
    const restored = await h.completeCallback(h.idp.approve(h.lastNavigation()));
    expect(restored.state).toMatchObject({ status: 'signed-in', user: ALICE });
    expect(restored.started).toEqual({ returnTo: '/api' });
    expect(h.workers.size).toBe(0);
  });

  it('where the worker ended, a top-level prompt=none request brings the person back to the same route', async () => {
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
      expect(tab.state).toEqual(noSession('signed-out'));
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

describe('bounded callback values', () => {
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
  it('shows a failure with a way forward instead of waiting forever; a bug where the engine runs is reported there', async () => {
    const tab = h.newTab();
    await tab.auth.start();
    const bug = new TypeError('crypto.subtle is unavailable');
    vi.spyOn(crypto.subtle, 'digest').mockRejectedValue(bug);
    const consoleError = vi.spyOn(console, 'error').mockImplementation(() => {});
    await tab.auth.signIn({ returnTo: '/api' });
    expect(tab.state).toMatchObject({ status: 'error', error: { code: 'invalid_response', returnTo: '/api' } });
    expect(consoleError).toHaveBeenCalledWith(bug);
    expect(h.assign).not.toHaveBeenCalled();
  });

  it("a caller's bug (a step-up value that is no scope) is shown as a failure, then thrown on in the page", async () => {
    const tab = h.newTab();
    await tab.auth.start();
    await expect(tab.auth.signIn({ returnTo: '/api', scope: 'no\nscope' })).rejects.toBeInstanceOf(TypeError);
    expect(tab.state).toMatchObject({ status: 'error', error: { code: 'invalid_response', returnTo: '/api' } });
    expect(h.assign).not.toHaveBeenCalled();
  });
});

describe('a returning page whose engine cannot start', () => {
  it.each([
    ['the shared worker', true],
    ['an in-page engine', false],
  ])(
    "%s unable to read the provider's metadata: an error with a way forward, the person known; no navigation, nothing held",
    async (_name, shared) => {
      await h.signIn();
      await h.closeTabs();
      h.sharedWorkers = shared;
      // The app now names only its issuer: a new engine reads the provider's metadata, which does not answer.
      const auth = assembleAuth(
        { issuer: ACCOUNT_URL, clientId: CLIENT_ID, redirectUri: APP_URL },
        { browser: h.port, network: (request) => h.idp.fetch(request) },
      );
      onTestFinished(() => auth.destroy());
      const navigations = h.assign.mock.calls.length;
      const requests = h.idp.requests.length;
      await auth.start();
      expect(auth.session.current).toMatchObject({
        status: 'error',
        user: null,
        known: true,
        error: { code: 'discovery_failed', reason: 'unreachable' },
      });
      expect(h.idp.requests.slice(requests).map(({ url }) => url)).toEqual([`${ACCOUNT_URL}/.well-known/openid-configuration`]);
      expect(h.assign).toHaveBeenCalledTimes(navigations);
      // The failed attempt let its page lock go: no worker waits on a page that has nothing to show.
      await vi.waitFor(() => expect(h.locks.held()).toEqual([]));
    },
  );
});

describe('the return of a sign-out to postLogoutRedirectUri', () => {
  const CALLBACK = `${APP_URL}callback`;
  const LANDING = `${APP_URL}signed-out?lang=en`;
  const h = useAuthHarness({
    server: { end_session_endpoint: END_SESSION_URL, revocation_endpoint: REVOCATION_URL },
    redirectUri: CALLBACK,
  });
  // The harness hands a tab's options to createAuth as they are, this option included.
  const options = () => ({ ...h.options, postLogoutRedirectUri: LANDING });
  const loadAt = (url: string) => h.loadAt(url, options());
  const signIn = async () => {
    const tab = await loadAt(`${CALLBACK}?${h.idp.approve(await h.startSignIn({ options: options() }))}`);
    expect(tab.state.status).toBe('signed-in');
    return tab;
  };
  const signOut = async (tab: { auth: { signOut(): void } }) => {
    tab.auth.signOut();
    await vi.waitFor(() => expect(h.lastNavigation().startsWith(END_SESSION_URL)).toBe(true));
    return new URL(h.lastNavigation()).searchParams;
  };

  it('is the post_logout_redirect_uri of the end-session request', async () => {
    const sent = await signOut(await signIn());
    expect(sent.get('post_logout_redirect_uri')).toBe(LANDING);
    expect(sent.get('state')).toMatch(/^[\w-]{20,}$/);
  });

  it('the return there is the sign-out: signed out, no notice, state gone from the URL, its own query kept, once', async () => {
    const state = (await signOut(await signIn())).get('state');
    const navigations = h.assign.mock.calls.length;
    const back = await loadAt(`${LANDING}&state=${state}`);
    expect(back.state).toEqual(noSession('signed-out'));
    expect(back.started).toEqual({});
    expect(location.href).toBe(LANDING);
    expect(h.assign.mock.calls.length).toBe(navigations);
    const again = await loadAt(`${LANDING}&state=${state}`);
    expect(again.state.error).toEqual({ code: 'unknown_signout' });
    expect(location.href).toBe(LANDING);
  });

  it('a return there with a state this tab did not send is a notice, and no restore', async () => {
    await signIn();
    h.reloaded = true;
    const navigations = h.assign.mock.calls.length;
    const tab = await loadAt(`${LANDING}&state=forged`);
    expect(h.assign.mock.calls.length).toBe(navigations);
    expect(tab.state).toEqual({
      status: 'signed-out',
      user: null,
      expiresAt: null,
      error: { code: 'unknown_signout' },
      known: false,
      offline: false,
      endsAt: null,
    });
    expect(location.href).toBe(LANDING);
  });

  it('the redirect URI still takes a sign-out return too (a provider that ignores the option)', async () => {
    const state = (await signOut(await signIn())).get('state');
    const back = await loadAt(`${CALLBACK}?state=${state}`);
    expect(back.state).toEqual(noSession('signed-out'));
    expect(location.href).toBe(CALLBACK);
  });

  it('is no callback: a code there is left in the URL, and no token request is made', async () => {
    const callback = h.idp.approve(await h.startSignIn({ options: options() }));
    const tab = await loadAt(`${LANDING}&${callback}`);
    expect(tab.state.status).toBe('signed-out');
    expect(location.href).toBe(`${LANDING}&${callback}`);
    expect(h.idp.tokenRequests()).toHaveLength(0);
  });
});

/** Sign-in at a fake "now", with the token lifetime the identity service announces. */
async function signInAt(expiresIn: number) {
  vi.useFakeTimers();
  h.idp.expiresIn = expiresIn;
  const tab = await h.signIn();
  return { tab };
}

describe('whether a person is known (the header offers sign-out exactly then)', () => {
  /** A reload of the app (memory gone, storage kept, the worker ended) that restores when the hint says so. */
  async function reload() {
    await h.closeTabs();
    h.endWorkers();
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
    const { session, ...to } = createSession<StandardClaims>(createEvents());
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

describe("a stranger's page (no hint: nobody has signed in in this browser)", () => {
  it('settles signed out at once, without connecting: no worker started, no request', async () => {
    const tab = await h.loadAt(APP_URL);
    expect(tab.state).toEqual(noSession('signed-out'));
    expect(h.workers.size).toBe(0);
    expect(h.locks.held()).toEqual([]);
    expect(h.idp.requests).toHaveLength(0);
  });

  it('joins the session when another tab signs in, with no request of its own', async () => {
    const stranger = await h.loadAt(APP_URL);
    await h.signIn();
    await vi.waitFor(() => expect(stranger.state).toMatchObject({ status: 'signed-in', user: ALICE, known: true }));
    expect(h.idp.tokenRequests()).toHaveLength(1);
    expect(h.idp.to(USERINFO_URL)).toHaveLength(1);
  });
});

describe('two instances on one page', () => {
  it('a callback another instance waits for is left in the URL for it, which completes it', async () => {
    const other = testOptions({ clientId: 'other-spa' });
    h.idp.idTokenExtra = { aud: 'other-spa' };
    const callback = h.idp.approve(await h.startSignIn({ options: other }));
    const mine = await h.loadAt(`${APP_URL}?${callback}`);
    expect(mine.state).toEqual(noSession('signed-out'));
    expect(location.href).toBe(`${APP_URL}?${callback}`);
    expect(h.idp.tokenRequests()).toHaveLength(0);
    const theirs = h.newTab(other);
    await theirs.auth.start();
    expect(theirs.state).toMatchObject({ status: 'signed-in', user: ALICE });
    expect(location.href).toBe(APP_URL);
    expect(h.idp.tokenRequests()).toHaveLength(1);
  });
});

describe.each([
  ['the shared worker', true],
  ['each page (no shared worker)', false],
])('the whole flow with the engine in %s', (_host, sharedWorkers) => {
  /** Opens another tab of the app (a reload is one too); where it restores with the provider, the provider approves. */
  async function open() {
    setPageUrl(APP_URL);
    h.reloaded = true;
    const requests = h.idp.requests.length;
    const navigations = h.assign.mock.calls.length;
    const tab = h.newTab();
    await tab.auth.start();
    const restored = h.assign.mock.calls.length > navigations;
    if (restored) expect(new URL(h.lastNavigation()).searchParams.get('prompt')).toBe('none');
    // Only where the page ran the engine does a new page ask the provider: the worker has the session.
    expect({ restored, requests: h.idp.requests.length > requests }).toEqual({ restored: !sharedWorkers, requests: false });
    if (!restored) return tab;
    // The page left for the identity service: nothing of it lives on.
    await h.close(tab);
    return h.completeCallback(h.idp.approve(h.lastNavigation()));
  }

  it('sign-in, a reload, another tab, and a sign-out that reaches the other tab', async () => {
    h.sharedWorkers = sharedWorkers;
    const first = await h.signIn();
    await h.close(first);
    const reloaded = await open();
    expect(reloaded.state).toMatchObject({ status: 'signed-in', user: ALICE });
    const other = await open();
    expect(other.state).toMatchObject({ status: 'signed-in', user: ALICE });
    expect(h.workers.size).toBe(sharedWorkers ? 1 : 0);
    const reasons: string[] = [];
    other.auth.on('signed-out', ({ reason }) => reasons.push(reason));
    reloaded.auth.signOut();
    expect(reloaded.state).toEqual(noSession('signed-out'));
    await vi.waitFor(() => expect(other.state).toEqual(noSession('signed-out')));
    expect(reasons).toEqual(['other-tab']);
    // Nobody comes back on the next page: the browser's hint says signed out.
    await h.closeTabs();
    const after = h.newTab();
    await after.auth.start();
    expect(after.state).toEqual(noSession('signed-out'));
  });
});
