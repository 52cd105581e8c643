// Issue 3, "authFetch rules": where the token may go, how it goes, and what a 401/403 leads to.
import { describe, expect, it, vi } from 'vitest';
import { useAuthHarness } from '../../testing/auth-harness';
import { API_ORIGIN, API_URL, USERINFO_URL, challenge, deferred, json, testConfig } from '../../testing/fake-idp';
import { AuthError } from './errors';

const h = useAuthHarness();

const accessToken = (n: number) => h.idp.issued[n].access_token as string;
const bearerOf = (index: number) => h.idp.to(API_URL)[index]?.headers.get('authorization');

describe('allow-list', () => {
  it.each([
    ['another host', 'http://evil.example/api/greeting'],
    ['another port', 'http://127.0.0.1:9013/api/greeting'],
    ['another scheme', 'https://127.0.0.1:9012/api/greeting'],
    ['user@host', 'http://user@127.0.0.1:9012/api/greeting'],
    ['user:password@host', 'http://user:pw@127.0.0.1:9012/api/greeting'],
    ['allowed origin as userinfo of another host', 'http://127.0.0.1:9012@evil.example/api/greeting'],
    ['protocol-relative', '//evil.example/api/greeting'],
    ['the page itself (not listed)', '/api/greeting'],
    ['the account origin (token endpoint host, not listed)', 'http://localhost:9010/connect/userinfo'],
    ['data:', 'data:application/json,{}'],
    ['blob: of an allowed origin', `blob:${API_ORIGIN}/0b5e1a2c-0000-4000-8000-000000000000`],
    ['javascript:', 'javascript:alert(1)'],
    ['ws: to the API host', 'ws://127.0.0.1:9012/api/greeting'],
  ])('refuses %s before any request', async (_name, url) => {
    const tab = await h.signIn();
    const before = h.idp.fetch.mock.calls.length;
    const failure = await tab.auth.authFetch(url).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(AuthError);
    expect(failure).toMatchObject({ code: 'forbidden_origin' });
    expect(h.idp.fetch.mock.calls.length).toBe(before);
  });

  it('refuses a URL object outside the allow-list too', async () => {
    const tab = await h.signIn();
    await expect(tab.auth.authFetch(new URL('http://evil.example/'))).rejects.toMatchObject({ code: 'forbidden_origin' });
  });

  it.each([
    ['an apiOrigins entry', API_URL],
    ["authUrl's origin", USERINFO_URL],
    ['a URL object', new URL(API_URL)],
  ])('sends the Bearer token to %s', async (_name, url) => {
    const tab = await h.signIn();
    const before = h.idp.requests.length;
    const response = await tab.auth.authFetch(url);
    expect(response.status).toBe(200);
    const [request] = h.idp.requests.slice(before);
    expect(request.url).toBe(String(url));
    expect(request.headers.get('authorization')).toBe(`Bearer ${accessToken(0)}`);
  });

  it('sends no cookies, follows no redirects, sends no referrer', async () => {
    const tab = await h.signIn();
    await tab.auth.authFetch(API_URL);
    const { init } = h.idp.to(API_URL)[0];
    expect(init.credentials).toBe('omit');
    expect(['manual', 'error']).toContain(init.redirect);
    expect(init.referrerPolicy === 'no-referrer' || init.referrer === '').toBe(true);
  });

  it('passes method, headers and body through, and returns the response', async () => {
    const tab = await h.signIn();
    h.idp.api = async (request) => json({ echo: request.body, type: request.headers.get('content-type') });
    const response = await tab.auth.authFetch(API_URL, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"a":1}',
    });
    expect(await response.json()).toEqual({ echo: '{"a":1}', type: 'application/json' });
    expect(h.idp.to(API_URL)[0].method).toBe('POST');
  });

  it('a redirect is an error, and nothing is sent to where it points', async () => {
    const tab = await h.signIn();
    h.idp.api = () => new Response(null, { status: 302, headers: { location: 'http://evil.example/steal' } });
    await expect(tab.auth.authFetch(API_URL)).rejects.toBeInstanceOf(AuthError);
    expect(h.idp.to(API_URL)).toHaveLength(1);
    expect(h.idp.requests.filter((r) => r.url.startsWith('http://evil.example'))).toHaveLength(0);
  });

  it('refuses when signed out, without a request', async () => {
    const tab = h.newTab();
    await tab.auth.start();
    await expect(tab.auth.authFetch(API_URL)).rejects.toMatchObject({ code: 'unauthenticated' });
    expect(h.idp.requests).toHaveLength(0);
  });
});

