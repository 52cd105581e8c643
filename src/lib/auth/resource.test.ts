// Issue 3, authResource: a store that loads while someone watches and the session is signed in.
// First against the store contract alone (a driven session store and a scripted authFetch), then
// wired to a real session over the fake identity service.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { get, writable, type Readable, type Writable } from 'svelte/store';
import { useAuthHarness } from '../../testing/auth-harness';
import { ALICE, API_URL, BOB, challenge, deferred, json, type Deferred } from '../../testing/fake-idp';
import { AuthError } from './errors';
import { createResource, type ResourceState } from './resource';
import type { AuthFetchInit, SessionState } from './session';

const URL_ = 'https://api.example.test/things';
const signedIn = (user = ALICE): SessionState => ({
  status: 'signed-in',
  user: { sub: user.sub, name: user.name as string },
  expiresAt: 1,
  error: null,
});
const SIGNED_OUT: SessionState = { status: 'signed-out', user: null, expiresAt: null, error: null };

interface Call {
  url: string;
  init?: AuthFetchInit;
  answer: Deferred<Response>;
}

describe('against the store contract', () => {
  let session: Writable<SessionState>;
  let calls: Call[];
  /** authFetch that answers when the test says so, and (like a server that is too late) ignores aborts. */
  let authFetch: ReturnType<typeof vi.fn<(url: string, init?: AuthFetchInit) => Promise<Response>>>;
  let seen: ResourceState<unknown>[];
  let stop: (() => void) | undefined;

  beforeEach(() => {
    session = writable<SessionState>({ status: 'loading', user: null, expiresAt: null, error: null });
    calls = [];
    seen = [];
    authFetch = vi.fn((url: string, init?: AuthFetchInit) => {
      const answer = deferred<Response>();
      calls.push({ url, init, answer });
      return answer.promise;
    });
  });

  afterEach(() => stop?.());

  function watch<T, R extends Readable<ResourceState<T>>>(resource: R): R {
    stop = resource.subscribe((s) => seen.push(s as ResourceState<unknown>));
    return resource;
  }

  const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

  it('does nothing until someone subscribes', () => {
    session.set(signedIn());
    createResource(session, authFetch, URL_);
    expect(authFetch).not.toHaveBeenCalled();
  });

  it('loads when signed in: loading, then ok with the data', async () => {
    session.set(signedIn());
    const resource = watch(createResource(session, authFetch, URL_));
    expect(authFetch).toHaveBeenCalledTimes(1);
    expect(calls[0].url).toBe(URL_);
    expect(calls[0].init?.signal).toBeInstanceOf(AbortSignal);
    expect(get(resource).status).toBe('loading');
    calls[0].answer.resolve(json({ n: 1 }));
    await vi.waitFor(() => expect(get(resource)).toEqual({ status: 'ok', data: { n: 1 }, error: null }));
    expect(seen.map((s) => s.status)).toEqual(['loading', 'ok']);
  });

  it('waits while the session is still loading, then loads once signed in', async () => {
    const resource = watch(createResource(session, authFetch, URL_));
    expect(authFetch).not.toHaveBeenCalled();
    expect(get(resource).status).toBe('idle');
    session.set(signedIn());
    expect(authFetch).toHaveBeenCalledTimes(1);
  });

  it('is "unauthenticated" and sends nothing when signed out', () => {
    session.set(SIGNED_OUT);
    const resource = watch(createResource(session, authFetch, URL_));
    expect(get(resource)).toEqual({ status: 'unauthenticated', data: null, error: null });
    expect(authFetch).not.toHaveBeenCalled();
  });

  it('aborts when the last subscriber leaves, and ignores the late answer', async () => {
    session.set(signedIn());
    const resource = createResource(session, authFetch, URL_);
    const stopA = resource.subscribe(() => {});
    const stopB = resource.subscribe(() => {});
    const signal = calls[0].init!.signal!;
    stopA();
    expect(signal.aborted).toBe(false);
    stopB();
    expect(signal.aborted).toBe(true);
    calls[0].answer.resolve(json({ late: true }));
    await settle();
    expect(get(resource).data).toBeNull();
  });

  it('loads again for a new subscriber after everyone left', () => {
    session.set(signedIn());
    const resource = createResource(session, authFetch, URL_);
    resource.subscribe(() => {})();
    watch(resource);
    expect(authFetch).toHaveBeenCalledTimes(2);
  });

  it('sign-out aborts the load in flight and clears the data', async () => {
    session.set(signedIn());
    const resource = watch(createResource(session, authFetch, URL_));
    calls[0].answer.resolve(json({ secret: 'alice data' }));
    await vi.waitFor(() => expect(get(resource).status).toBe('ok'));
    resource.reload();
    session.set(SIGNED_OUT);
    expect(calls[1].init!.signal!.aborted).toBe(true);
    expect(get(resource)).toEqual({ status: 'unauthenticated', data: null, error: null });
    calls[1].answer.resolve(json({ secret: 'late' }));
    await settle();
    expect(get(resource)).toEqual({ status: 'unauthenticated', data: null, error: null });
  });

  it.each(['expired', 'error'] as const)('session "%s" clears the data as well', async (status) => {
    session.set(signedIn());
    const resource = watch(createResource(session, authFetch, URL_));
    calls[0].answer.resolve(json({ n: 1 }));
    await vi.waitFor(() => expect(get(resource).status).toBe('ok'));
    session.set({ ...SIGNED_OUT, status });
    expect(get(resource)).toMatchObject({ status: 'unauthenticated', data: null });
  });

  it('reloads after a renewed sign-in of the same person', async () => {
    session.set(signedIn());
    const resource = watch(createResource(session, authFetch, URL_));
    calls[0].answer.resolve(json({ n: 1 }));
    await vi.waitFor(() => expect(get(resource).status).toBe('ok'));
    session.set({ ...SIGNED_OUT, status: 'expired' });
    session.set(signedIn());
    expect(authFetch).toHaveBeenCalledTimes(2);
    calls[1].answer.resolve(json({ n: 2 }));
    await vi.waitFor(() => expect(get(resource).data).toEqual({ n: 2 }));
  });

  it('a token renewal (same person, new expiresAt) does not reload', () => {
    session.set(signedIn());
    watch(createResource(session, authFetch, URL_));
    session.set({ ...signedIn(), expiresAt: 2 });
    expect(authFetch).toHaveBeenCalledTimes(1);
  });

  it('a user switch drops the late answer for the previous user and shows nothing of them', async () => {
    session.set(signedIn(ALICE));
    const resource = watch(createResource(session, authFetch, URL_));
    calls[0].answer.resolve(json({ owner: 'alice' }));
    await vi.waitFor(() => expect(get(resource).data).toEqual({ owner: 'alice' }));
    resource.reload();
    const switchedAt = seen.length;
    session.set(signedIn(BOB));
    expect(calls[1].init!.signal!.aborted).toBe(true);
    expect(get(resource)).toMatchObject({ status: 'loading', data: null });
    // Alice's reload answers after the switch; Bob's later.
    calls[1].answer.resolve(json({ owner: 'alice' }));
    await settle();
    expect(get(resource).data).toBeNull();
    calls[2].answer.resolve(json({ owner: 'bob' }));
    await vi.waitFor(() => expect(get(resource).data).toEqual({ owner: 'bob' }));
    const owners = seen.slice(switchedAt).map((s) => (s.data as { owner?: string } | null)?.owner);
    expect(owners).not.toContain('alice');
  });

  it('reload() aborts the load in progress and keeps showing the data meanwhile', async () => {
    session.set(signedIn());
    const resource = watch(createResource(session, authFetch, URL_));
    calls[0].answer.resolve(json({ n: 1 }));
    await vi.waitFor(() => expect(get(resource).status).toBe('ok'));
    resource.reload();
    resource.reload();
    expect(calls[1].init!.signal!.aborted).toBe(true);
    expect(get(resource)).toMatchObject({ status: 'loading', data: { n: 1 } });
    calls[1].answer.resolve(json({ n: 'stale' }));
    calls[2].answer.resolve(json({ n: 3 }));
    await vi.waitFor(() => expect(get(resource).data).toEqual({ n: 3 }));
  });

  it('reload() does nothing when signed out', () => {
    session.set(SIGNED_OUT);
    const resource = watch(createResource(session, authFetch, URL_));
    resource.reload();
    expect(authFetch).not.toHaveBeenCalled();
  });

  it.each([
    ['an HTTP error status', 'error', 'http_error', () => Promise.resolve(new Response('no', { status: 500 }))],
    ['insufficient_scope', 'error', 'insufficient_scope', () => Promise.reject(new AuthError('insufficient_scope'))],
    ['a session that expired', 'unauthenticated', 'session_expired', () => Promise.reject(new AuthError('session_expired'))],
    ['a timeout', 'error', 'timeout', () => Promise.reject(new AuthError('timeout'))],
  ])('%s ends in status %s with a typed error (%s)', async (_name, status, code, answer) => {
    session.set(signedIn());
    const resource = watch(createResource(session, () => answer(), URL_));
    await vi.waitFor(() => expect(get(resource).status).toBe(status));
    expect(get(resource).error).toBeInstanceOf(AuthError);
    expect(get(resource).error?.code).toBe(code);
    expect(get(resource).data).toBeNull();
  });

  it('initial data for a newly signed-in user is shown without a request; reload() fetches', async () => {
    session.set(signedIn());
    const resource = watch(createResource(session, authFetch, URL_, { initial: () => ({ n: 0 }) }));
    expect(get(resource)).toEqual({ status: 'ok', data: { n: 0 }, error: null });
    expect(authFetch).not.toHaveBeenCalled();
    resource.reload();
    calls[0].answer.resolve(json({ n: 1 }));
    await vi.waitFor(() => expect(get(resource).data).toEqual({ n: 1 }));
  });

  it('without initial data, a newly signed-in user is loaded', () => {
    session.set(signedIn());
    watch(createResource(session, authFetch, URL_, { initial: () => null }));
    expect(authFetch).toHaveBeenCalledTimes(1);
  });

  it('uses a custom reader and passes the request options', async () => {
    session.set(signedIn());
    const resource = watch(
      createResource(session, authFetch, URL_, { init: { method: 'POST', body: 'x' }, read: (r) => r.text() }),
    );
    expect(calls[0].init).toMatchObject({ method: 'POST', body: 'x' });
    calls[0].answer.resolve(new Response('plain'));
    await vi.waitFor(() => expect(get(resource).data).toBe('plain'));
  });
});

