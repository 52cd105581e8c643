// The session a view reads (session.ts): a Svelte store whose readable side has a reactive `current`,
// and the transitions that are the only ways its state changes. It never carries a token.
import '@testing-library/svelte/vitest';
import { render, screen } from '@testing-library/svelte';
import { tick } from 'svelte';
import { get } from 'svelte/store';
import { describe, expect, it, vi } from 'vitest';
import { useAuthHarness } from '../__fixtures__/harness';
import { APP_URL } from '../__fixtures__/fake-idp';
import type { Auth } from '../auth';
import { authContext } from './context';
import { AuthError } from '../protocol/errors';
import { createEvents } from '../page/events';
import { createSession, reactiveStore, sessionState, type SessionState } from './session';
import SignedInAs from '../__fixtures__/SignedInAs.svelte';

const ALICE = { sub: 'alice-sub', name: 'Alice' };
const SIGNED_OUT = { status: 'signed-out', user: null, expiresAt: null, error: null, known: false, offline: false, endsAt: null };

/** Renders a view that reads `session.current`, as every view of an app does. */
const show = (session: Auth['session']) => render(SignedInAs, { context: authContext({ session } as Auth) });

describe('reactiveStore', () => {
  it("keeps Svelte's store contract: a subscriber gets the value at once and every later one, until it unsubscribes", () => {
    const { set, update, readable } = reactiveStore(1);
    const seen: number[] = [];
    const stop = readable.subscribe((value) => seen.push(value));
    set(2);
    update((value) => value * 10);
    stop();
    set(3);
    expect(seen).toEqual([1, 2, 20]);
    expect(get(readable)).toBe(3);
  });

  it('starts with its first subscriber and stops with its last, each time', () => {
    const stop = vi.fn();
    const start = vi.fn(() => stop);
    const { readable } = reactiveStore('x', start);
    const first = readable.subscribe(() => {});
    const second = readable.subscribe(() => {});
    expect(start).toHaveBeenCalledTimes(1);
    first();
    expect(stop).not.toHaveBeenCalled();
    second();
    expect(stop).toHaveBeenCalledTimes(1);
    readable.subscribe(() => {})();
    expect([start.mock.calls.length, stop.mock.calls.length]).toEqual([2, 2]);
  });

  it('current outside a view is the value, and subscribes to nothing', () => {
    const start = vi.fn(() => () => {});
    const { set, readable } = reactiveStore('a', start);
    expect(readable.current).toBe('a');
    set('b');
    expect(readable.current).toBe('b');
    expect(start).not.toHaveBeenCalled();
  });

  it('current in a view subscribes while the view shows it, and the view follows every change', async () => {
    const stop = vi.fn();
    const start = vi.fn(() => stop);
    const { set, readable } = reactiveStore<SessionState>(sessionState('loading'), start);
    const view = show(readable);
    expect(screen.getByText('loading: nobody')).toBeTruthy();
    expect(start).toHaveBeenCalledTimes(1);
    set({ status: 'signed-in', user: ALICE, expiresAt: 1, error: null, known: true, offline: false, endsAt: null });
    await tick();
    expect(screen.getByText('signed-in: Alice')).toBeTruthy();
    view.unmount();
    expect(stop).toHaveBeenCalledTimes(1);
  });
});

