// The one fetch every request of the auth module goes through (tested through the oauth4webapi
// options that carry it): timeout, size cap, no cookies, no referrer, no redirects followed, errors
// that name the host; for protocol requests (requestOptions) and the app's own (resourceRequestOptions).
import { afterEach, describe, expect, it, vi } from 'vitest';
import * as oauth from 'oauth4webapi';
import { AuthError } from './errors';
import { isLoopbackHost, requestOptions, type Network, type RequestLimits } from './http';
import { resourceRequestOptions } from '../page/fetch';

const URL_ = 'https://api.example.test/x';

/** A network that answers like a browser's fetch: an abort of the request's signal rejects it. */
function network(answer: (request: Request) => Response | Promise<Response> = () => new Response('ok')) {
  return vi.fn<Network>(
    (request) =>
      new Promise<Response>((resolve, reject) => {
        const { signal } = request;
        if (signal.aborted) return reject(signal.reason);
        signal.addEventListener('abort', () => reject(signal.reason), { once: true });
        Promise.resolve(answer(request)).then(resolve, reject);
      }),
  );
}

/** The custom fetch requestOptions hands oauth4webapi. */
const protocolFetch = (net: Network, limits: Partial<RequestLimits> = {}, url = URL_) =>
  requestOptions(net, url, { timeoutMs: 1000, maxBytes: 1000, ...limits })[oauth.customFetch];

afterEach(() => vi.unstubAllGlobals());

const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (err: unknown) => err,
  );

