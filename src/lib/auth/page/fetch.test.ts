// auth.fetch: a drop-in fetch; where the token may go, how it goes, and what a 401/403 leads to. Its
// tokens come from the session engine (one per app), so two tabs renew once and no page holds a refresh token.
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { useAuthHarness } from '../__fixtures__/harness';
import {
  API_ORIGIN,
  API_URL,
  APP_URL,
  FakeMessageChannel,
  OTHER_API_ORIGIN,
  OTHER_API_URL,
  USERINFO_URL,
  allStorage,
  challenge,
  challengeHeader,
  cutOff,
  deferred,
  json,
  testOptions,
} from '../__fixtures__/fake-idp';
import { AuthError } from '../protocol/errors';

const h = useAuthHarness();

const accessToken = (n: number) => h.idp.issued[n].access_token as string;
const bearerOf = (index: number) => h.idp.to(API_URL)[index]?.headers.get('authorization');

interface PagePortLike {
  addEventListener(type: 'message', listener: (event: Event) => void): void;
  postMessage(message: unknown): void;
}

/**
 * What the pages opened from now on send to their engine and receive from it, over the shared worker's
 * port or the in-page host's channel: everything that crosses into a page's client.
 */
function pageTraffic() {
  const sent: { type?: string }[] = [];
  const received: unknown[] = [];
  const tap = (port: PagePortLike) => {
    port.addEventListener('message', (event) => received.push((event as MessageEvent).data));
    const post = port.postMessage.bind(port);
    port.postMessage = (message) => (sent.push(message as { type?: string }), post(message));
  };
  const browser = h.port;
  h.port = () => {
    const port = browser();
    return {
      ...port,
      sharedWorker(name) {
        const worker = port.sharedWorker(name);
        if (worker) tap(worker.port);
        return worker;
      },
    };
  };
  onTestFinished(() => void (h.port = browser));
  // The in-page host's channel: its second port is the page's end.
  class Tapped extends FakeMessageChannel {
    constructor() {
      super();
      tap(this.port2);
    }
  }
  vi.stubGlobal('MessageChannel', Tapped);
  return { sent, received, commands: (type: string) => sent.filter((message) => message.type === type) };
}

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
    const failure = await tab.auth.fetch(url).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(AuthError);
    expect(failure).toMatchObject({ code: 'forbidden_origin' });
    expect(h.idp.fetch.mock.calls.length).toBe(before);
  });

  it('refuses a URL object outside the allow-list too', async () => {
    const tab = await h.signIn();
    await expect(tab.auth.fetch(new URL('http://evil.example/'))).rejects.toMatchObject({ code: 'forbidden_origin' });
  });

  it.each([
    ['an apiOrigins entry', API_URL],
    ["the userinfo endpoint's origin", USERINFO_URL],
    ['a URL object', new URL(API_URL)],
  ])('sends the Bearer token to %s', async (_name, url) => {
    const tab = await h.signIn();
    const before = h.idp.requests.length;
    const response = await tab.auth.fetch(url);
    expect(response.status).toBe(200);
    const [request] = h.idp.requests.slice(before);
    expect(request.url).toBe(String(url));
    expect(request.headers.get('authorization')).toBe(`Bearer ${accessToken(0)}`);
  });

  it('sends no cookies, follows no redirects, sends no referrer, and asks no cache, when the caller set none', async () => {
    const tab = await h.signIn();
    await tab.auth.fetch(API_URL);
    const { init } = h.idp.to(API_URL)[0];
    expect(init.credentials).toBe('omit');
    expect(init.redirect).toBe('manual');
    expect(init.referrerPolicy).toBe('no-referrer');
  });

  it('follows no redirect even when the caller asks to', async () => {
    const tab = await h.signIn();
    await tab.auth.fetch(API_URL, { redirect: 'follow' });
    expect(h.idp.to(API_URL)[0].init.redirect).toBe('manual');
  });

  it.each([
    ['https://api.example.test/', 'https://api.example.test/x'],
    ['https://api.example.test', 'https://api.example.test/x'],
    ['https://API.example.test:443/path', 'https://api.example.test/x'],
  ])('an apiOrigins entry %s allows its origin however it is written', async (entry, url) => {
    const options = { ...testOptions(), apiOrigins: [entry] };
    const tab = await h.signIn({ options });
    h.idp.fetch.mockClear();
    await tab.auth.fetch(url).catch(() => {});
    expect(h.idp.fetch).toHaveBeenCalledTimes(1);
    await expect(tab.auth.fetch('https://api.example.test.evil/x')).rejects.toMatchObject({ code: 'forbidden_origin' });
  });

  it('passes method, headers and body through, and returns the response', async () => {
    const tab = await h.signIn();
    h.idp.api = async (request) =>
      json({ echo: new TextDecoder().decode(request.body as ArrayBuffer), type: request.headers.get('content-type') });
    const response = await tab.auth.fetch(API_URL, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"a":1}',
    });
    expect(await response.json()).toEqual({ echo: '{"a":1}', type: 'application/json' });
    expect(h.idp.to(API_URL)[0].method).toBe('POST');
  });

  it('a redirect is invalid_response, and nothing is sent to where it points', async () => {
    const tab = await h.signIn();
    h.idp.api = () => new Response(null, { status: 302, headers: { location: 'http://evil.example/steal' } });
    const failure = await tab.auth.fetch(API_URL).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(AuthError);
    expect(failure).toMatchObject({ code: 'invalid_response', status: 302 });
    expect(h.idp.to(API_URL)).toHaveLength(1);
    expect(h.idp.requests.filter((r) => r.url.startsWith('http://evil.example'))).toHaveLength(0);
  });

  it('refuses when signed out, without a request', async () => {
    const tab = h.newTab();
    await tab.auth.start();
    await expect(tab.auth.fetch(API_URL)).rejects.toMatchObject({ code: 'unauthenticated' });
    expect(h.idp.requests).toHaveLength(0);
  });
});

