// The session's events (events.ts): every type with its payload, as the app's listeners get them through
// createAuth over the fake identity service and through the test kit; the session engine's transitions,
// which every page of the session emits (a renewal, a new person, a sign-out elsewhere: 'other-tab'); what
// a payload may carry (no token, no claim but `sub`); and listeners that throw, unsubscribe, and destroy().
import { afterEach, beforeEach, describe, expect, expectTypeOf, it, vi } from 'vitest';
import { AuthError, type Auth, type AuthEvents, type AuthEventType } from '..';
import { useAuthHarness } from '../__fixtures__/harness';
import { ALICE, API_URL, APP_URL, BOB, END_SESSION_URL, REVOCATION_URL, json, setPageUrl } from '../__fixtures__/fake-idp';
import { createEvents } from './events';
import { createTestAuth } from '../testing';

/** Every event type, once: a type added to AuthEvents fails to compile here until it is listed. */
const EVERY: { [K in AuthEventType]: K } = {
  'signed-in': 'signed-in',
  renewed: 'renewed',
  'renew-failed': 'renew-failed',
  expired: 'expired',
  'signed-out': 'signed-out',
  offline: 'offline',
  online: 'online',
  error: 'error',
};
type Seen = { [K in AuthEventType]: [K, AuthEvents[K]] }[AuthEventType];

/** Listens to every event type of `auth`, in the order they come. */
function record(auth: Pick<Auth, 'on'>): Seen[] {
  const seen: Seen[] = [];
  for (const type of Object.values(EVERY)) auth.on(type, (event) => seen.push([type, event] as Seen));
  return seen;
}

/** An AuthError as a payload carries it: the code and details, never the cause (which may hold claims). */
function expectPublicError(error: AuthError | undefined, code: string) {
  expect(error).toBeInstanceOf(AuthError);
  expect(error).toMatchObject({ code });
  expect(error?.cause).toBeUndefined();
}

describe('the emitter', () => {
  it('tells the listeners of a type, in order, with the payload as given; no other type', () => {
    const events = createEvents();
    const calls: string[] = [];
    const payload = { sub: 'alice' };
    events.on('signed-in', (event) => calls.push(`first ${event.sub} ${String(event === payload)}`));
    events.on('renewed', () => calls.push('renewed'));
    events.on('signed-in', () => calls.push('second'));
    events.emit('signed-in', payload);
    expect(calls).toEqual(['first alice true', 'second']);
  });

  it('types each listener by its event', () => {
    const events = createEvents();
    events.on('signed-out', (event) => expectTypeOf(event.reason).toEqualTypeOf<'user' | 'other-tab' | 'idle' | 'provider'>());
    events.on('renew-failed', (event) => expectTypeOf(event.error).toEqualTypeOf<AuthError>());
    // @ts-expect-error: `signed-in` carries a `sub`, nothing else
    events.emit('signed-in', { sub: 'alice', email: 'alice@example.test' });
    // @ts-expect-error: no such event
    events.on('signed-up', () => {});
  });

  it('a listener that throws is reported (reportError where there is one, else the console); the others and the emitter go on', () => {
    const events = createEvents();
    const boom = new Error('listener bug');
    const after = vi.fn();
    events.on('online', () => {
      throw boom;
    });
    events.on('online', after);
    const consoleError = vi.spyOn(console, 'error').mockImplementation(() => {});
    expect(() => events.emit('online', {})).not.toThrow();
    expect(consoleError).toHaveBeenCalledWith(boom);
    expect(after).toHaveBeenCalledTimes(1);
    const reportError = vi.fn();
    vi.stubGlobal('reportError', reportError);
    events.emit('online', {});
    expect(reportError).toHaveBeenCalledWith(boom);
    expect(consoleError).toHaveBeenCalledTimes(1);
    expect(after).toHaveBeenCalledTimes(2);
    vi.unstubAllGlobals();
    consoleError.mockRestore();
  });

  it('each registration has its own unsubscribe, which may be called again; clear() drops them all', () => {
    const events = createEvents();
    const listener = vi.fn();
    const first = events.on('offline', listener);
    const second = events.on('offline', listener);
    events.emit('offline', {});
    expect(listener).toHaveBeenCalledTimes(2);
    first();
    first();
    events.emit('offline', {});
    expect(listener).toHaveBeenCalledTimes(3);
    second();
    events.emit('offline', {});
    expect(listener).toHaveBeenCalledTimes(3);
    events.on('offline', listener);
    events.clear();
    events.emit('offline', {});
    expect(listener).toHaveBeenCalledTimes(3);
  });
});