describe('a protocol request (requestOptions)', () => {
  it('omits credentials, referrer and cache, does not follow redirects, and keeps method, headers and body', async () => {
    const net = network();
    const response = await protocolFetch(net)(URL_, { method: 'POST', headers: { a: 'b' }, body: 'x' });
    expect(await response.text()).toBe('ok');
    expect(net).toHaveBeenCalledTimes(1);
    const [request] = net.mock.calls[0];
    expect(request.url).toBe(URL_);
    expect(request.method).toBe('POST');
    expect(request.headers.get('a')).toBe('b');
    expect(await request.text()).toBe('x');
    expect(request.credentials).toBe('omit');
    expect(request.referrerPolicy).toBe('no-referrer');
    expect(request.redirect).toBe('manual');
    expect(request.keepalive).toBe(false);
    expect(request.signal).toBeInstanceOf(AbortSignal);
  });

  it('is sent with keepalive when the limits ask for it', async () => {
    const net = network();
    await protocolFetch(net, { keepalive: true })(URL_, { method: 'POST', body: 'token=x' });
    expect(net.mock.calls[0][0].keepalive).toBe(true);
  });

  it('goes to the network it was given, never to the global fetch', async () => {
    const global = vi.fn();
    vi.stubGlobal('fetch', global);
    const net = network();
    await protocolFetch(net)(URL_);
    expect(net).toHaveBeenCalledTimes(1);
    expect(global).not.toHaveBeenCalled();
  });

  it('keeps status and headers of the answer, and sets its url', async () => {
    const net = network(
      () =>
        new Response('{"e":1}', { status: 400, headers: { 'content-type': 'application/json', 'www-authenticate': 'Bearer' } }),
    );
    const response = await protocolFetch(net)(URL_);
    expect(response.status).toBe(400);
    expect(response.headers.get('www-authenticate')).toBe('Bearer');
    expect(response.url).toBe(URL_);
    expect(await response.json()).toEqual({ e: 1 });
  });

  it("keeps the network answer's own url when it has one", async () => {
    const net = network(() => Object.defineProperty(new Response('ok'), 'url', { value: `${URL_}?from=network` }));
    expect((await protocolFetch(net)(URL_)).url).toBe(`${URL_}?from=network`);
  });

  it.each([301, 302, 303, 307, 308])('a %i redirect is invalid_response naming the host, with one request', async (status) => {
    const net = network(() => new Response(null, { status, headers: { location: 'https://evil.example/' } }));
    const failure = await failureOf(protocolFetch(net)(URL_));
    expect(failure).toBeInstanceOf(AuthError);
    expect(failure).toMatchObject({ code: 'invalid_response', status, host: 'api.example.test' });
    expect(net).toHaveBeenCalledTimes(1);
  });

  it('an opaque redirect is invalid_response too', async () => {
    const net = network(() => Object.defineProperty(new Response(null, { status: 200 }), 'type', { value: 'opaqueredirect' }));
    expect(await failureOf(protocolFetch(net)(URL_))).toMatchObject({ code: 'invalid_response', host: 'api.example.test' });
  });

  it('an answer larger than the cap is refused', async () => {
    const net = network(() => new Response('x'.repeat(1001)));
    expect(await failureOf(protocolFetch(net)(URL_))).toMatchObject({ code: 'invalid_response', host: 'api.example.test' });
  });

  it('an answer that declares a larger size is refused', async () => {
    const net = network(() => new Response('x', { headers: { 'content-length': '5000' } }));
    expect(await failureOf(protocolFetch(net)(URL_))).toMatchObject({ code: 'invalid_response' });
  });

  it('an answer at the cap is accepted', async () => {
    const net = network(() => new Response('x'.repeat(1000)));
    expect(await (await protocolFetch(net)(URL_)).text()).toHaveLength(1000);
  });

  /** An answer whose headers arrive, then part of its body, then `end` of the rest (a browser's fetch errors the body on abort). */
  const partial = (end: (request: Request, body: ReadableStreamDefaultController<Uint8Array>) => void, headers = {}) =>
    network(
      (request) =>
        new Response(
          new ReadableStream<Uint8Array>({
            start(body) {
              body.enqueue(new TextEncoder().encode('{"access_'));
              request.signal.addEventListener('abort', () => body.error(request.signal.reason), { once: true });
              end(request, body);
            },
          }),
          { headers: { 'content-type': 'application/json', ...headers } },
        ),
    );
  const declared = { 'content-length': '24' };

  it.each([
    ['declares its length', declared],
    ['declares none', {}],
  ])(
    'an answer that %s and is cut off after its headers is "unreachable", not one that fails to parse later',
    async (_, headers) => {
      const failure = await failureOf(
        protocolFetch(partial((_, body) => body.error(new TypeError('network error')), headers))(URL_),
      );
      expect(failure).toMatchObject({ code: 'unreachable', host: 'api.example.test' });
    },
  );

  it.each([
    ['declares its length', declared],
    ['declares none', {}],
  ])('an answer that %s and whose body is still coming at the timeout is "timeout"', async (_, headers) => {
    const failure = await failureOf(
      protocolFetch(
        partial(() => {}, headers),
        { timeoutMs: 20 },
      )(URL_),
    );
    expect(failure).toMatchObject({ code: 'timeout', host: 'api.example.test' });
  });

  it('an answer within the cap is handed on whole, with its status, headers and url', async () => {
    const answer = new Response('{"ok":true}', { status: 201, headers: { 'content-length': '11', 'x-id': '7' } });
    const response = await protocolFetch(network(() => answer))(URL_);
    expect([response.status, response.headers.get('x-id'), response.url]).toEqual([201, '7', URL_]);
    expect(await response.json()).toEqual({ ok: true });
  });

  it('a compressed answer is read against the cap whatever length it declares', async () => {
    const body = 'x'.repeat(1001);
    const answer = new Response(body, { headers: { 'content-length': '20', 'content-encoding': 'gzip' } });
    expect(await failureOf(protocolFetch(network(() => answer))(URL_))).toMatchObject({ code: 'invalid_response' });
  });

  it('an endless answer is cut off at the cap, not read to the end', async () => {
    let pulls = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull: (controller) => (pulls++, controller.enqueue(new Uint8Array(100))),
    });
    const net = network(() => new Response(endless));
    expect(await failureOf(protocolFetch(net)(URL_))).toMatchObject({ code: 'invalid_response' });
    expect(pulls).toBeLessThan(20);
  });

  it('without a cap the answer is returned as it came, unread (it streams)', async () => {
    const answer = new Response(new ReadableStream({ start: (c) => c.enqueue(new TextEncoder().encode('first')) }));
    const net = network(() => answer);
    const response = await protocolFetch(net, { maxBytes: undefined })(URL_);
    expect(response).toBe(answer);
    expect(response.bodyUsed).toBe(false);
  });

  it('a 204 has no body and is fine', async () => {
    const net = network(() => new Response(null, { status: 204 }));
    expect((await protocolFetch(net)(URL_)).status).toBe(204);
  });

  it('no answer in time: "timeout" naming the host, and the request is aborted', async () => {
    const net = network(() => new Promise<Response>(() => {}));
    const failure = await failureOf(protocolFetch(net, { timeoutMs: 20 })(URL_));
    expect(failure).toBeInstanceOf(AuthError);
    expect(failure).toMatchObject({ code: 'timeout', host: 'api.example.test' });
    expect(net.mock.calls[0][0].signal.aborted).toBe(true);
  });

  it('a network failure (a TypeError): "unreachable" naming the host, the original as cause', async () => {
    const down = new TypeError('Failed to fetch');
    const net = network(() => Promise.reject(down));
    const failure = await failureOf(protocolFetch(net)('https://down.example.test:8443/x'));
    expect(failure).toBeInstanceOf(AuthError);
    expect(failure).toMatchObject({ code: 'unreachable', host: 'down.example.test:8443', cause: down });
  });

  it.each(['limits.signal', 'init.signal'])('an abort through %s: "aborted", and the request is aborted', async (which) => {
    const net = network(() => new Promise<Response>(() => {}));
    const controller = new AbortController();
    const request =
      which === 'limits.signal'
        ? protocolFetch(net, { signal: controller.signal })(URL_)
        : protocolFetch(net)(URL_, { signal: controller.signal });
    const settled = failureOf(request);
    await vi.waitFor(() => expect(net).toHaveBeenCalled());
    controller.abort();
    expect(await settled).toMatchObject({ code: 'aborted', host: 'api.example.test' });
    expect(net.mock.calls[0][0].signal.aborted).toBe(true);
  });

  it('plain http is allowed for loopback hosts only', () => {
    const insecure = (url: string) => requestOptions(network(), url, { timeoutMs: 1000 })[oauth.allowInsecureRequests];
    expect(insecure('http://localhost:9010/token')).toBe(true);
    expect(insecure('http://127.0.0.1:9011/userinfo')).toBe(true);
    expect(insecure('https://id.example.test/token')).toBe(false);
    expect(insecure('http://id.example.test/token')).toBe(false);
  });
});