describe('the transitions', () => {
  it('a new session is loading, or starts as it is given', () => {
    expect(createSession(createEvents()).session.current).toEqual({
      status: 'loading',
      user: null,
      expiresAt: null,
      error: null,
      known: false,
      offline: false,
      endsAt: null,
    });
    const initial = sessionState('expired', { code: 'session_expired' });
    expect(createSession(createEvents(), initial).session.current).toBe(initial);
  });

  it('offline keeps the person and the expiry; a renewal, an expiry or a new sign-in ends it', () => {
    const state = createSession<typeof ALICE>(createEvents());
    state.signedIn(ALICE, 1000);
    state.offline();
    expect(state.session.current).toMatchObject({ status: 'signed-in', user: ALICE, expiresAt: 1000, offline: true });
    state.renewed(2000);
    expect(state.session.current).toMatchObject({ status: 'signed-in', expiresAt: 2000, offline: false });
    state.offline();
    state.expired();
    expect(state.session.current).toMatchObject({ status: 'expired', offline: false });
    state.signedIn(ALICE, 3000);
    state.offline();
    state.signedIn(ALICE, 4000);
    expect(state.session.current.offline).toBe(false);
  });

  it('signedIn shows the person and the expiry; renewed moves only the expiry; signedOut shows nobody', () => {
    const state = createSession<typeof ALICE>(createEvents());
    state.signedIn(ALICE, 1000);
    expect(state.session.current).toEqual({
      status: 'signed-in',
      user: ALICE,
      expiresAt: 1000,
      error: null,
      known: true,
      offline: false,
      endsAt: null,
    });
    state.renewed(2000);
    expect(state.session.current).toEqual({
      status: 'signed-in',
      user: ALICE,
      expiresAt: 2000,
      error: null,
      known: true,
      offline: false,
      endsAt: null,
    });
    state.signedOut();
    expect(state.session.current).toEqual(SIGNED_OUT);
  });

  it('failed shows nobody and the error as plain fields, without its cause, with where a new attempt returns', () => {
    const state = createSession<typeof ALICE>(createEvents());
    state.signedIn(ALICE, 1000);
    const cause = new Error('the original, with server text');
    state.failed(new AuthError('cancelled', { oauthError: 'access_denied' }, cause), '/orders');
    const current = state.session.current;
    expect(current).toEqual({
      status: 'error',
      user: null,
      expiresAt: null,
      error: { code: 'cancelled', oauthError: 'access_denied', returnTo: '/orders' },
      known: true,
      offline: false,
      endsAt: null,
    });
    expect(JSON.stringify(current)).not.toContain('server text');
  });

  it("expired shows nobody and session_expired, keeping the failure's details", () => {
    const state = createSession<typeof ALICE>(createEvents());
    state.signedIn(ALICE, 1000);
    state.expired(new AuthError('invalid_grant', { oauthError: 'invalid_grant', status: 400 }), '/notes');
    expect(state.session.current).toEqual({
      status: 'expired',
      user: null,
      expiresAt: null,
      error: { code: 'session_expired', oauthError: 'invalid_grant', status: 400, returnTo: '/notes' },
      known: true,
      offline: false,
      endsAt: null,
    });
    state.expired();
    expect(state.session.current).toMatchObject({ status: 'expired', error: { code: 'session_expired' } });
  });

  it('notice shows nobody, signed out, with a notice that is no failure', () => {
    const state = createSession<typeof ALICE>(createEvents());
    state.signedIn(ALICE, 1000);
    state.notice('unknown_transaction');
    expect(state.session.current).toEqual({ ...SIGNED_OUT, error: { code: 'unknown_transaction' } });
  });

  it('redirecting, then abandoned (Back from the identity service): what showed before comes back', () => {
    const state = createSession<typeof ALICE>(createEvents());
    state.signedIn(ALICE, 1000);
    const before = state.session.current;
    state.redirecting();
    expect(state.session.current).toEqual({
      status: 'redirecting',
      user: null,
      expiresAt: null,
      error: null,
      known: true,
      offline: false,
      endsAt: null,
    });
    state.redirectAbandoned();
    expect(state.session.current).toBe(before);
  });

  it('redirectAbandoned changes nothing unless a redirect is showing', () => {
    const state = createSession<typeof ALICE>(createEvents());
    state.redirecting();
    state.signedIn(ALICE, 1000);
    const current = state.session.current;
    state.redirectAbandoned();
    expect(state.session.current).toBe(current);
  });

  it('every transition reaches the store and the views that read current', async () => {
    const state = createSession<typeof ALICE>(createEvents());
    const seen: string[] = [];
    const stop = state.session.subscribe((s) => seen.push(s.status));
    show(state.session);
    state.signedIn(ALICE, 1000);
    await tick();
    expect(screen.getByText('signed-in: Alice')).toBeTruthy();
    state.expired();
    await tick();
    expect(screen.getByText('expired: nobody')).toBeTruthy();
    stop();
    expect(seen).toEqual(['loading', 'signed-in', 'expired']);
  });
});

describe('through an instance', () => {
  const h = useAuthHarness();

  it('the session store never carries a token', async () => {
    h.idp.refreshTokens = true;
    const tab = await h.signIn();
    const seen: string[] = [];
    const unsubscribe = tab.auth.session.subscribe((s) => seen.push(JSON.stringify(s)));
    tab.auth.signOut();
    unsubscribe();
    expect(seen.map((s) => JSON.parse(s).status)).toEqual(['signed-in', 'signed-out']);
    const body = h.idp.issued[0];
    for (const state of seen) {
      for (const secret of [body.access_token, body.refresh_token, body.id_token]) expect(state).not.toContain(secret as string);
    }
  });

  it("a page that joins shows the engine's session as it is, offline included, and follows its changes", async () => {
    vi.useFakeTimers();
    h.idp.expiresIn = 300;
    h.idp.refreshTokens = true;
    const first = await h.signIn();
    let failures = 1;
    h.idp.token = (request, standard) => (failures-- > 0 ? Promise.reject(new TypeError('Failed to fetch')) : standard(request));
    // The renewal at 240 s cannot reach the identity service: the session goes on, offline.
    await vi.advanceTimersByTimeAsync(240_000);
    expect(first.state).toMatchObject({ status: 'signed-in', offline: true });
    const joining = await h.loadAt(APP_URL);
    expect(joining.state).toEqual({ ...first.state, offline: true });
    // The retry a backoff later works: both pages are online again, with the new expiry.
    await vi.advanceTimersByTimeAsync(15_000);
    for (const tab of [first, joining]) expect(tab.state).toMatchObject({ status: 'signed-in', offline: false });
    expect(joining.state.expiresAt).toBe(first.state.expiresAt);
    expect(first.state.expiresAt).toBeGreaterThan(Date.now() + 250_000);
  });
});