describe('through createAuth', () => {
  const h = useAuthHarness({ server: { end_session_endpoint: END_SESSION_URL, revocation_endpoint: REVOCATION_URL } });

  /** Loads the app at `url` with a listener for every type on before start(), as an app adds them. */
  async function loadRecorded(url: string) {
    setPageUrl(url);
    const tab = h.newTab();
    const seen = record(tab.auth);
    tab.started = await tab.auth.start();
    return { tab, seen };
  }

  /** A sign-in whose callback page listens from its start. */
  async function signInRecorded() {
    const callback = h.idp.approve(await h.startSignIn());
    return { ...(await loadRecorded(`${APP_URL}?${callback}`)), callback };
  }

  afterEach(() => vi.useRealTimers());

  it('signed-in with the sub alone when the callback completes; a page joining the session is signed in too', async () => {
    const { tab, seen } = await signInRecorded();
    expect(tab.state.status).toBe('signed-in');
    expect(seen).toEqual([['signed-in', { sub: ALICE.sub }]]);
    const requests = h.idp.requests.length;
    const joining = await loadRecorded(APP_URL);
    expect(joining.tab.state.status).toBe('signed-in');
    expect(joining.seen).toEqual([['signed-in', { sub: ALICE.sub }]]);
    // The session the engine holds: nothing asked of the identity service, nothing told the first page again.
    expect(h.idp.requests).toHaveLength(requests);
    expect(seen).toHaveLength(1);
  });

  describe('over time (fake timers, 300 s tokens)', () => {
    beforeEach(() => {
      vi.useFakeTimers();
      h.idp.expiresIn = 300;
    });

    it('offline and renew-failed when a renewal fails on the network and the session goes on; online and renewed with the new expiry', async () => {
      h.idp.refreshTokens = true;
      const { tab, seen } = await signInRecorded();
      let failures = 1;
      h.idp.token = (request, standard) =>
        failures-- > 0 ? Promise.reject(new TypeError('Failed to fetch')) : standard(request);
      // Renewal at 240 s fails, the retry a backoff later works.
      await vi.advanceTimersByTimeAsync(240_000);
      expect(seen.map(([type]) => type)).toEqual(['signed-in', 'offline', 'renew-failed']);
      expect(seen[1]).toEqual(['offline', {}]);
      const [, failed] = seen[2] as ['renew-failed', AuthEvents['renew-failed']];
      expectPublicError(failed.error, 'unreachable');
      expect(tab.state.status).toBe('signed-in');
      await vi.advanceTimersByTimeAsync(15_000);
      expect(seen.slice(3)).toEqual([
        ['online', {}],
        ['renewed', { expiresAt: tab.state.expiresAt }],
      ]);
      expect(tab.state.expiresAt).toBeGreaterThan(Date.now() + 250_000);
    });

    it("expired with the refused refresh token's error", async () => {
      h.idp.refreshTokens = true;
      const { tab, seen } = await signInRecorded();
      h.idp.currentRefreshToken = 'revoked-by-the-server';
      await vi.advanceTimersByTimeAsync(300_000);
      expect(tab.state.status).toBe('expired');
      expect(seen.map(([type]) => type)).toEqual(['signed-in', 'expired']);
      const [, expired] = seen[1] as ['expired', AuthEvents['expired']];
      expectPublicError(expired.error, 'invalid_grant');
    });

    it('expired without an error at the end of a token without a refresh token', async () => {
      const { seen } = await signInRecorded();
      await vi.advanceTimersByTimeAsync(299_999);
      expect(seen).toHaveLength(1);
      await vi.advanceTimersByTimeAsync(1);
      expect(seen).toEqual([
        ['signed-in', { sub: ALICE.sub }],
        ['expired', { error: undefined }],
      ]);
    });
  });

  it.each([
    ['the shared worker', true],
    ['each page, over the signal', false],
  ])(
    'signed-out: user in the tab that signs out, other-tab in the other tabs of its session (engine in %s)',
    async (_host, sharedWorkers) => {
      h.sharedWorkers = sharedWorkers;
      const other = await h.signIn();
      const tab = await h.signIn();
      const seenOther = record(other.auth);
      const seen = record(tab.auth);
      tab.auth.signOut();
      expect(seen).toEqual([['signed-out', { reason: 'user' }]]);
      await vi.waitFor(() => expect(seenOther).toEqual([['signed-out', { reason: 'other-tab' }]]));
    },
  );

  it("signed-out provider: the provider's sign-out comes back with this tab's state; a return this tab did not send is none", async () => {
    const tab = await h.signIn();
    tab.auth.signOut();
    let state: string | null | undefined;
    await vi.waitFor(() => {
      state = new URL(h.lastNavigation()).searchParams.get('state');
      expect(h.lastNavigation().startsWith(END_SESSION_URL)).toBe(true);
    });
    const back = await loadRecorded(`${APP_URL}?state=${state}`);
    expect(back.seen).toEqual([['signed-out', { reason: 'provider' }]]);
    const stale = await loadRecorded(`${APP_URL}?state=${state}`);
    expect(stale.tab.state.error?.code).toBe('unknown_signout');
    expect(stale.seen).toEqual([]);
  });

  it('signed-out provider: a silent restore that the provider answers login_required; a page load without a session tells nothing', async () => {
    await h.signIn();
    await h.closeTabs();
    // The browser ended the worker with the last page: the engine holds no session, the page restores it.
    h.endWorkers();
    h.reloaded = true;
    const reload = await loadRecorded(APP_URL);
    expect(reload.tab.state.status).toBe('redirecting');
    const answer = await loadRecorded(`${APP_URL}?${h.idp.deny(h.lastNavigation(), 'login_required')}`);
    expect(answer.tab.state.status).toBe('signed-out');
    expect([...reload.seen, ...answer.seen]).toEqual([['signed-out', { reason: 'provider' }]]);
    h.reloaded = false;
    const visitor = await loadRecorded(APP_URL);
    expect(visitor.tab.state.status).toBe('signed-out');
    expect(visitor.seen).toEqual([]);
  });

  it('error with the AuthError of a failed sign-in, without its cause', async () => {
    const { tab, seen } = await loadRecorded(`${APP_URL}?${h.idp.deny(await h.startSignIn())}`);
    expect(tab.state.error?.code).toBe('cancelled');
    expect(seen.map(([type]) => type)).toEqual(['error']);
    expectPublicError((seen[0] as ['error', AuthEvents['error']])[1].error, 'cancelled');
    h.idp.token = () => json({ error: 'invalid_grant', error_description: 'code used' }, 400);
    const refused = await signInRecorded();
    expectPublicError((refused.seen[0] as ['error', AuthEvents['error']])[1].error, 'invalid_grant');
  });

  it('no event carries a token, a code or a claim value beyond sub, in a whole session', async () => {
    const person = { sub: 'u-7f3a', name: 'Ada Lovelace', email: 'ada@example.test', preferred_username: 'ada.lovelace' };
    h.idp.user = person;
    h.idp.refreshTokens = true;
    h.idp.expiresIn = 300;
    h.idp.token = () => json({ error: 'invalid_grant', error_description: 'code used' }, 400);
    const failed = await signInRecorded();
    h.idp.token = undefined;
    const signedOut = await signInRecorded();
    signedOut.tab.auth.signOut();
    await h.closeTabs();
    vi.useFakeTimers();
    const first = await signInRecorded();
    const adopting = await loadRecorded(APP_URL);
    expect((await adopting.tab.auth.fetch(API_URL)).status).toBe(200);
    let failures = 1;
    h.idp.token = (request, standard) => (failures-- > 0 ? Promise.reject(new TypeError('Failed to fetch')) : standard(request));
    await vi.advanceTimersByTimeAsync(300_000);
    h.idp.currentRefreshToken = 'revoked-by-the-server';
    await vi.advanceTimersByTimeAsync(300_000);
    const seen = [...failed.seen, ...signedOut.seen, ...first.seen, ...adopting.seen];
    expect(new Set(seen.map(([type]) => type))).toEqual(
      new Set(['signed-in', 'offline', 'renew-failed', 'online', 'renewed', 'expired', 'signed-out', 'error']),
    );
    const secrets = [
      ...h.idp.issued.flatMap((body) => [body.access_token, body.refresh_token, body.id_token]),
      ...[failed, signedOut, first].map(({ callback }) => callback.get('code')),
      ...Object.entries(person).flatMap(([claim, value]) => (claim === 'sub' ? [] : [value])),
    ].map(String);
    expect(secrets.length).toBeGreaterThan(10);
    const told = JSON.stringify(seen);
    expect(told).toContain(person.sub);
    for (const secret of secrets) expect(told).not.toContain(secret);
    for (const [, event] of seen) if ('error' in event) expect(event.error?.cause).toBeUndefined();
  });

  it('a listener that throws is reported; the sign-in and the listeners after it go on', async () => {
    const consoleError = vi.spyOn(console, 'error').mockImplementation(() => {});
    const boom = new Error('telemetry is down');
    const callback = h.idp.approve(await h.startSignIn());
    setPageUrl(`${APP_URL}?${callback}`);
    const tab = h.newTab();
    tab.auth.on('signed-in', () => {
      throw boom;
    });
    const seen = record(tab.auth);
    await tab.auth.start();
    expect(tab.state.status).toBe('signed-in');
    expect(seen).toEqual([['signed-in', { sub: ALICE.sub }]]);
    expect(consoleError).toHaveBeenCalledWith(boom);
    expect((await tab.auth.fetch(API_URL)).status).toBe(200);
    consoleError.mockRestore();
  });

  it('destroy() drops every listener', async () => {
    const tab = await h.signIn();
    const seen = record(tab.auth);
    tab.auth.destroy();
    tab.auth.signOut();
    expect(tab.state.status).toBe('signed-out');
    expect(seen).toEqual([]);
  });
});