describe('401 and 403', () => {
  it('concurrent 401 invalid_token: exactly one renewal, then one replay of each with the new token', async () => {
    h.idp.refreshTokens = true;
    const traffic = pageTraffic();
    const tab = await h.signIn();
    h.idp.validAccessTokens.delete(accessToken(0));
    const release = deferred<void>();
    h.idp.token = async (request, standard) => {
      await release.promise;
      return standard(request);
    };
    const calls = [1, 2, 3].map(() => tab.auth.fetch(API_URL));
    await vi.waitFor(() => expect(h.idp.tokenRequests('refresh_token')).toHaveLength(1));
    // Every first attempt has come back with its 401 and asked the engine to renew before the renewal answers.
    await vi.waitFor(() => expect(traffic.commands('renew')).toHaveLength(3));
    release.resolve();
    const responses = await Promise.all(calls);
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(h.idp.tokenRequests('refresh_token')).toHaveLength(1);
    const bearers = h.idp.to(API_URL).map((r) => r.headers.get('authorization'));
    expect(bearers).toEqual([...Array(3).fill(`Bearer ${accessToken(0)}`), ...Array(3).fill(`Bearer ${accessToken(1)}`)]);
    expect(tab.state.status).toBe('signed-in');
  });

  it('two tabs refused the same token at once: one renewal for both, each replays with the new token', async () => {
    h.idp.refreshTokens = true;
    const traffic = pageTraffic();
    const tabs = [await h.signIn(), await h.loadAt(APP_URL)];
    expect(tabs[1].state.status).toBe('signed-in');
    h.idp.validAccessTokens.delete(accessToken(0));
    const release = deferred<void>();
    h.idp.token = async (request, standard) => (await release.promise, standard(request));
    const calls = tabs.map((tab) => tab.auth.fetch(API_URL));
    // Both tabs' 401s have reached the engine while the one renewal is under way.
    await vi.waitFor(() => expect(traffic.commands('renew')).toHaveLength(2));
    release.resolve();
    expect((await Promise.all(calls)).map((r) => r.status)).toEqual([200, 200]);
    expect(h.idp.tokenRequests('refresh_token')).toHaveLength(1);
    const bearers = h.idp.to(API_URL).map((r) => r.headers.get('authorization'));
    expect(bearers).toEqual([...Array(2).fill(`Bearer ${accessToken(0)}`), ...Array(2).fill(`Bearer ${accessToken(1)}`)]);
    expect(tabs.map((tab) => tab.state.status)).toEqual(['signed-in', 'signed-in']);
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
    const a = tab.auth.fetch(API_URL);
    const b = tab.auth.fetch(API_URL);
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
    const failure = await tab.auth.fetch(API_URL).catch((err: unknown) => err);
    expect(failure).toMatchObject({ code: 'session_expired' });
    expect(h.idp.to(API_URL)).toHaveLength(2);
    expect(h.idp.tokenRequests('refresh_token')).toHaveLength(1);
    expect(tab.state.status).toBe('expired');
    expect(bearerOf(1)).toBe(`Bearer ${accessToken(1)}`);
  });

  it('401 invalid_token without a refresh token: expired after one request', async () => {
    const tab = await h.signIn();
    h.idp.validAccessTokens.clear();
    await expect(tab.auth.fetch(API_URL)).rejects.toMatchObject({ code: 'session_expired' });
    expect(h.idp.to(API_URL)).toHaveLength(1);
    expect(h.idp.tokenRequests('refresh_token')).toHaveLength(0);
    expect(tab.state).toMatchObject({ status: 'expired', user: null });
  });

  it('401 invalid_token when the renewal is refused (invalid_grant): expired, one request', async () => {
    h.idp.refreshTokens = true;
    const tab = await h.signIn();
    h.idp.validAccessTokens.clear();
    h.idp.currentRefreshToken = 'revoked';
    await expect(tab.auth.fetch(API_URL)).rejects.toMatchObject({ code: 'session_expired' });
    expect(h.idp.to(API_URL)).toHaveLength(1);
    expect(h.idp.tokenRequests('refresh_token')).toHaveLength(1);
    expect(tab.state.status).toBe('expired');
  });

  it('403 insufficient_scope is a typed error and is never retried', async () => {
    h.idp.refreshTokens = true;
    const tab = await h.signIn();
    h.idp.api = () => challenge(403, 'insufficient_scope');
    const failure = await tab.auth.fetch(API_URL).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(AuthError);
    expect(failure).toMatchObject({ code: 'insufficient_scope', status: 403 });
    expect(h.idp.to(API_URL)).toHaveLength(1);
    expect(h.idp.tokenRequests('refresh_token')).toHaveLength(0);
    expect(tab.state.status).toBe('signed-in');
  });

  describe('an origin without an apis entry (the sign-in token)', () => {
    const asking = (scope: string) => () => challengeHeader(403, `Bearer error="insufficient_scope", scope="${scope}"`);

    it('may ask for the scope every sign-in asks for, and stepUpScopes: insufficient_scope with no API named', async () => {
      const options = testOptions({ stepUpScopes: 'api.write' });
      const tab = await h.signIn({ options });
      h.idp.api = asking(`${options.scope.split(' ')[0]} api.write`);
      const failure = (await tab.auth.fetch(API_URL).catch((err: unknown) => err)) as AuthError;
      expect(failure.toJSON()).toEqual({
        code: 'insufficient_scope',
        oauthError: 'insufficient_scope',
        status: 403,
        scope: `${options.scope.split(' ')[0]} api.write`,
      });
    });

    it.each([
      ['without stepUpScopes', {}],
      ['beyond stepUpScopes', { stepUpScopes: 'api.read' }],
    ])('%s, any other scope is scope_not_allowed: nothing to ask, never retried', async (_name, overrides) => {
      h.idp.refreshTokens = true;
      const tab = await h.signIn({ options: testOptions(overrides) });
      h.idp.api = asking('api.write');
      const failure = (await tab.auth.fetch(API_URL).catch((err: unknown) => err)) as AuthError;
      expect(failure).toBeInstanceOf(AuthError);
      expect(failure.toJSON()).toEqual({ code: 'scope_not_allowed', oauthError: 'insufficient_scope', status: 403 });
      expect(h.idp.to(API_URL)).toHaveLength(1);
      expect(h.idp.tokenRequests('refresh_token')).toHaveLength(0);
      expect(tab.state.status).toBe('signed-in');
    });
  });

  it('a 401 with another error is not a reason to renew', async () => {
    h.idp.refreshTokens = true;
    const tab = await h.signIn();
    h.idp.api = () => challenge(401, 'invalid_request');
    const refused = tab.auth.fetch(API_URL);
    await expect(refused).rejects.toBeInstanceOf(AuthError);
    await expect(refused).rejects.toMatchObject({ code: 'http_error', oauthError: 'invalid_request', status: 401 });
    expect(h.idp.to(API_URL)).toHaveLength(1);
    expect(h.idp.tokenRequests('refresh_token')).toHaveLength(0);
  });
});