describe("the app's own request (resourceRequestOptions)", () => {
  const template = () =>
    new Request(URL_, {
      method: 'PUT',
      body: 'payload',
      credentials: 'include',
      referrerPolicy: 'origin',
      mode: 'cors',
      headers: { 'x-app': '1' },
    });

  it("sends every member of the caller's request, with the headers oauth4webapi built and no redirect followed", async () => {
    const net = network();
    const options = resourceRequestOptions(net, new URL(URL_), { timeoutMs: 1000 }, template);
    await options[oauth.customFetch](URL_, { headers: { authorization: 'Bearer t' } });
    const [request] = net.mock.calls[0];
    expect([request.method, request.credentials, request.referrerPolicy, request.mode]).toEqual([
      'PUT',
      'include',
      'origin',
      'cors',
    ]);
    expect(request.headers.get('authorization')).toBe('Bearer t');
    expect(request.redirect).toBe('manual');
    expect(await request.text()).toBe('payload');
  });

  it('takes a fresh copy of the template per attempt, so a body can be sent again', async () => {
    const make = vi.fn(template);
    const net = network();
    const send = resourceRequestOptions(net, new URL(URL_), { timeoutMs: 1000 }, make)[oauth.customFetch];
    await send(URL_, {});
    await send(URL_, {});
    expect(make).toHaveBeenCalledTimes(2);
    expect(await Promise.all(net.mock.calls.map(([request]) => request.text()))).toEqual(['payload', 'payload']);
  });

  it('has the same failures: a thrown TypeError is "unreachable", a redirect "invalid_response"', async () => {
    const down = resourceRequestOptions(
      network(() => Promise.reject(new TypeError('x'))),
      new URL(URL_),
      { timeoutMs: 1000 },
      template,
    );
    expect(await failureOf(down[oauth.customFetch](URL_, {}))).toMatchObject({ code: 'unreachable' });
    const moved = resourceRequestOptions(
      network(() => new Response(null, { status: 302, headers: { location: 'https://evil.example/' } })),
      new URL(URL_),
      { timeoutMs: 1000 },
      template,
    );
    expect(await failureOf(moved[oauth.customFetch](URL_, {}))).toMatchObject({ code: 'invalid_response', status: 302 });
  });
});

describe('isLoopbackHost', () => {
  it.each(['localhost', 'LOCALHOST', 'app.localhost', '127.0.0.1', '127.1.2.3', '[::1]'])('%s is loopback', (host) => {
    expect(isLoopbackHost(host)).toBe(true);
  });

  it.each(['example.com', 'localhost.example.com', '128.0.0.1', '127.0.0.1.example.com', '[::2]', ''])('%j is not', (host) => {
    expect(isLoopbackHost(host)).toBe(false);
  });
});