describe("the engine's transitions, as every page emits them", () => {
  const h = useAuthHarness();

  /** Two pages showing one session: the tab that signed in, and one opened after, each recorded from then. */
  async function twoPages() {
    const first = await h.signIn();
    const second = await h.loadAt(APP_URL);
    expect(second.state.status).toBe('signed-in');
    return [first, second].map((tab) => ({ tab, seen: record(tab.auth) }));
  }

  it('a renewal the engine makes once is renewed in every page, with the same expiry', async () => {
    vi.useFakeTimers();
    h.idp.expiresIn = 300;
    h.idp.refreshTokens = true;
    const pages = await twoPages();
    await vi.advanceTimersByTimeAsync(240_000);
    expect(h.idp.tokenRequests('refresh_token')).toHaveLength(1);
    const expiresAt = pages[0].tab.state.expiresAt!;
    expect(expiresAt).toBeGreaterThan(Date.now() + 250_000);
    for (const { tab, seen } of pages) {
      expect(tab.state.expiresAt).toBe(expiresAt);
      expect(seen).toEqual([['renewed', { expiresAt }]]);
    }
  });

  it("another person's sign-in replaces the session in every page: signed-in with the new sub", async () => {
    const pages = await twoPages();
    h.idp.user = BOB;
    const bob = await h.signIn();
    expect(bob.state.user).toMatchObject({ sub: BOB.sub });
    for (const { tab, seen } of pages) {
      await vi.waitFor(() => expect(seen).toEqual([['signed-in', { sub: BOB.sub }]]));
      expect(tab.state).toMatchObject({ status: 'signed-in', user: { sub: BOB.sub } });
    }
  });

  it("where each page runs its own engine, another person's sign-in is signed-out other-tab in the others", async () => {
    h.sharedWorkers = false;
    const alice = await h.signIn();
    const seen = record(alice.auth);
    h.idp.user = BOB;
    await h.signIn();
    await vi.waitFor(() => expect(seen).toEqual([['signed-out', { reason: 'other-tab' }]]));
    expect(alice.state.status).toBe('signed-out');
  });
});

