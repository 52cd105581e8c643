// The page's events that keep the session right (page.ts), over a real vault and session and a page whose
// events the test fires: a page that wakes checks the session's expiry, a page back from the
// back/forward cache shows neither an endless redirect nor a person another tab signed out. Then the
// same through an instance, on happy-dom's window.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { noSession, useAuthHarness } from '../../../testing/auth-harness';
import { API_URL, NAMES } from '../../../testing/fake-idp';
import { listenPage } from './lifecycle';
import type { TokenSet } from '../protocol/steps';
import { createEvents } from '../page/events';
import { createSession } from '../svelte/session';
import type { Hint } from './storage';
import { AuthError } from '../protocol/errors';
import { createVault } from '../session/tokens';

const ALICE = { sub: 'alice' };
let now: number;

/** A page whose listeners the test sees and fires. */
function page() {
  const listeners = new Map<string, Set<(event: Event) => void>>();
  return {
    listeners,
    listen(type: string, listener: (event: Event) => void) {
      const set = listeners.get(type) ?? new Set();
      listeners.set(type, set.add(listener));
      return () => void set.delete(listener);
    },
    fire(type: string, init: { persisted?: boolean } = {}) {
      const event = Object.assign(new Event(type), init);
      for (const listener of [...(listeners.get(type) ?? [])]) listener(event);
    },
    count: () => [...listeners.values()].reduce((sum, set) => sum + set.size, 0),
  };
}

/** A page of a signed-in session whose tokens expire in a minute, with no refresh token; `hint` as storage has it. */
function setup(hint: Hint) {
  const state = createSession<typeof ALICE>(createEvents());
  const vault = createVault({
    client: { client_id: 'spa' },
    now: () => now,
    scope: 'openid',
    renewed: (tokens) => state.renewed(tokens.expiresAt),
    offline: state.offline,
    ended: (error) => state.expired(error),
    retrying: () => {},
  });
  const tokens: TokenSet = { accessToken: 'at-1', expiresAt: now + 60_000, subject: ALICE.sub };
  vault.hold({ tokens, scope: 'openid' });
  state.signedIn(ALICE, tokens.expiresAt);
  const port = page();
  const signOut = vi.fn();
  const remove = listenPage({ port, vault, state, storage: { readHint: () => hint }, signOut });
  return { state, vault, port, signOut, remove };
}

