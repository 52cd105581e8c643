// The page's events that keep the session right (lifecycle.ts), on a page whose events the test fires:
// a page that wakes (timers stalled, the network back) tells the engine, one being hidden does not, a
// page back from the back/forward cache undoes a redirect that never happened, and the person's input
// reaches the engine at most once per ACTIVITY_EVERY_MS. Then the same through an instance, on
// happy-dom's window.
import { describe, expect, it, vi } from 'vitest';
import { noSession, useAuthHarness } from '../__fixtures__/harness';
import { API_URL, NAMES } from '../__fixtures__/fake-idp';
import { ACTIVITY_EVERY_MS, listenPage } from './lifecycle';

/** A page whose listeners the test sees and fires, on a clock the test moves. */
function page() {
  const listeners = new Map<string, Set<(event: Event) => void>>();
  const passive = new Set<string>();
  let clock = 1_000_000;
  return {
    listen(type: string, listener: (event: Event) => void, options?: { passive?: boolean }) {
      const set = listeners.get(type) ?? new Set();
      listeners.set(type, set.add(listener));
      if (options?.passive) passive.add(type);
      return () => void set.delete(listener);
    },
    now: () => clock,
    tick: (ms: number) => void (clock += ms),
    fire(type: string, init: { persisted?: boolean; visibilityState?: string } = {}) {
      const { visibilityState, ...rest } = init;
      // As the browser fires it at document, whose visibilityState the listener reads.
      const event = Object.assign(new Event(type), rest);
      if (visibilityState) Object.defineProperty(event, 'target', { value: { visibilityState } });
      for (const listener of [...(listeners.get(type) ?? [])]) listener(event);
    },
    passive,
    count: () => [...listeners.values()].reduce((sum, set) => sum + set.size, 0),
  };
}

/** A page listened to, with the three callbacks as spies; `idle` false leaves `active` out. */
function setup(idle = true) {
  const port = page();
  const calls = { wake: vi.fn(), returned: vi.fn(), active: vi.fn() };
  const remove = listenPage({ port, wake: calls.wake, returned: calls.returned, active: idle ? calls.active : undefined });
  return { port, remove, ...calls };
}

describe('listenPage', () => {
  it.each(['online', 'resume'])('%s wakes the engine: the timers may have stalled, or the network is back', (type) => {
    const { port, wake, returned, active } = setup();
    port.fire(type);
    expect(wake).toHaveBeenCalledTimes(1);
    port.fire(type);
    expect(wake).toHaveBeenCalledTimes(2);
    expect(returned).not.toHaveBeenCalled();
    expect(active).not.toHaveBeenCalled();
  });

  it('a page shown again wakes the engine; one being hidden or closed does not: its answer could be lost, and the refresh token with it', () => {
    const { port, wake } = setup();
    port.fire('visibilitychange', { visibilityState: 'hidden' });
    expect(wake).not.toHaveBeenCalled();
    port.fire('visibilitychange', { visibilityState: 'visible' });
    expect(wake).toHaveBeenCalledTimes(1);
  });

  it('a page shown again, not from the cache, wakes the engine and undoes nothing', () => {
    const { port, wake, returned } = setup();
    port.fire('pageshow', { persisted: false });
    expect(wake).toHaveBeenCalledTimes(1);
    expect(returned).not.toHaveBeenCalled();
  });

  it('a page back from the back/forward cache is told so (its redirect did not happen here), and wakes the engine', () => {
    const { port, wake, returned } = setup();
    port.fire('pageshow', { persisted: true });
    expect(returned).toHaveBeenCalledTimes(1);
    expect(wake).toHaveBeenCalledTimes(1);
  });

  it.each(['pointerdown', 'keydown', 'wheel', 'touchstart', 'scroll'])(
    '%s is the person there: passive, and told at most once per ACTIVITY_EVERY_MS',
    (type) => {
      const { port, active, wake } = setup();
      expect(port.passive.has(type)).toBe(true);
      port.fire(type);
      expect(active).toHaveBeenCalledTimes(1);
      // A person typing: many events, one message.
      port.tick(ACTIVITY_EVERY_MS - 1);
      port.fire(type);
      port.fire(type);
      expect(active).toHaveBeenCalledTimes(1);
      port.tick(1);
      port.fire(type);
      expect(active).toHaveBeenCalledTimes(2);
      expect(wake).not.toHaveBeenCalled();
    },
  );

  it('the throttle is one for every kind of input: a key after a click within the interval tells nothing', () => {
    const { port, active } = setup();
    port.fire('pointerdown');
    port.tick(10);
    port.fire('keydown');
    port.fire('scroll');
    expect(active).toHaveBeenCalledTimes(1);
  });

  it('focus and visibility are no input: they come back by themselves', () => {
    const { port, active } = setup();
    port.fire('visibilitychange', { visibilityState: 'visible' });
    port.fire('pageshow', { persisted: true });
    port.fire('focus');
    expect(active).not.toHaveBeenCalled();
  });

  it('without the idle sign-out, input is not listened to at all', () => {
    const { port } = setup(false);
    expect(port.count()).toBe(4);
    expect(() => port.fire('keydown')).not.toThrow();
  });

  it('the remover removes every listener it added: no event acts afterwards', () => {
    const { port, remove, wake, returned, active } = setup();
    expect(port.count()).toBe(9);
    remove();
    expect(port.count()).toBe(0);
    for (const type of ['visibilitychange', 'online', 'resume', 'keydown']) port.fire(type);
    port.fire('pageshow', { persisted: true });
    expect([wake, returned, active].map((spy) => spy.mock.calls.length)).toEqual([0, 0, 0]);
  });
});