describe('failures', () => {
  it('a request that gets no answer in time ends in "timeout"', async () => {
    const options = { ...testOptions(), timeoutMs: 30 };
    const tab = await h.signIn({ options });
    h.idp.api = () => new Promise<Response>(() => {});
    await expect(tab.auth.fetch(API_URL)).rejects.toMatchObject({ code: 'timeout', host: new URL(API_ORIGIN).host });
    expect(h.idp.to(API_URL)[0].init.signal?.aborted).toBe(true);
  });

  it('an unreachable API names its host', async () => {
    const tab = await h.signIn();
    h.idp.api = () => Promise.reject(new TypeError('Failed to fetch'));
    await expect(tab.auth.fetch(API_URL)).rejects.toMatchObject({ code: 'unreachable', host: new URL(API_ORIGIN).host });
  });

  it("the caller's own abort signal aborts the request", async () => {
    const tab = await h.signIn();
    h.idp.api = () => new Promise<Response>(() => {});
    const controller = new AbortController();
    const pending = tab.auth.fetch(API_URL, { signal: controller.signal }).catch((err: unknown) => err);
    await vi.waitFor(() => expect(h.idp.to(API_URL)).toHaveLength(1));
    controller.abort();
    expect(await pending).toMatchObject({ code: 'aborted' });
    expect(tab.state.status).toBe('signed-in');
  });

  it('without maxResponseBytes an answer of any size is returned, as it streams', async () => {
    const tab = await h.signIn();
    let pulls = 0;
    const endless = new ReadableStream<Uint8Array>({ pull: (c) => (pulls++, c.enqueue(new TextEncoder().encode('chunk'))) });
    h.idp.api = () => new Response(endless, { headers: { 'content-type': 'text/plain' } });
    const response = await tab.auth.fetch(API_URL);
    const reader = response.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('chunk');
    expect(pulls).toBeLessThan(5);
    await reader.cancel();
  });

  describe('with maxResponseBytes', () => {
    const capped = () => ({ ...testOptions(), maxResponseBytes: 1000 });

    it('an answer over the cap is refused as invalid_response naming the host', async () => {
      const tab = await h.signIn({ options: capped() });
      h.idp.api = () => new Response('x'.repeat(1001), { headers: { 'content-type': 'text/plain' } });
      await expect(tab.auth.fetch(API_URL)).rejects.toMatchObject({ code: 'invalid_response', host: new URL(API_ORIGIN).host });
    });

    it('an answer cut off after its headers rejects auth.fetch as unreachable, and the session stays', async () => {
      const tab = await h.signIn({ options: capped() });
      h.idp.api = cutOff;
      await expect(tab.auth.fetch(API_URL)).rejects.toMatchObject({ code: 'unreachable', host: new URL(API_ORIGIN).host });
      expect(tab.state.status).toBe('signed-in');
    });

    it('an answer at the cap is returned whole, with its status, headers and url', async () => {
      const tab = await h.signIn({ options: capped() });
      h.idp.api = () => new Response('x'.repeat(1000), { status: 201, headers: { 'x-id': '7' } });
      const response = await tab.auth.fetch(`${API_URL}?q=1`);
      expect([response.status, response.headers.get('x-id'), response.url]).toEqual([201, '7', `${API_URL}?q=1`]);
      expect(await response.text()).toHaveLength(1000);
    });
  });
});

