// The flow: what the app sends to the identity service, what it accepts back, and what it
// leaves behind. Everything is observed at the edges: requests on the wire, storage, URL, session store.
import { describe, expect, it, vi } from 'vitest';
import * as oauth from 'oauth4webapi';
import { useAuthHarness } from '../../testing/auth-harness';
import { AuthError } from './errors';
import type { Network } from './http';
import { fetchUserInfo, toClaims, type Server } from './protocol';
import { endSessionRequest, revoke } from './signout';
import {
  ACCOUNT_URL,
  ALICE,
  APP_URL,
  AUTHORIZE_URL,
  CLIENT_ID,
  TOKEN_URL,
  USERINFO_URL,
  allStorage,
  idTokenClaims,
  json,
  testConfig,
  unsignedIdToken,
  NAMES,
} from '../../testing/fake-idp';

const h = useAuthHarness();

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
    const url = new URL(await h.startSignIn({ config: testConfig({ scope: 'profile service.api' }) }));
    expect(url.searchParams.get('scope')).toBe('profile service.api');
    expect(url.searchParams.has('nonce')).toBe(false);
  });

  it('uses a configured redirect URI verbatim', async () => {
    const config = testConfig({ redirectUri: 'http://localhost:5173/app/' });
    const url = new URL(await h.startSignIn({ config }));
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
    const config = testConfig({ requireIss: true });
    const callback = h.idp.approve(await h.startSignIn({ config }), { iss: null });
    const tab = await h.completeCallback(callback, config);
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

describe('token response validation', () => {
  /** Replaces the token endpoint's answer to the code exchange. */
  function answerTokenRequest(build: (nonce: string | undefined, accessToken: string) => Record<string, unknown>, status = 200) {
    h.idp.token = async ({ form }) => {
      const authorizeUrl = h.lastNavigation();
      expect(form.get('grant_type')).toBe('authorization_code');
      return json(build(new URL(authorizeUrl).searchParams.get('nonce') ?? undefined, 'at-custom'), status);
    };
  }

  async function attempt() {
    const callback = h.idp.approve(await h.startSignIn());
    return h.completeCallback(callback);
  }

  const good = (nonce: string | undefined, at: string) => ({
    access_token: at,
    token_type: 'Bearer',
    expires_in: 300,
    id_token: unsignedIdToken(idTokenClaims(ALICE.sub, nonce)),
  });

  it.each([
    ['DPoP token_type', (n: string | undefined, at: string) => ({ ...good(n, at), token_type: 'DPoP' })],
    ['unknown token_type', (n: string | undefined, at: string) => ({ ...good(n, at), token_type: 'mac' })],
    [
      'no ID token although openid was requested',
      (n: string | undefined, at: string) => ({ ...good(n, at), id_token: undefined }),
    ],
    ['an ID token with a wrong nonce', (_n: string | undefined, at: string) => ({ ...good('other-nonce', at) })],
    [
      'an ID token for another audience',
      (n: string | undefined, at: string) => ({
        ...good(n, at),
        id_token: unsignedIdToken(idTokenClaims(ALICE.sub, n, { aud: 'other' })),
      }),
    ],
    [
      'an ID token from another issuer',
      (n: string | undefined, at: string) => ({
        ...good(n, at),
        id_token: unsignedIdToken(idTokenClaims(ALICE.sub, n, { iss: 'http://localhost:9999' })),
      }),
    ],
    [
      'an expired ID token',
      (n: string | undefined, at: string) => ({
        ...good(n, at),
        id_token: unsignedIdToken(idTokenClaims(ALICE.sub, n, { exp: Math.floor(Date.now() / 1000) - 3600 })),
      }),
    ],
    ['no access token', (n: string | undefined, at: string) => ({ ...good(n, at), access_token: undefined })],
    ['an error beside the token', (n: string | undefined, at: string) => ({ ...good(n, at), error: 'server_error' })],
  ])('%s is refused before userinfo is asked', async (_name, build) => {
    answerTokenRequest(build);
    const tab = await attempt();
    expect(h.idp.tokenRequests()).toHaveLength(1);
    expect(h.idp.to(USERINFO_URL)).toHaveLength(0);
    expect(tab.state).toMatchObject({ status: 'error', user: null, error: { code: 'invalid_response' } });
    expect(localStorage.getItem(NAMES.key('hint'))).toBeNull();
  });

  it('the well-formed answer used as the base of the cases above is accepted', async () => {
    answerTokenRequest(good);
    h.idp.validAccessTokens.add('at-custom');
    expect((await attempt()).state.status).toBe('signed-in');
  });

  it('invalid_grant from the token endpoint ends in that code', async () => {
    answerTokenRequest(() => ({ error: 'invalid_grant', error_description: 'code expired' }), 400);
    const tab = await attempt();
    expect(tab.state.error).toMatchObject({ code: 'invalid_grant', oauthError: 'invalid_grant', description: 'code expired' });
  });

  it('an unreachable token endpoint names its host', async () => {
    h.idp.token = () => Promise.reject(new TypeError('Failed to fetch'));
    const tab = await attempt();
    expect(tab.state.error).toMatchObject({ code: 'unreachable', host: new URL(ACCOUNT_URL).host });
  });

  it('an oversized token response is refused', async () => {
    h.idp.token = () =>
      new Response(JSON.stringify({ pad: 'x'.repeat(200_000) }), { headers: { 'content-type': 'application/json' } });
    const tab = await attempt();
    expect(tab.state.error?.code).toBe('invalid_response');
  });
});

describe('userinfo validation', () => {
  it('a sub other than the ID token sub is refused: no session', async () => {
    h.idp.userinfo = () => json({ ...ALICE, sub: 'mallory-sub' });
    const tab = await h.completeCallback(h.idp.approve(await h.startSignIn()));
    expect(tab.state).toMatchObject({ status: 'error', user: null, error: { code: 'invalid_response' } });
    expect(localStorage.getItem(NAMES.key('hint'))).toBeNull();
    // The token is gone with the failed sign-in: nothing can use it.
    await expect(tab.auth.fetch(USERINFO_URL)).rejects.toMatchObject({ code: 'unauthenticated' });
  });

  it.each([
    ['email', 42],
    ['name', { first: 'Alice' }],
    ['preferred_username', ['alice']],
    ['name', null],
    ['email_verified', true],
  ])('a claim of any JSON type (%s: %j) is kept as sent', async (claim, value) => {
    h.idp.user = { ...ALICE, [claim]: value };
    const tab = await h.completeCallback(h.idp.approve(await h.startSignIn()));
    expect(tab.state.status).toBe('signed-in');
    expect(tab.state.user?.[claim]).toEqual(value);
  });

  it.each([
    ['markup-like text', 'name', 'Ann <ann@example.test>'],
    ['a tag', 'name', '<img src=x onerror=alert(1)>'],
    ['a right-to-left override', 'name', 'Alice\u202eecilA'],
    ['zero-width characters', 'preferred_username', 'al\u200bi\u200dce\ufeff'],
    ['a control character', 'email', 'alice@example.test\u0000'],
    ['a long text', 'name', 'A'.repeat(5000)],
  ])("a claim with %s is kept exactly as sent: cleaning for display is the view's job", async (_name, claim, value) => {
    h.idp.user = { ...ALICE, [claim]: value };
    const tab = await h.completeCallback(h.idp.approve(await h.startSignIn()));
    expect(tab.state.status).toBe('signed-in');
    expect(tab.state.user?.[claim]).toBe(value);
  });

  it.each([
    ['255 characters', 'x'.repeat(255)],
    ['markup and spaces', ' <b>alice</b> '],
  ])('a sub of %s is kept exactly', async (_name, sub) => {
    h.idp.user = { ...ALICE, sub };
    const tab = await h.completeCallback(h.idp.approve(await h.startSignIn()));
    expect(tab.state.status).toBe('signed-in');
    expect(tab.state.user?.sub).toBe(sub);
  });

  it('a sub of 256 characters is refused, even when the ID token says the same', async () => {
    h.idp.user = { ...ALICE, sub: 'x'.repeat(256) };
    const tab = await h.completeCallback(h.idp.approve(await h.startSignIn()));
    expect(tab.state).toMatchObject({ status: 'error', user: null, error: { code: 'invalid_response' } });
  });

  it("markup in sub is refused when it is not the ID token's subject", async () => {
    h.idp.userinfo = () => json({ ...ALICE, sub: '<script>' });
    const tab = await h.completeCallback(h.idp.approve(await h.startSignIn()));
    expect(tab.state).toMatchObject({ status: 'error', user: null, error: { code: 'invalid_response' } });
  });

  it('a prototype-poisoning key is refused', async () => {
    h.idp.userinfo = () =>
      new Response(`{"sub":"${ALICE.sub}","__proto__":{"admin":true}}`, { headers: { 'content-type': 'application/json' } });
    const tab = await h.completeCallback(h.idp.approve(await h.startSignIn()));
    expect(tab.state.error?.code).toBe('invalid_response');
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });

  it('every claim is kept as sent, nested ones too; absent claims stay absent', async () => {
    const sent = { sub: ALICE.sub, name: 'Alice', phone_number: '+1 555', org: { roles: ['admin', { scope: 'x' }], level: 3 } };
    h.idp.userinfo = () => json(sent);
    const tab = await h.completeCallback(h.idp.approve(await h.startSignIn()));
    expect(tab.state.user).toEqual(sent);
  });

  it('a userinfo answer that is not JSON is refused', async () => {
    h.idp.userinfo = () => new Response(JSON.stringify(ALICE), { headers: { 'content-type': 'text/html' } });
    const tab = await h.completeCallback(h.idp.approve(await h.startSignIn()));
    expect(tab.state.error?.code).toBe('invalid_response');
  });

  it('a userinfo request that times out ends in "timeout"', async () => {
    const config = { ...testConfig(), timeoutMs: 30 };
    h.idp.userinfo = () => new Promise<Response>(() => {});
    const callback = h.idp.approve(await h.startSignIn({ config }));
    const tab = await h.completeCallback(callback, config);
    expect(tab.state.error).toMatchObject({ code: 'timeout', host: new URL(USERINFO_URL).host });
  });
});

it('uses no endpoint other than the configured ones', async () => {
  await h.signIn();
  expect(new Set(h.idp.requests.map((r) => r.url))).toEqual(new Set([TOKEN_URL, USERINFO_URL]));
});

describe('toClaims', () => {
  /** The claims as oauth4webapi hands them over: parsed JSON, own `__proto__` keys included. */
  const parsed = (text: string) => JSON.parse(text) as oauth.UserInfoResponse;
  const refused = (text: string) => {
    const failure = (() => {
      try {
        toClaims(parsed(text));
      } catch (err) {
        return err;
      }
    })();
    expect(failure, text).toBeInstanceOf(AuthError);
    expect(failure).toMatchObject({ code: 'invalid_response' });
  };
  /** `levels` objects nested under `x`, the innermost at depth `levels`. */
  const nested = (levels: number) => `{"sub":"s","x":${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}}`;

  it('returns the claims as they are, the same values of every JSON type', () => {
    const text = '{"sub":"s","n":1,"b":false,"z":null,"l":["a",{"b":[1]}],"o":{"p":{"q":"r"}},"t":"\\u202e"}';
    expect(toClaims(parsed(text))).toEqual(JSON.parse(text));
  });

  it.each([
    ['a number', '{"sub":42}'],
    ['empty', '{"sub":""}'],
    ['256 characters', `{"sub":"${'x'.repeat(256)}"}`],
    ['null', '{"sub":null}'],
    ['an array', '{"sub":["s"]}'],
    ['absent', '{"name":"Alice"}'],
  ])('refuses a sub that is %s', (_name, text) => refused(text));

  it('takes a sub of 1 and of 255 characters exactly as sent', () => {
    expect(toClaims(parsed('{"sub":"a"}')).sub).toBe('a');
    expect(toClaims(parsed(`{"sub":" ${'x'.repeat(253)} "}`)).sub).toBe(` ${'x'.repeat(253)} `);
  });

  it.each(['__proto__', 'constructor', 'prototype'])('refuses the key %s at the top, nested and inside arrays', (key) => {
    refused(`{"sub":"s","${key}":{"admin":true}}`);
    refused(`{"sub":"s","address":{"${key}":{"admin":true}}}`);
    refused(`{"sub":"s","roles":[{"a":{"${key}":1}}]}`);
    refused(`{"sub":"s","deep":{"a":{"b":{"c":{"${key}":"x"}}}}}`);
  });

  it('takes nesting 8 deep and refuses 9', () => {
    expect(toClaims(parsed(nested(8)))).toEqual(JSON.parse(nested(8)));
    refused(nested(9));
    refused(`{"sub":"s","l":${'['.repeat(9)}1${']'.repeat(9)}}`);
  });
});

describe('protocol steps over a given network', () => {
  const SERVER = 'https://id.example.test';
  const serverOn = (network: Network, as: Partial<oauth.AuthorizationServer> = {}): Server => ({
    as: {
      issuer: SERVER,
      token_endpoint: `${SERVER}/token`,
      userinfo_endpoint: `${SERVER}/userinfo`,
      revocation_endpoint: `${SERVER}/revoke`,
      end_session_endpoint: `${SERVER}/end`,
      ...as,
    },
    client: { client_id: 'spa' },
    redirectUri: 'https://app.example.test/',
    scope: 'openid',
    resources: [],
    timeoutMs: 1000,
    network,
  });
  const tokens = { accessToken: 'at-1', expiresAt: Date.now() + 60_000, subject: 'alice' };

  it('fetchUserInfo returns the claims, through the network of the server and not the global fetch', async () => {
    const network = vi.fn<Network>(async () => json({ sub: 'alice', groups: ['a'], name: 'Alice' }));
    const claims = await fetchUserInfo<{ sub: string; groups: string[] }>(serverOn(network), undefined, tokens);
    expect(claims).toEqual({ sub: 'alice', groups: ['a'], name: 'Alice' });
    const [request] = network.mock.calls[0];
    expect([request.method, request.url, request.headers.get('authorization')]).toEqual([
      'GET',
      `${SERVER}/userinfo`,
      'Bearer at-1',
    ]);
    expect(h.idp.requests).toHaveLength(0);
  });

  it("fetchUserInfo refuses a sub other than the ID token's", async () => {
    const network = vi.fn<Network>(async () => json({ sub: 'mallory' }));
    await expect(fetchUserInfo(serverOn(network), undefined, tokens)).rejects.toBeInstanceOf(Error);
  });

  it.each(['access_token', 'refresh_token'] as const)(
    'revoke sends the token with token_type_hint=%s, kept alive',
    async (hint) => {
      const network = vi.fn<Network>(async () => new Response(null, { status: 200 }));
      await revoke(serverOn(network), 'tok-1', hint);
      const [request] = network.mock.calls[0];
      expect([request.method, request.url]).toEqual(['POST', `${SERVER}/revoke`]);
      const form = new URLSearchParams(await request.text());
      expect(Object.fromEntries(form)).toEqual({ token: 'tok-1', token_type_hint: hint, client_id: 'spa' });
      expect(request.keepalive).toBe(true);
      expect(request.credentials).toBe('omit');
    },
  );

  it('revoke rejects when the endpoint refuses, for the caller to ignore', async () => {
    const network = vi.fn<Network>(async () => json({ error: 'unsupported_token_type' }, 400));
    await expect(revoke(serverOn(network), 'tok-1', 'access_token')).rejects.toBeDefined();
  });

  it('endSessionRequest is the URL of a GET: client_id, post_logout_redirect_uri and a fresh state', () => {
    const server = serverOn(vi.fn());
    const first = endSessionRequest(server, 'id.token.x')!;
    expect(first.state).toMatch(/^[\w-]{22,}$/);
    expect(first.url).toBe(
      `${SERVER}/end?client_id=spa&post_logout_redirect_uri=${encodeURIComponent('https://app.example.test/')}&state=${first.state}`,
    );
    expect(endSessionRequest(server, 'id.token.x')!.state).not.toBe(first.state);
  });

  it('endSessionRequest has the hint only when asked for, and without an endpoint is nothing', () => {
    expect(endSessionRequest(serverOn(vi.fn()), 'id.token.x')!.url).not.toContain('id_token_hint');
    expect(new URL(endSessionRequest(serverOn(vi.fn()), 'id.token.x', true)!.url).searchParams.get('id_token_hint')).toBe(
      'id.token.x',
    );
    expect(endSessionRequest(serverOn(vi.fn(), { end_session_endpoint: undefined }), 'id.token.x')).toBeUndefined();
  });
});