describe('wired to a real session', () => {
  const h = useAuthHarness();

  it('loads with the token, and sign-out aborts the request and clears the data', async () => {
    const tab = await h.signIn();
    const resource = createResource(tab.store, tab.auth.authFetch, API_URL);
    const stopWatching = resource.subscribe(() => {});
    await vi.waitFor(() => expect(get(resource)).toMatchObject({ status: 'ok', data: { greeting: 'Hello, Alice Liddell' } }));
    h.idp.api = () => new Promise<Response>(() => {});
    resource.reload();
    await vi.waitFor(() => expect(h.idp.to(API_URL)).toHaveLength(2));
    tab.auth.signOut();
    expect(h.idp.to(API_URL)[1].init.signal?.aborted).toBe(true);
    expect(get(resource)).toEqual({ status: 'unauthenticated', data: null, error: null });
    stopWatching();
  });

  it('a token the API refuses and that cannot be renewed: resource "unauthenticated", session "expired"', async () => {
    const tab = await h.signIn();
    h.idp.api = () => challenge(401, 'invalid_token');
    const resource = createResource(tab.store, tab.auth.authFetch, API_URL);
    const stopWatching = resource.subscribe(() => {});
    await vi.waitFor(() => expect(get(resource).status).toBe('unauthenticated'));
    expect(tab.state.status).toBe('expired');
    expect(h.idp.to(API_URL)).toHaveLength(1);
    stopWatching();
  });
});