describe('every RequestInit member', () => {
  const member = (name: string) => (h.idp.to(API_URL)[0].init as unknown as Record<string, unknown>)[name];

  it('passes what the caller set through: cache, mode, keepalive, priority, referrerPolicy, integrity, credentials', async () => {
    const tab = await h.signIn();
    const init = {
      cache: 'reload',
      mode: 'cors',
      keepalive: true,
      priority: 'high',
      referrerPolicy: 'origin',
      integrity: 'sha256-abc',
      credentials: 'include',
    } as RequestInit;
    await tab.auth.fetch(API_URL, init);
    for (const [name, value] of Object.entries(init)) expect(member(name), name).toBe(value);
    expect(member('redirect')).toBe('manual');
  });

  it('defaults credentials omit, referrerPolicy no-referrer and cache no-store where the caller set none', async () => {
    const tab = await h.signIn();
    await tab.auth.fetch(API_URL, { mode: 'cors' });
    expect([member('credentials'), member('referrerPolicy'), member('cache')]).toEqual(['omit', 'no-referrer', 'no-store']);
  });

  it("takes a Request's own members as set, and the defaults where it has none", async () => {
    const tab = await h.signIn();
    await tab.auth.fetch(new Request(API_URL, { credentials: 'include', cache: 'no-cache', referrerPolicy: 'same-origin' }));
    expect([member('credentials'), member('referrerPolicy'), member('cache')]).toEqual(['include', 'same-origin', 'no-cache']);
    await tab.auth.fetch(new Request(API_URL));
    const second = h.idp.to(API_URL)[1].init;
    expect([second.credentials, second.referrerPolicy, second.cache]).toEqual(['omit', 'no-referrer', 'no-store']);
  });

  it('keeps the members on the replay after a renewal', async () => {
    h.idp.refreshTokens = true;
    const tab = await h.signIn();
    h.idp.validAccessTokens.clear();
    await tab.auth.fetch(API_URL, {
      method: 'POST',
      body: 'x',
      keepalive: true,
      cache: 'reload',
      priority: 'low',
    } as RequestInit);
    const [, replay] = h.idp.to(API_URL);
    expect([replay.init.keepalive, replay.init.cache, (replay.init as unknown as { priority: string }).priority]).toEqual([
      true,
      'reload',
      'low',
    ]);
  });
});

