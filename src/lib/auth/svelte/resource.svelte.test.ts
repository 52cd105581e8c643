// auth.resource: a store that loads while someone watches and the session is signed in, following a
// function URL. First against the store contract alone (a driven session store and a scripted fetch),
// then wired to a real session over the fake identity service. A .svelte.test.ts file, for $state.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { get, writable, type Readable, type Writable } from 'svelte/store';
import { noSession, useAuthHarness } from '../__fixtures__/harness';
import { ALICE, API_URL, BOB, challenge, challengeHeader, deferred, json, type Deferred } from '../__fixtures__/fake-idp';
import { AuthError } from '../protocol/errors';
import { createResource, type ResourceState } from './resource.svelte';
import type { SessionState } from './session';

type AuthFetchInit = RequestInit;

const URL_ = 'https://api.example.test/things';
const signedIn = (user = ALICE): SessionState => ({
  status: 'signed-in',
  user: { sub: user.sub, name: user.name as string },
  expiresAt: 1,
  error: null,
  known: true,
  offline: false,
  endsAt: null,
});
const SIGNED_OUT: SessionState = noSession('signed-out');

interface Call {
  url: string;
  init?: AuthFetchInit;
  answer: Deferred<Response>;
}

describe('against the store contract', () => {
  let session: Writable<SessionState>;
  let calls: Call[];
  /** authFetch that answers when the test says so, and (like a server that is too late) ignores aborts. */
  let authFetch: typeof fetch & ReturnType<typeof vi.fn>;
  let seen: ResourceState<unknown>[];
  let stop: (() => void) | undefined;

  beforeEach(() => {
    session = writable<SessionState>(noSession('loading'));
    calls = [];
    seen = [];
    authFetch = vi.fn((url: RequestInfo | URL, init?: AuthFetchInit) => {
      const answer = deferred<Response>();
      calls.push({ url: String(url), init, answer });
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
    ['a body that is not JSON', 'error', 'invalid_response', () => Promise.resolve(new Response('<html>'))],
    ['insufficient_scope', 'error', 'insufficient_scope', () => Promise.reject(new AuthError('insufficient_scope'))],
    ['a timeout', 'error', 'timeout', () => Promise.reject(new AuthError('timeout'))],
  ])('%s ends in status %s with a typed error (%s)', async (_name, status, code, answer) => {
    session.set(signedIn());
    const resource = watch(createResource(session, answer as typeof fetch, URL_));
    await vi.waitFor(() => expect(get(resource).status).toBe(status));
    expect(get(resource).error).toBeInstanceOf(AuthError);
    expect(get(resource).error?.code).toBe(code);
    // The store holds what a view may show: never the original error as cause.
    expect(get(resource).error?.cause).toBeUndefined();
    expect(get(resource).data).toBeNull();
  });

  it.each(['session_expired', 'unauthenticated'] as const)(
    '%s ends in status unauthenticated, the session telling why',
    async (code) => {
      session.set(signedIn());
      const resource = watch(createResource(session, (() => Promise.reject(new AuthError(code))) as typeof fetch, URL_));
      await vi.waitFor(() => expect(get(resource)).toEqual({ status: 'unauthenticated', data: null, error: null }));
    },
  );

  it('an http_error carries the status and the first 200 characters of the response text, as sent', async () => {
    session.set(signedIn());
    const body = `{"error":"invalid_request","error_description":"title\u202e too long"}${'x'.repeat(5000)}`;
    const resource = watch(createResource(session, (async () => new Response(body, { status: 400 })) as typeof fetch, URL_));
    await vi.waitFor(() => expect(get(resource).status).toBe('error'));
    expect(get(resource).error).toMatchObject({ code: 'http_error', status: 400, text: body.slice(0, 200) });
  });

  it('an http_error reads only the start of the body, then cancels it', async () => {
    session.set(signedIn());
    let pulls = 0;
    const cancelled = vi.fn();
    const endless = new ReadableStream<Uint8Array>({
      pull: (c) => (pulls++, c.enqueue(new TextEncoder().encode('y'.repeat(64)))),
      cancel: cancelled,
    });
    const resource = watch(createResource(session, (async () => new Response(endless, { status: 503 })) as typeof fetch, URL_));
    await vi.waitFor(() => expect(get(resource).status).toBe('error'));
    expect(get(resource).error).toMatchObject({ code: 'http_error', status: 503, text: 'y'.repeat(200) });
    expect(pulls).toBeLessThan(10);
    expect(cancelled).toHaveBeenCalled();
  });

  it('an http_error with no body has empty text', async () => {
    session.set(signedIn());
    const resource = watch(createResource(session, (async () => new Response(null, { status: 404 })) as typeof fetch, URL_));
    await vi.waitFor(() => expect(get(resource).status).toBe('error'));
    expect(get(resource).error).toMatchObject({ code: 'http_error', status: 404, text: '' });
  });

  describe('any failure ends in the error state with an AuthError, never an unhandled rejection', () => {
    let rejections: unknown[];
    const onRejection = (event: PromiseRejectionEvent) => rejections.push(event.reason);
    beforeEach(() => {
      rejections = [];
      window.addEventListener('unhandledrejection', onRejection);
    });
    afterEach(() => window.removeEventListener('unhandledrejection', onRejection));

    async function failsWith(fetcher: typeof fetch, options: Parameters<typeof createResource>[3] = {}) {
      session.set(signedIn());
      const resource = watch(createResource(session, fetcher, URL_, options));
      await vi.waitFor(() => expect(get(resource).status).toBe('error'));
      await settle();
      expect(rejections).toEqual([]);
      const { error } = get(resource);
      expect(error).toBeInstanceOf(AuthError);
      expect(error?.cause).toBeUndefined();
      return error!;
    }

    it('a read that throws: invalid_response', async () => {
      const read = () => Promise.reject(new Error('cannot parse'));
      expect((await failsWith((async () => json({ n: 1 })) as typeof fetch, { read })).code).toBe('invalid_response');
    });

    it('a read that throws synchronously: invalid_response', async () => {
      const read = () => {
        throw new RangeError('bad');
      };
      expect((await failsWith((async () => json({ n: 1 })) as typeof fetch, { read })).code).toBe('invalid_response');
    });

    it('a read that throws an AuthError keeps its code', async () => {
      const read = () => Promise.reject(new AuthError('forbidden_origin'));
      expect((await failsWith((async () => json({ n: 1 })) as typeof fetch, { read })).code).toBe('forbidden_origin');
    });

    it('malformed JSON: invalid_response', async () => {
      expect((await failsWith((async () => new Response('{"n":')) as typeof fetch)).code).toBe('invalid_response');
    });

    it('a fetch that rejects with something that is no AuthError: invalid_response', async () => {
      expect((await failsWith((() => Promise.reject(new TypeError('boom'))) as typeof fetch)).code).toBe('invalid_response');
    });
  });

  it('mutate() sets the data without a request, from a value or from the old data', async () => {
    session.set(signedIn());
    const resource = watch(createResource<{ items: number[] }>(session, authFetch, URL_));
    calls[0].answer.resolve(json({ items: [1] }));
    await vi.waitFor(() => expect(get(resource).status).toBe('ok'));
    resource.mutate((old) => ({ items: [...(old?.items ?? []), 2] }));
    expect(get(resource)).toEqual({ status: 'ok', data: { items: [1, 2] }, error: null });
    resource.mutate({ items: [] });
    expect(get(resource).data).toEqual({ items: [] });
    expect(authFetch).toHaveBeenCalledTimes(1);
  });

  it('mutate() during a load wins over the late answer', async () => {
    session.set(signedIn());
    const resource = watch(createResource(session, authFetch, URL_));
    resource.mutate({ n: 'mine' });
    expect(calls[0].init!.signal!.aborted).toBe(true);
    calls[0].answer.resolve(json({ n: 'late' }));
    await settle();
    expect(get(resource).data).toEqual({ n: 'mine' });
  });

  it('a null URL loads nothing: idle while signed in', () => {
    session.set(signedIn());
    const resource = watch(createResource(session, authFetch, null));
    expect(get(resource).status).toBe('idle');
    resource.reload();
    expect(authFetch).not.toHaveBeenCalled();
  });

  it('follows a function URL: a new value aborts the old load and loads the new URL; null goes idle', async () => {
    session.set(signedIn());
    let id = $state<string | null>('1');
    const resource = watch(createResource(session, authFetch, () => (id ? `${URL_}/${id}` : null)));
    expect(calls.map((c) => c.url)).toEqual([`${URL_}/1`]);
    id = '2';
    await vi.waitFor(() => expect(calls).toHaveLength(2));
    expect(calls[1].url).toBe(`${URL_}/2`);
    expect(calls[0].init!.signal!.aborted).toBe(true);
    calls[0].answer.resolve(json({ id: 1 }));
    calls[1].answer.resolve(json({ id: 2 }));
    await vi.waitFor(() => expect(get(resource).data).toEqual({ id: 2 }));
    id = null;
    await vi.waitFor(() => expect(get(resource).status).toBe('idle'));
    expect(calls).toHaveLength(2);
    stop?.();
    stop = undefined;
    id = '3';
    await settle();
    expect(calls).toHaveLength(2);
  });

  it('current is reactive in runes code and narrows by status', async () => {
    session.set(signedIn());
    const resource = createResource<{ n: number }>(session, authFetch, URL_);
    const seenN: (number | null)[] = [];
    const cleanup = $effect.root(() => {
      $effect(() => {
        const state = resource.current;
        seenN.push(state.status === 'ok' ? state.data.n : null);
      });
    });
    await vi.waitFor(() => expect(calls).toHaveLength(1));
    calls[0].answer.resolve(json({ n: 7 }));
    await vi.waitFor(() => expect(seenN).toContain(7));
    cleanup();
    expect(calls[0].init!.signal!.aborted).toBe(false);
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
    const resource = tab.auth.resource(API_URL);
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

  it('insufficient_scope: an error a view can read, with the scope to ask for; no retry, the session stays', async () => {
    const tab = await h.signIn({ options: { ...h.options, stepUpScopes: 'notes.write' } });
    h.idp.api = () => challengeHeader(403, 'Bearer error="insufficient_scope", scope="notes.write"');
    const resource = tab.auth.resource(API_URL);
    const stopWatching = resource.subscribe(() => {});
    await vi.waitFor(() => expect(get(resource).status).toBe('error'));
    const { error } = resource.current;
    expect(error).toBeInstanceOf(AuthError);
    expect(error?.toJSON()).toEqual({
      code: 'insufficient_scope',
      oauthError: 'insufficient_scope',
      status: 403,
      scope: 'notes.write',
    });
    // What a view shows is the public error: never the cause with the server's raw answer.
    expect(error?.cause).toBeUndefined();
    expect(tab.state.status).toBe('signed-in');
    expect(h.idp.to(API_URL)).toHaveLength(1);
    stopWatching();
  });

  it('insufficient_user_authentication: an error with acr_values and max_age', async () => {
    const tab = await h.signIn();
    h.idp.api = () => challengeHeader(401, 'Bearer error="insufficient_user_authentication", acr_values="mfa", max_age=0');
    const resource = tab.auth.resource(API_URL);
    const stopWatching = resource.subscribe(() => {});
    await vi.waitFor(() => expect(get(resource).status).toBe('error'));
    expect(resource.current.error).toMatchObject({ code: 'insufficient_user_authentication', acr_values: 'mfa', max_age: 0 });
    expect(tab.state.status).toBe('signed-in');
    stopWatching();
  });

  it('a token the API refuses and that cannot be renewed: resource "unauthenticated", session "expired"', async () => {
    const tab = await h.signIn();
    h.idp.api = () => challenge(401, 'invalid_token');
    const resource = tab.auth.resource(API_URL);
    const stopWatching = resource.subscribe(() => {});
    await vi.waitFor(() => expect(get(resource).status).toBe('unauthenticated'));
    expect(tab.state.status).toBe('expired');
    expect(h.idp.to(API_URL)).toHaveLength(1);
    stopWatching();
  });
});
