// The protocol steps (steps.ts): what the token and userinfo answers must be to be taken, the claims
// as a session keeps them, and each step over the network it is given. The answers' checks are seen
// through an instance over the fake identity service: what reaches the session store and storage.
import { describe, expect, it, vi } from 'vitest';
import * as oauth from 'oauth4webapi';
import { useAuthHarness } from '../__fixtures__/harness';
import { AuthError } from './errors';
import type { Network } from './http';
import { fetchUserInfo, refreshTokens, toClaims, type Server, type TokenSet } from './steps';
import {
  ACCOUNT_URL,
  ALICE,
  USERINFO_URL,
  cutOff,
  idTokenClaims,
  json,
  testOptions,
  unsignedIdToken,
  NAMES,
} from '../__fixtures__/fake-idp';

const h = useAuthHarness();

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

  it('a token answer cut off after its headers is "unreachable", as the network is at fault, not the answer', async () => {
    h.idp.token = cutOff;
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
    const options = { ...testOptions(), timeoutMs: 30 };
    h.idp.userinfo = () => new Promise<Response>(() => {});
    const callback = h.idp.approve(await h.startSignIn({ options }));
    const tab = await h.completeCallback(callback, options);
    expect(tab.state.error).toMatchObject({ code: 'timeout', host: new URL(USERINFO_URL).host });
  });
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
    const global = vi.fn<typeof fetch>();
    vi.stubGlobal('fetch', global);
    const network = vi.fn<Network>(async () => json({ sub: 'alice', groups: ['a'], name: 'Alice' }));
    const claims = await fetchUserInfo<{ sub: string; groups: string[] }>(serverOn(network), undefined, tokens);
    expect(claims).toEqual({ sub: 'alice', groups: ['a'], name: 'Alice' });
    const [request] = network.mock.calls[0];
    expect([request.method, request.url, request.headers.get('authorization')]).toEqual([
      'GET',
      `${SERVER}/userinfo`,
      'Bearer at-1',
    ]);
    expect(global).not.toHaveBeenCalled();
  });

  it("fetchUserInfo refuses a sub other than the ID token's", async () => {
    const network = vi.fn<Network>(async () => json({ sub: 'mallory' }));
    const refused = fetchUserInfo(serverOn(network), undefined, tokens);
    // Thrown as oauth4webapi raised it; the caller converts it (an invalid_response).
    await expect(refused).rejects.toThrow(oauth.OperationProcessingError);
    await expect(refused).rejects.toMatchObject({ code: oauth.JSON_ATTRIBUTE_COMPARISON });
  });

  describe('refreshTokens', () => {
    const previous: TokenSet = { accessToken: 'at-1', refreshToken: 'rt-1', idToken: 'id-1', expiresAt: 0, subject: 'alice' };
    const NOTES = 'https://notes.example.test/';
    /** An ID token of this server for this client, about `sub`. */
    const idToken = (sub: string) => {
      const now = Math.floor(Date.now() / 1000);
      return unsignedIdToken({ iss: SERVER, aud: 'spa', sub, iat: now, exp: now + 300 });
    };
    const answering = (body: Record<string, unknown>) =>
      vi.fn<Network>(async () => json({ token_type: 'Bearer', expires_in: 300, ...body }));
    const formOf = async (network: ReturnType<typeof answering>) =>
      Object.fromEntries(new URLSearchParams(await network.mock.calls[0][0].text()));

    it('sends the refresh token to the token endpoint; a rotated refresh token replaces the old one (RFC 6749 §6)', async () => {
      const id = idToken('alice');
      const network = answering({ access_token: 'at-2', refresh_token: 'rt-2', id_token: id });
      const now = Date.now();
      expect(await refreshTokens(serverOn(network), undefined, previous, now)).toEqual({
        accessToken: 'at-2',
        refreshToken: 'rt-2',
        idToken: id,
        expiresAt: now + 300_000,
        subject: 'alice',
      });
      const [request] = network.mock.calls[0];
      expect([request.method, request.url, request.credentials]).toEqual(['POST', `${SERVER}/token`, 'omit']);
      expect(await formOf(network)).toEqual({ grant_type: 'refresh_token', refresh_token: 'rt-1', client_id: 'spa' });
    });

    it('an answer without a refresh token keeps the old one, and the ID token and subject it had', async () => {
      const network = answering({ access_token: 'at-2' });
      const now = Date.now();
      expect(await refreshTokens(serverOn(network), undefined, previous, now)).toEqual({
        accessToken: 'at-2',
        refreshToken: 'rt-1',
        idToken: 'id-1',
        expiresAt: now + 300_000,
        subject: 'alice',
      });
    });

    it('a token for one API sends its resource and scope (RFC 8707 §2.2), and no scope when it has none', async () => {
      const withScope = answering({ access_token: 'at-notes' });
      await refreshTokens(serverOn(withScope), undefined, previous, Date.now(), undefined, {
        resource: NOTES,
        scope: 'notes.read',
      });
      expect(await formOf(withScope)).toMatchObject({ resource: NOTES, scope: 'notes.read' });
      const without = answering({ access_token: 'at-notes' });
      await refreshTokens(serverOn(without), undefined, previous, Date.now(), undefined, { resource: NOTES });
      expect(await formOf(without)).toEqual({
        grant_type: 'refresh_token',
        refresh_token: 'rt-1',
        client_id: 'spa',
        resource: NOTES,
      });
    });

    it('an ID token for another subject is refused: invalid_response, whatever else the answer holds', async () => {
      const network = answering({ access_token: 'at-mallory', refresh_token: 'rt-mallory', id_token: idToken('mallory') });
      const refused = refreshTokens(serverOn(network), undefined, previous, Date.now());
      await expect(refused).rejects.toThrow(AuthError);
      await expect(refused).rejects.toMatchObject({ code: 'invalid_response' });
    });

    it('the signal aborts the request: aborted', async () => {
      const controller = new AbortController();
      const network = vi.fn<Network>(
        ({ signal }) =>
          new Promise((_, reject) => {
            if (signal.aborted) reject(signal.reason);
            signal.addEventListener('abort', () => reject(signal.reason));
          }),
      );
      const refusing = refreshTokens(serverOn(network), undefined, previous, Date.now(), controller.signal);
      await vi.waitFor(() => expect(network).toHaveBeenCalled());
      controller.abort();
      await expect(refusing).rejects.toMatchObject({ code: 'aborted' });
    });
  });
});