describe('401 and 403', () => {
  it('concurrent 401 invalid_token: exactly one renewal, then one replay of each with the new token', async () => {
    h.idp.refreshTokens = true;
    const tab = await h.signIn();
    h.idp.validAccessTokens.delete(accessToken(0));
    const release = deferred<void>();
    h.idp.token = async (request, standard) => {
      await release.promise;
      return standard(request);
    };
    const calls = [1, 2, 3].map(() => tab.auth.authFetch(API_URL));
    await vi.waitFor(() => expect(h.idp.tokenRequests('refresh_token')).toHaveLength(1));
    // Let every first attempt come back with its 401 before the renewal answers.
    await vi.waitFor(() => expect(h.idp.to(API_URL)).toHaveLength(3));
    await new Promise((resolve) => setTimeout(resolve, 0)); // one macrotask: every queued 401 is handled
    release.resolve();
    const responses = await Promise.all(calls);
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(h.idp.tokenRequests('refresh_token')).toHaveLength(1);
    const bearers = h.idp.to(API_URL).map((r) => r.headers.get('authorization'));
    expect(bearers).toEqual([...Array(3).fill(`Bearer ${accessToken(0)}`), ...Array(3).fill(`Bearer ${accessToken(1)}`)]);
    expect(tab.state.status).toBe('signed-in');
  });

  it('a 401 that arrives after another request renewed is replayed with the new token, without a second renewal', async () => {
    h.idp.refreshTokens = true;
    const tab = await h.signIn();
    h.idp.validAccessTokens.delete(accessToken(0));
    const late = deferred<void>();
    let first = true;
    h.idp.api = async (request, standard) => {
      if (request.headers.get('authorization') === `Bearer ${accessToken(0)}` && !first) await late.promise;
      first = false;
      return standard(request);
    };
    const a = tab.auth.authFetch(API_URL);
    const b = tab.auth.authFetch(API_URL);
    expect((await a).status).toBe(200);
    late.resolve();
    expect((await b).status).toBe(200);
    expect(h.idp.tokenRequests('refresh_token')).toHaveLength(1);
    expect(h.idp.to(API_URL)).toHaveLength(4);
  });

  it('a second 401 after the replay: session expired, no loop', async () => {
    h.idp.refreshTokens = true;
    const tab = await h.signIn();
    h.idp.api = () => challenge(401, 'invalid_token');
    const failure = await tab.auth.authFetch(API_URL).catch((err: unknown) => err);
    expect(failure).toMatchObject({ code: 'session_expired' });
    expect(h.idp.to(API_URL)).toHaveLength(2);
    expect(h.idp.tokenRequests('refresh_token')).toHaveLength(1);
    expect(tab.state.status).toBe('expired');
    expect(bearerOf(1)).toBe(`Bearer ${accessToken(1)}`);
  });

  it('401 invalid_token without a refresh token: expired after one request', async () => {
    const tab = await h.signIn();
    h.idp.validAccessTokens.clear();
    await expect(tab.auth.authFetch(API_URL)).rejects.toMatchObject({ code: 'session_expired' });
    expect(h.idp.to(API_URL)).toHaveLength(1);
    expect(h.idp.tokenRequests('refresh_token')).toHaveLength(0);
    expect(tab.state).toMatchObject({ status: 'expired', user: null });
  });

  it('401 invalid_token when the renewal is refused (invalid_grant): expired, one request', async () => {
    h.idp.refreshTokens = true;
    const tab = await h.signIn();
    h.idp.validAccessTokens.clear();
    h.idp.currentRefreshToken = 'revoked';
    await expect(tab.auth.authFetch(API_URL)).rejects.toMatchObject({ code: 'session_expired' });
    expect(h.idp.to(API_URL)).toHaveLength(1);
    expect(h.idp.tokenRequests('refresh_token')).toHaveLength(1);
    expect(tab.state.status).toBe('expired');
  });

  it('403 insufficient_scope is a typed error and is never retried', async () => {
    h.idp.refreshTokens = true;
    const tab = await h.signIn();
    h.idp.api = () => challenge(403, 'insufficient_scope');
    const failure = await tab.auth.authFetch(API_URL).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(AuthError);
    expect(failure).toMatchObject({ code: 'insufficient_scope', status: 403 });
    expect(h.idp.to(API_URL)).toHaveLength(1);
    expect(h.idp.tokenRequests('refresh_token')).toHaveLength(0);
    expect(tab.state.status).toBe('signed-in');
  });

  it('a 401 with another error is not a reason to renew', async () => {
    h.idp.refreshTokens = true;
    const tab = await h.signIn();
    h.idp.api = () => challenge(401, 'invalid_request');
    await expect(tab.auth.authFetch(API_URL)).rejects.toBeInstanceOf(AuthError);
    expect(h.idp.to(API_URL)).toHaveLength(1);
    expect(h.idp.tokenRequests('refresh_token')).toHaveLength(0);
  });
});

describe('failures', () => {
  it('a request that gets no answer in time ends in "timeout"', async () => {
    const config = { ...testConfig(), timeoutMs: 30 };
    const tab = await h.signIn({ config });
    h.idp.api = () => new Promise<Response>(() => {});
    await expect(tab.auth.authFetch(API_URL)).rejects.toMatchObject({ code: 'timeout', host: new URL(API_ORIGIN).host });
    expect(h.idp.to(API_URL)[0].init.signal?.aborted).toBe(true);
  });

  it('an unreachable API names its host', async () => {
    const tab = await h.signIn();
    h.idp.api = () => Promise.reject(new TypeError('Failed to fetch'));
    await expect(tab.auth.authFetch(API_URL)).rejects.toMatchObject({ code: 'unreachable', host: new URL(API_ORIGIN).host });
  });

  it("the caller's own abort signal aborts the request", async () => {
    const tab = await h.signIn();
    h.idp.api = () => new Promise<Response>(() => {});
    const controller = new AbortController();
    const pending = tab.auth.authFetch(API_URL, { signal: controller.signal }).catch((err: unknown) => err);
    await vi.waitFor(() => expect(h.idp.to(API_URL)).toHaveLength(1));
    controller.abort();
    expect(await pending).toMatchObject({ code: 'aborted' });
    expect(tab.state.status).toBe('signed-in');
  });

  it('an oversized answer is refused', async () => {
    const tab = await h.signIn();
    h.idp.api = () => new Response('x'.repeat(2 * 1024 * 1024 + 1), { headers: { 'content-type': 'text/plain' } });
    await expect(tab.auth.authFetch(API_URL)).rejects.toMatchObject({ code: 'invalid_response' });
  });
});
