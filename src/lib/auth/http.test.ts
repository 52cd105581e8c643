// The one fetch every request of the auth module goes through: timeout, size cap, no cookies, no
// referrer, no redirects followed, errors that name the host.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AuthError } from './errors';
import { boundedFetch } from './http';

const URL_ = 'https://api.example.test/x';

function stubFetch(answer: (init: RequestInit) => Response | Promise<Response>) {
  const fetch = vi.fn((_url: string, init: RequestInit = {}) => {
    const signal = init.signal!;
    return new Promise<Response>((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      Promise.resolve(answer(init)).then(resolve, reject);
    });
  });
  vi.stubGlobal('fetch', fetch);
  return fetch;
}

afterEach(() => vi.unstubAllGlobals());

const bounded = (options: Partial<Parameters<typeof boundedFetch>[0]> = {}) =>
  boundedFetch({ timeoutMs: 1000, maxBytes: 1000, ...options });

describe('boundedFetch', () => {
  it('omits credentials, referrer and cache, and does not follow redirects', async () => {
    const fetch = stubFetch(() => new Response('ok'));
    const response = await bounded()(URL_, { method: 'POST', headers: { a: 'b' }, body: 'x' });
    expect(await response.text()).toBe('ok');
    const [url, init = {}] = fetch.mock.calls[0];
    expect(url).toBe(URL_);
    expect(init).toMatchObject({
      method: 'POST',
      headers: { a: 'b' },
      body: 'x',
      credentials: 'omit',
      referrerPolicy: 'no-referrer',
    });
    expect(['manual', 'error']).toContain(init.redirect);
    expect(init.signal).toBeInstanceOf(AbortSignal);
  });

  it('keeps status and headers of the answer', async () => {
    stubFetch(
      () =>
        new Response('{"e":1}', { status: 400, headers: { 'content-type': 'application/json', 'www-authenticate': 'Bearer' } }),
    );
    const response = await bounded()(URL_);
    expect(response.status).toBe(400);
    expect(response.headers.get('www-authenticate')).toBe('Bearer');
    expect(await response.json()).toEqual({ e: 1 });
  });

  it.each([301, 302, 303, 307, 308])('a %i redirect is an error, with one request', async (status) => {
    const fetch = stubFetch(() => new Response(null, { status, headers: { location: 'https://evil.example/' } }));
    const failure = await bounded()(URL_).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(AuthError);
    expect(failure).toMatchObject({ code: 'invalid_response', status, host: 'api.example.test' });
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  it('an answer larger than the cap is refused', async () => {
    stubFetch(() => new Response('x'.repeat(1001)));
    await expect(bounded()(URL_)).rejects.toMatchObject({ code: 'invalid_response' });
  });

  it('an answer that declares a larger size is refused', async () => {
    stubFetch(() => new Response('x', { headers: { 'content-length': '5000' } }));
    await expect(bounded()(URL_)).rejects.toMatchObject({ code: 'invalid_response' });
  });

  it('an answer at the cap is accepted', async () => {
    stubFetch(() => new Response('x'.repeat(1000)));
    expect(await (await bounded()(URL_)).text()).toHaveLength(1000);
  });

  it('a 204 has no body and is fine', async () => {
    stubFetch(() => new Response(null, { status: 204 }));
    expect((await bounded()(URL_)).status).toBe(204);
  });

  it('no answer in time: "timeout" naming the host, and the request is aborted', async () => {
    const fetch = stubFetch(() => new Promise<Response>(() => {}));
    await expect(bounded({ timeoutMs: 20 })(URL_)).rejects.toMatchObject({ code: 'timeout', host: 'api.example.test' });
    expect(fetch.mock.calls[0][1]?.signal?.aborted).toBe(true);
  });

  it('a network failure: "unreachable" naming the host', async () => {
    stubFetch(() => Promise.reject(new TypeError('Failed to fetch')));
    await expect(bounded()('https://down.example.test:8443/x')).rejects.toMatchObject({
      code: 'unreachable',
      host: 'down.example.test:8443',
    });
  });

  it.each(['signal', 'init.signal'])('an abort through %s: "aborted"', async (which) => {
    stubFetch(() => new Promise<Response>(() => {}));
    const controller = new AbortController();
    const request =
      which === 'signal' ? bounded({ signal: controller.signal })(URL_) : bounded()(URL_, { signal: controller.signal });
    const settled = request.catch((err: unknown) => err);
    controller.abort();
    expect(await settled).toMatchObject({ code: 'aborted' });
  });
});