describe('a drop-in fetch', () => {
  const text = (body: unknown) => new TextDecoder().decode(body as ArrayBuffer);

  it('is assignable to typeof fetch', async () => {
    const tab = await h.signIn();
    const plain: typeof fetch = tab.auth.fetch;
    expect((await plain(API_URL)).status).toBe(200);
  });

  it('takes a Request: its method, headers and body go out, with the token added', async () => {
    const tab = await h.signIn();
    h.idp.api = (request) => json({ body: text(request.body), header: request.headers.get('x-test'), method: request.method });
    const request = new Request(API_URL, { method: 'PUT', headers: { 'x-test': 'yes' }, body: 'payload' });
    const answer = await (await tab.auth.fetch(request)).json();
    expect(answer).toEqual({ body: 'payload', header: 'yes', method: 'PUT' });
    expect(bearerOf(0)).toBe(`Bearer ${accessToken(0)}`);
  });

  it('refuses a Request for another origin before sending', async () => {
    const tab = await h.signIn();
    const before = h.idp.fetch.mock.calls.length;
    await expect(tab.auth.fetch(new Request('http://evil.example/x'))).rejects.toMatchObject({ code: 'forbidden_origin' });
    expect(h.idp.fetch.mock.calls.length).toBe(before);
  });

  it('resolves a relative URL against the page', async () => {
    const tab = await h.signIn({ options: testOptions({ apiOrigins: [API_ORIGIN, 'http://localhost:5173'] }) });
    h.idp.fetch.mockClear();
    await tab.auth.fetch('notes?x=1').catch(() => {});
    expect(h.idp.requests.at(-1)?.url).toBe('http://localhost:5173/notes?x=1');
  });

  it.each([
    [
      'FormData',
      () => Object.assign(new FormData(), {}),
      (body: string, type: string | null) => type?.startsWith('multipart/form-data; boundary=') && body.includes('name="title"'),
    ],
    [
      'Blob',
      () => new Blob(['blob-bytes'], { type: 'text/plain' }),
      (body: string, type: string | null) => body === 'blob-bytes' && type === 'text/plain',
    ],
    [
      'URLSearchParams',
      () => new URLSearchParams({ a: '1' }),
      (body: string, type: string | null) => body === 'a=1' && !!type?.startsWith('application/x-www-form-urlencoded'),
    ],
    ['Uint8Array', () => new TextEncoder().encode('bytes'), (body: string) => body === 'bytes'],
  ])('sends a %s body with its content type', async (_name, make, check) => {
    const tab = await h.signIn();
    const body = make();
    if (body instanceof FormData) body.set('title', 'Hello');
    h.idp.api = (request) => json({ ok: check(text(request.body), request.headers.get('content-type')) });
    expect(await (await tab.auth.fetch(API_URL, { method: 'POST', body })).json()).toEqual({ ok: true });
  });

  it('replays a FormData body after one renewal, the same bytes both times', async () => {
    h.idp.refreshTokens = true;
    const tab = await h.signIn();
    h.idp.validAccessTokens.clear();
    const form = new FormData();
    form.set('title', 'twice');
    const response = await tab.auth.fetch(API_URL, { method: 'POST', body: form });
    expect(response.status).toBe(200);
    const [first, second] = h.idp.to(API_URL);
    expect(text(second.body)).toBe(text(first.body));
    expect(text(second.body)).toContain('twice');
    expect(h.idp.tokenRequests('refresh_token')).toHaveLength(1);
  });

  it('replays a string body after one renewal: the same body both times', async () => {
    h.idp.refreshTokens = true;
    const tab = await h.signIn();
    h.idp.validAccessTokens.clear();
    const response = await tab.auth.fetch(API_URL, {
      method: 'PUT',
      body: '{"a":1}',
      headers: { 'content-type': 'application/json' },
    });
    expect(response.status).toBe(200);
    expect(h.idp.to(API_URL).map((r) => [text(r.body), r.headers.get('content-type')])).toEqual([
      ['{"a":1}', 'application/json'],
      ['{"a":1}', 'application/json'],
    ]);
  });

  it('does not replay a stream body: the caller gets the 401, the session is renewed for the next request', async () => {
    h.idp.refreshTokens = true;
    const tab = await h.signIn();
    h.idp.validAccessTokens.clear();
    const stream = new ReadableStream({ start: (c) => (c.enqueue(new TextEncoder().encode('once')), c.close()) });
    const response = await tab.auth.fetch(API_URL, { method: 'POST', body: stream, duplex: 'half' } as RequestInit);
    expect(response.status).toBe(401);
    expect(h.idp.to(API_URL)).toHaveLength(1);
    expect(h.idp.tokenRequests('refresh_token')).toHaveLength(1);
    expect(tab.state.status).toBe('signed-in');
    expect((await tab.auth.fetch(API_URL)).status).toBe(200);
  });

  it.each([400, 404, 409, 500, 503])('returns a %i response as fetch does, body intact', async (status) => {
    const tab = await h.signIn();
    h.idp.api = () => json({ error: 'nope' }, status);
    const response = await tab.auth.fetch(API_URL);
    expect(response.status).toBe(status);
    expect(await response.json()).toEqual({ error: 'nope' });
  });

  it('throws AuthError for transport failures, naming the host', async () => {
    const tab = await h.signIn();
    h.idp.api = () => Promise.reject(new TypeError('Failed to fetch'));
    await expect(tab.auth.fetch(API_URL)).rejects.toMatchObject({ code: 'unreachable', host: '127.0.0.1:9012' });
  });

  it('lets a bug in the caller stay a bug: an Authorization header of its own is a TypeError, nothing sent', async () => {
    const tab = await h.signIn();
    const before = h.idp.fetch.mock.calls.length;
    const failure = await tab.auth.fetch(API_URL, { headers: { authorization: 'Basic x' } }).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(TypeError);
    expect(failure).not.toBeInstanceOf(AuthError);
    expect(h.idp.fetch.mock.calls.length).toBe(before);
  });
});

