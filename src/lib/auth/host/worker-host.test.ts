// The shared worker's side (worker-host.ts): named by the whole configuration, one engine for every
// page of the app, its session kept while any page lives and `keepSessionMs` after the last page's
// lock is released (a reload, Back), then forgotten without a word to the provider.
import { describe, expect, it, vi } from 'vitest';
import { useAuthHarness, type Tab } from '../__fixtures__/harness';
import { APP_URL, FakeLocks, FakeMessageChannel, REVOCATION_URL, testOptions } from '../__fixtures__/fake-idp';
import { appNames } from '../browser/storage';
import { issuerOf, KEEP_SESSION_MS, workerName } from '../options';
import { optionsOf, serveWorker } from './worker-host';

describe('the worker name', () => {
  const options = testOptions();

  it('carries the whole configuration, read back as it was', () => {
    expect(optionsOf(workerName(options))).toEqual(options);
    expect(workerName({ ...options, clientId: 'other-spa' })).not.toBe(workerName(options));
  });

  it("is the engine's configuration only: an app's own settings beside it, and maxResponseBytes, name the same worker", () => {
    const withAppSettings = { ...options, maxResponseBytes: 1000, apiUrl: 'http://127.0.0.1:9012/api' };
    expect(workerName(withAppSettings)).toBe(workerName(options));
    expect(workerName({ ...options, scope: 'openid other' })).not.toBe(workerName(options));
    expect(workerName({ ...options, keepSessionMs: 0 })).not.toBe(workerName(options));
  });

  it.each([
    ['no configuration', 'auth {}'],
    ['JSON that is no configuration', 'auth null'],
    ['a configuration without an issuer', `auth ${JSON.stringify({ clientId: 'demo-spa' })}`],
    ['an issuer that is not text', `auth ${JSON.stringify({ clientId: 'demo-spa', issuer: 7 })}`],
    ['a client id that is not text', `auth ${JSON.stringify({ ...options, clientId: 7 })}`],
    ['another prefix of the same length', `Auth ${JSON.stringify(options)}`],
  ])('refuses %s as not named by workerName', (_, name) => {
    expect(() => optionsOf(name)).toThrow(new TypeError('auth worker: not named by workerName'));
  });

  it.each([
    ['options the page would refuse', `auth ${JSON.stringify({ ...options, keepSessionMs: -1 })}`],
    ['an idle option the page would refuse', `auth ${JSON.stringify({ ...options, idle: { timeoutMs: 1, warnMs: 2 } })}`],
    ['no configuration', 'auth {}'],
    ['not JSON', 'auth {clientId'],
    ['JSON that is no configuration', 'auth null'],
    ['a name without the prefix', JSON.stringify(options)],
  ])('refuses %s with a TypeError', (_, name) => {
    expect(() => optionsOf(name)).toThrow(TypeError);
  });
});

describe('how long the worker keeps the session', () => {
  const h = useAuthHarness({ server: { revocation_endpoint: REVOCATION_URL } });

  /** Alice signed in, her one tab open; the session's token outlives every wait here. */
  async function signedIn(keepSessionMs?: number) {
    h.idp.expiresIn = 3_600;
    h.options = { ...h.options, keepSessionMs };
    const tab = await h.signIn();
    vi.useFakeTimers();
    return tab;
  }

  /** A new page of the app: it shows the worker's session with no request to the provider, or finds none. */
  async function newPage(): Promise<Tab & { asked: boolean }> {
    const requests = h.idp.requests.length;
    const navigations = h.assign.mock.calls.length;
    const tab = await h.loadAt(APP_URL);
    const asked = h.idp.requests.length > requests || h.assign.mock.calls.length > navigations;
    return Object.assign(tab, { asked });
  }

  it('is kept while any page lives, however long', async () => {
    const first = await signedIn();
    const second = await newPage();
    await h.close(first);
    await vi.advanceTimersByTimeAsync(10 * KEEP_SESSION_MS);
    expect(second.state.user?.sub).toBe('alice-sub');
    expect(await newPage()).toMatchObject({ asked: false, state: { status: 'signed-in' } });
  });

  it('is kept keepSessionMs (default two minutes) after the last page: a new page gets it with no request', async () => {
    await h.closeTabs();
    await signedIn();
    await h.closeTabs();
    await vi.advanceTimersByTimeAsync(KEEP_SESSION_MS - 1);
    const reloaded = await newPage();
    expect(reloaded).toMatchObject({ asked: false, state: { status: 'signed-in', user: { sub: 'alice-sub' } } });
    // The page that came back starts the window over once it is gone.
    await h.close(reloaded);
    await vi.advanceTimersByTimeAsync(KEEP_SESSION_MS - 1);
    expect(await newPage()).toMatchObject({ asked: false, state: { status: 'signed-in' } });
  });

  it('is forgotten keepSessionMs after the last page, without a request to the provider', async () => {
    await signedIn(30_000);
    await h.closeTabs();
    const requests = h.idp.requests.length;
    await vi.advanceTimersByTimeAsync(30_000);
    expect(h.idp.requests).toHaveLength(requests);
    const later = await newPage();
    // No session in the worker: the page restores with the provider (prompt=none) instead.
    expect(later.asked).toBe(true);
    expect(later.state.status).not.toBe('signed-in');
  });

  it('is forgotten at once with keepSessionMs 0', async () => {
    await signedIn(0);
    await h.closeTabs();
    await vi.advanceTimersByTimeAsync(0);
    expect(await newPage()).toMatchObject({ asked: true });
  });
});

describe('the pages the worker watches', () => {
  const options = testOptions();
  const lock = appNames(issuerOf(options), options.clientId).lock;

  /** The worker of the test app, with the locks it asks for; pages connect over fake ports. */
  function worker() {
    const locks = new FakeLocks();
    const requested = vi.spyOn(locks, 'request');
    const scope = Object.assign(new EventTarget(), { name: workerName(options) });
    const network = () => Promise.reject(new TypeError('offline'));
    serveWorker({ scope: scope as never, locks, network, now: Date.now, channel: () => undefined });
    function page() {
      const { port1, port2 } = new FakeMessageChannel();
      scope.dispatchEvent(Object.assign(new Event('connect'), { ports: [port1] }));
      return port2;
    }
    return { page, locks: () => requested.mock.calls.map(([name]) => name) };
  }

  it("watches the lock a page's join names, once: nothing a page says before or after names another", async () => {
    const { page, locks } = worker();
    const port = page();
    port.postMessage('join');
    port.postMessage({ id: 0, type: 'wake', body: {} });
    port.postMessage({ id: 1, type: 'join', body: { page: 'p'.repeat(36) } });
    port.postMessage({ id: 2, type: 'join', body: { page: 'q'.repeat(36) } });
    await vi.waitFor(() => expect(locks()).toHaveLength(1));
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(locks()).toEqual([lock + 'p'.repeat(36)]);
  });
});