describe('listenPage', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    now = 1_000_000;
  });
  afterEach(() => vi.useRealTimers());

  it.each(['visibilitychange', 'online', 'resume'])(
    '%s checks the expiry the stalled timers missed: an expired session ends at once',
    (type) => {
      const { state, port } = setup('had-session');
      port.fire(type);
      expect(state.session.current.status).toBe('signed-in');
      // The clock passed the expiry while the laptop slept; no timer fired.
      now += 61_000;
      port.fire(type);
      expect(state.session.current).toMatchObject({ status: 'expired', user: null, error: { code: 'session_expired' } });
    },
  );

  it('a page being hidden or closed starts no renewal, not even offline: its answer could be lost, and the refresh token with it', async () => {
    const state = createSession<typeof ALICE>(createEvents());
    const grant = vi.fn(async () => {
      throw new AuthError('unreachable');
    });
    const vault = createVault({
      client: { client_id: 'spa' },
      now: () => now,
      scope: 'openid',
      grant: async () => grant,
      renewed: (tokens) => state.renewed(tokens.expiresAt),
      offline: state.offline,
      ended: (error) => state.expired(error),
      retrying: () => {},
    });
    vault.hold({ tokens: { accessToken: 'at-1', refreshToken: 'rt-1', expiresAt: now + 60_000 }, scope: 'openid' });
    await vault.renew();
    expect(vault.offline()).toBe(true);
    const port = page();
    listenPage({ port, vault, state, storage: { readHint: () => 'had-session' }, signOut: vi.fn() });
    // The event as the browser fires it at document, whose visibilityState the listener reads.
    const visibility = (visibilityState: string) =>
      ({ type: 'visibilitychange', target: { visibilityState } }) as unknown as Event;
    for (const listener of port.listeners.get('visibilitychange')!) listener(visibility('hidden'));
    await vi.advanceTimersByTimeAsync(0);
    expect(grant).toHaveBeenCalledTimes(1);
    for (const listener of port.listeners.get('visibilitychange')!) listener(visibility('visible'));
    await vi.advanceTimersByTimeAsync(0);
    expect(grant).toHaveBeenCalledTimes(2);
  });

  it('a page shown again, not from the cache, checks the expiry too', () => {
    const { state, port } = setup('had-session');
    now += 61_000;
    port.fire('pageshow', { persisted: false });
    expect(state.session.current.status).toBe('expired');
  });

  it('a page back from the cache that began a redirect shows what it showed before it', () => {
    const { state, port } = setup('had-session');
    state.redirecting();
    port.fire('pageshow', { persisted: true });
    expect(state.session.current).toMatchObject({ status: 'signed-in', user: ALICE });
  });

  it.each<[string, Hint]>([
    ['signed out elsewhere', 'signed-out'],
    ['left no hint (a refused restore elsewhere)', undefined],
  ])('a page back from the cache whose browser %s signs out: nothing of the person stays', (_name, hint) => {
    const { vault, port, signOut } = setup(hint);
    port.fire('pageshow', { persisted: true });
    expect(signOut).toHaveBeenCalledTimes(1);
    expect(vault.tokens()).toBeDefined(); // signing out (revoking what it holds) is the instance's job
  });

  it('a page back from the cache of a browser still signed in stays signed in, and checks the expiry', () => {
    const { state, port, signOut } = setup('had-session');
    port.fire('pageshow', { persisted: true });
    expect(signOut).not.toHaveBeenCalled();
    expect(state.session.current.status).toBe('signed-in');
    now += 61_000;
    port.fire('pageshow', { persisted: true });
    expect(state.session.current.status).toBe('expired');
    expect(signOut).not.toHaveBeenCalled();
  });

  it('a page back from the cache without a session has nothing to sign out', () => {
    const { vault, port, signOut } = setup('signed-out');
    vault.drop();
    port.fire('pageshow', { persisted: true });
    expect(signOut).not.toHaveBeenCalled();
  });

  it('the remover removes every listener it added: no event acts afterwards', () => {
    const { state, port, signOut, remove } = setup('signed-out');
    expect(port.count()).toBe(4);
    remove();
    expect(port.count()).toBe(0);
    now += 61_000;
    state.redirecting();
    for (const type of ['visibilitychange', 'online']) port.fire(type);
    port.fire('pageshow', { persisted: true });
    expect(state.session.current.status).toBe('redirecting');
    expect(signOut).not.toHaveBeenCalled();
  });
});

describe('through an instance', () => {
  const h = useAuthHarness();

  it('a page restored from the back/forward cache after a sign-out elsewhere shows nothing of the user', async () => {
    const tab = await h.signIn();
    localStorage.removeItem(NAMES.key('hint')); // what the other tab's sign-out left behind
    const pageshow = new Event('pageshow');
    Object.defineProperty(pageshow, 'persisted', { value: true });
    window.dispatchEvent(pageshow);
    await vi.waitFor(() => expect(tab.state.status).toBe('signed-out'));
    expect(tab.state.user).toBeNull();
  });

  it('Back from the identity service to a cached page that began a sign-in shows it as before, not an endless redirect', async () => {
    const tab = h.newTab();
    await tab.auth.start();
    await tab.auth.signIn();
    expect(tab.state.status).toBe('redirecting');
    const pageshow = new Event('pageshow');
    Object.defineProperty(pageshow, 'persisted', { value: true });
    window.dispatchEvent(pageshow);
    expect(tab.state).toEqual(noSession('signed-out'));
  });

  it('a page restored from the back/forward cache while still signed in stays signed in', async () => {
    const tab = await h.signIn();
    const pageshow = new Event('pageshow');
    Object.defineProperty(pageshow, 'persisted', { value: true });
    window.dispatchEvent(pageshow);
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