describe('the refresh token never reaches a page', () => {
  const NOTES = { resource: 'https://notes.example/', scope: 'notes.read' };

  /** Every refresh token the provider issued, in order. */
  const refreshTokens = () => h.idp.issued.map((body) => body.refresh_token as string).filter(Boolean);

  it.each([
    ['the shared worker', true],
    ['an in-page engine', false],
  ])(
    'served by %s: after a sign-in, an API grant and a renewal, nothing a page received or stored holds one',
    async (_name, shared) => {
      h.sharedWorkers = shared;
      h.idp.refreshTokens = true;
      const traffic = pageTraffic();
      const options = { ...testOptions(), apis: { [OTHER_API_ORIGIN]: NOTES } };
      const tab = await h.signIn({ options });
      // The API's own token is obtained with the refresh token (RFC 8707), which rotates.
      expect((await tab.auth.fetch(OTHER_API_URL)).status).toBe(200);
      // The sign-in token refused: renewed with the refresh token, then replayed.
      h.idp.validAccessTokens.delete(accessToken(0));
      expect((await tab.auth.fetch(API_URL)).status).toBe(200);
      expect(refreshTokens()).toHaveLength(3);
      const received = JSON.stringify(traffic.received);
      // The tap sees what the engine hands a page: every access token the APIs got came through it.
      for (const request of [...h.idp.to(API_URL), ...h.idp.to(OTHER_API_URL)]) {
        expect(received).toContain(request.headers.get('authorization')!.replace(/^Bearer /, ''));
      }
      for (const refreshToken of refreshTokens()) {
        expect(received).not.toContain(refreshToken);
        expect(JSON.stringify(traffic.sent)).not.toContain(refreshToken);
        expect(allStorage()).not.toContain(refreshToken);
      }
    },
  );

  it('a tab that joins the session receives none either', async () => {
    h.idp.refreshTokens = true;
    const traffic = pageTraffic();
    await h.signIn();
    const joined = await h.loadAt(APP_URL);
    expect(joined.state.status).toBe('signed-in');
    expect((await joined.auth.fetch(API_URL)).status).toBe(200);
    expect(JSON.stringify(traffic.received)).toContain(accessToken(0));
    expect(JSON.stringify(traffic.received)).not.toContain(refreshTokens()[0]);
  });
});