describe('through an instance', () => {
  const h = useAuthHarness();

  /** The page is back from the back/forward cache, as the browser tells it at window. */
  function restoreFromCache() {
    const pageshow = new Event('pageshow');
    Object.defineProperty(pageshow, 'persisted', { value: true });
    window.dispatchEvent(pageshow);
  }

  it('a page restored from the back/forward cache after a sign-out elsewhere shows nothing of the user', async () => {
    const tab = await h.signIn();
    const other = h.newTab();
    await other.auth.start();
    expect(other.state.status).toBe('signed-in');
    other.auth.signOut();
    await vi.waitFor(() => expect(tab.state.status).toBe('signed-out'));
    restoreFromCache();
    // A round trip to the engine after the page's wake: nothing of the person comes back, no token either.
    await expect(tab.auth.fetch(API_URL)).rejects.toMatchObject({ code: 'unauthenticated' });
    expect(tab.state).toMatchObject({ status: 'signed-out', user: null });
  });

  it("a page restored from the cache shows the engine's session, whatever the storage hint says now", async () => {
    const tab = await h.signIn();
    localStorage.removeItem(NAMES.key('hint')); // another script of the origin, or a stale tab
    restoreFromCache();
    expect(tab.state).toMatchObject({ status: 'signed-in', user: { sub: 'alice-sub' } });
    // The engine still holds the session: a call is sent with its token.
    expect((await tab.auth.fetch(API_URL)).status).toBe(200);
  });

  it('Back from the identity service to a cached page that began a sign-in shows it as before, not an endless redirect', async () => {
    const tab = h.newTab();
    await tab.auth.start();
    await tab.auth.signIn();
    expect(tab.state.status).toBe('redirecting');
    restoreFromCache();
    expect(tab.state).toEqual(noSession('signed-out'));
  });

  it('a page restored from the back/forward cache while still signed in stays signed in', async () => {
    const tab = await h.signIn();
    restoreFromCache();
    expect(tab.state.status).toBe('signed-in');
  });

  describe('frozen past expiry (timers stalled), with a refresh token', () => {
    async function frozen() {
      vi.useFakeTimers();
      h.idp.refreshTokens = true;
      h.idp.expiresIn = 10;
      const tab = await h.signIn();
      await tab.auth.fetch(API_URL);
      // The clock moves on, no timer fires: a frozen page, a sleeping laptop.
      vi.setSystemTime(Date.now() + 60_000);
      return tab;
    }

    it('resumed (Page Lifecycle `resume`, at document): renewed at once', async () => {
      const tab = await frozen();
      const resumedAt = Date.now();
      document.dispatchEvent(new Event('resume'));
      await vi.waitFor(() => expect(h.idp.tokenRequests('refresh_token')).toHaveLength(1));
      await vi.waitFor(() => expect(tab.state.expiresAt).toBeGreaterThanOrEqual(resumedAt + 10_000));
      expect(tab.state).toMatchObject({ status: 'signed-in', offline: false });
    });

    it('the first API call before any event: renewed first, then sent with the new token', async () => {
      const tab = await frozen();
      const sent = h.idp.to(API_URL).length;
      expect((await tab.auth.fetch(API_URL)).status).toBe(200);
      expect(h.idp.tokenRequests('refresh_token')).toHaveLength(1);
      // One request to the API, with the renewed token: the expired one was never sent.
      expect(h.idp.to(API_URL)).toHaveLength(sent + 1);
      expect(h.idp.to(API_URL).at(-1)!.headers.get('authorization')).toBe(
        `Bearer ${h.idp.issued.at(-1)!.access_token as string}`,
      );
    });

    it('and offline: that call fails unreachable, never session_expired, and the session stays, offline', async () => {
      const tab = await frozen();
      h.idp.token = () => {
        throw new TypeError('Failed to fetch');
      };
      await expect(tab.auth.fetch(API_URL)).rejects.toMatchObject({ code: 'unreachable' });
      expect(tab.state).toMatchObject({ status: 'signed-in', offline: true, user: { sub: 'alice-sub' } });
      // Offline, a call does not start a renewal of its own: the backoff and the page's events do.
      await expect(tab.auth.fetch(API_URL)).rejects.toMatchObject({ code: 'unreachable' });
      expect(h.idp.tokenRequests('refresh_token')).toHaveLength(1);
    });
  });
});