describe('through the test kit', () => {
  it('signed-in at signIn() with the sub, signed-out for the user at signOut(): as createAuth', async () => {
    const auth = createTestAuth({ user: null });
    const seen = record(auth);
    await auth.signIn();
    auth.signOut();
    expect(seen).toEqual([
      ['signed-in', { sub: 'test-user' }],
      ['signed-out', { reason: 'user' }],
    ]);
    auth.destroy();
  });

  it('expired when an API refuses the token, which the kit cannot renew', async () => {
    const API = 'https://api.example.test';
    const auth = createTestAuth({
      apiOrigins: [API],
      handler: () => new Response(null, { status: 401, headers: { 'www-authenticate': 'Bearer error="invalid_token"' } }),
    });
    const seen = record(auth);
    await expect(auth.fetch(`${API}/orders`)).rejects.toMatchObject({ code: 'session_expired' });
    expect(auth.session.current.status).toBe('expired');
    expect(seen).toEqual([['expired', { error: undefined }]]);
    auth.destroy();
  });

  it('unsubscribe is idempotent and destroy() drops the listeners', async () => {
    const auth = createTestAuth({ user: null });
    const listener = vi.fn();
    const off = auth.on('signed-in', listener);
    await auth.signIn();
    off();
    off();
    await auth.signIn();
    expect(listener).toHaveBeenCalledTimes(1);
    auth.on('signed-in', listener);
    auth.destroy();
    await auth.signIn();
    expect(listener).toHaveBeenCalledTimes(1);
  });
});
