// The test kit: an Auth that behaves as createAuth's does for a view, without a network: it runs
// production's page side (the session store, auth.fetch), so errors, challenges and transitions are the real ones.
import { noSession } from './__fixtures__/harness';
import { get } from 'svelte/store';
import { describe, expect, it, vi } from 'vitest';
import { AuthError, type SessionStatus } from '.';
import { createTestAuth, TEST_TOKEN } from './testing';

const API = 'https://api.example.test';

/** The AuthError code a promise rejects with. */
async function codeOf(promise: Promise<unknown>) {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AuthError);
  return (error as AuthError).code;
}

describe('createTestAuth', () => {
  it('is signed in with the given user, `sub` defaulting to test-user', () => {
    const auth = createTestAuth({ user: { name: 'Alice', email: 'alice@example.test' } });
    expect(auth.session.current).toMatchObject({
      status: 'signed-in',
      user: { sub: 'test-user', name: 'Alice', email: 'alice@example.test' },
    });
    expect(createTestAuth({ user: { sub: 'bob' } }).session.current.user?.sub).toBe('bob');
    expect(createTestAuth().session.current.status).toBe('signed-in');
  });

  it('user null is signed out', () => {
    expect(createTestAuth({ user: null }).session.current).toEqual(noSession('signed-out'));
  });

  it('fetch hands the request to the handler with Authorization: Bearer TEST_TOKEN', async () => {
    const handler = vi.fn((request: Request) => Response.json({ auth: request.headers.get('authorization') }));
    const auth = createTestAuth({ apiOrigins: [API], handler });
    const response = await auth.fetch(`${API}/orders?page=2`, { method: 'POST', headers: { 'x-trace': '1' }, body: 'a=1' });
    expect(await response.json()).toEqual({ auth: `Bearer ${TEST_TOKEN}` });
    const [request] = handler.mock.calls[0];
    expect([request.method, request.url, request.headers.get('x-trace'), await request.text()]).toEqual([
      'POST',
      `${API}/orders?page=2`,
      '1',
      'a=1',
    ]);
  });

  it('fetch takes a Request, and returns a non-2xx answer as it is', async () => {
    const auth = createTestAuth({ apiOrigins: [API], handler: () => new Response('gone', { status: 410 }) });
    const response = await auth.fetch(new Request(`${API}/old`, { method: 'DELETE' }));
    expect([response.status, await response.text()]).toEqual([410, 'gone']);
  });

  it('relative URLs resolve against the page', async () => {
    const auth = createTestAuth({ apiOrigins: [location.origin], handler: (request) => new Response(request.url) });
    const response = await auth.fetch('api/items');
    expect(await response.text()).toBe(new URL('api/items', location.href).href);
  });

  it('refuses any other origin with forbidden_origin before the handler sees anything', async () => {
    const handler = vi.fn(() => new Response());
    const auth = createTestAuth({ apiOrigins: [API], handler });
    for (const url of ['https://evil.example.test/steal', 'http://api.example.test/', '/same-origin']) {
      expect(await codeOf(auth.fetch(url))).toBe('forbidden_origin');
    }
    expect(handler).not.toHaveBeenCalled();
  });

  it('signed out, fetch fails with unauthenticated and sends nothing', async () => {
    const handler = vi.fn(() => new Response());
    const auth = createTestAuth({ user: null, apiOrigins: [API], handler });
    expect(await codeOf(auth.fetch(`${API}/orders`))).toBe('unauthenticated');
    expect(handler).not.toHaveBeenCalled();
  });

  it('an aborted request fails with aborted and sends nothing', async () => {
    const handler = vi.fn(() => new Response());
    const auth = createTestAuth({ apiOrigins: [API], handler });
    expect(await codeOf(auth.fetch(`${API}/orders`, { signal: AbortSignal.abort() }))).toBe('aborted');
    expect(handler).not.toHaveBeenCalled();
  });

  it('signOut() and signIn() change session.current and the session store at once', async () => {
    const auth = createTestAuth({ user: { sub: 'alice' } });
    const seen: string[] = [];
    const stop = auth.session.subscribe((state) => seen.push(state.status));
    auth.signOut();
    expect(auth.session.current.status).toBe('signed-out');
    expect(get(auth.session).user).toBeNull();
    await auth.signIn({ returnTo: '/orders' });
    expect(get(auth.session)).toMatchObject({ status: 'signed-in', user: { sub: 'alice' } });
    expect(auth.session.current.user?.sub).toBe('alice');
    expect(seen).toEqual(['signed-in', 'signed-out', 'signed-in']);
    stop();
  });

  it('resource() loads through the handler, and is unauthenticated after sign-out', async () => {
    const auth = createTestAuth({
      apiOrigins: [API],
      handler: (request) => Response.json({ path: new URL(request.url).pathname }),
    });
    const resource = auth.resource<{ path: string }>(`${API}/items/a`);
    const stop = resource.subscribe(() => {});
    await vi.waitFor(() => expect(get(resource)).toEqual({ status: 'ok', data: { path: '/items/a' }, error: null }));
    auth.signOut();
    expect(get(resource)).toEqual({ status: 'unauthenticated', data: null, error: null });
    stop();
  });

  it('resource() turns an HTTP error into http_error with the status and the start of the text', async () => {
    const auth = createTestAuth({ apiOrigins: [API], handler: () => new Response('x'.repeat(5000), { status: 500 }) });
    const resource = auth.resource(`${API}/items/a`);
    const stop = resource.subscribe(() => {});
    await vi.waitFor(() => expect(get(resource).status).toBe('error'));
    expect(get(resource).error).toMatchObject({ code: 'http_error', status: 500, text: 'x'.repeat(200) });
    stop();
  });

  it('apiOrigins are origins however written: with or without a trailing slash', async () => {
    const auth = createTestAuth({ apiOrigins: [`${API}/`], handler: () => new Response('ok') });
    expect((await auth.fetch(`${API}/x`)).status).toBe(200);
    expect(await codeOf(auth.fetch('https://api.example.test.evil/x'))).toBe('forbidden_origin');
  });
});

describe("production's policy", () => {
  it('a handler throwing a TypeError (the network failing) rejects fetch with unreachable, naming the host', async () => {
    const auth = createTestAuth({ apiOrigins: [API], handler: () => Promise.reject(new TypeError('Failed to fetch')) });
    await expect(auth.fetch(`${API}/x`)).rejects.toMatchObject({ code: 'unreachable', host: 'api.example.test' });
    const syncThrow = createTestAuth({
      apiOrigins: [API],
      handler: () => {
        throw new TypeError('Failed to fetch');
      },
    });
    expect(await codeOf(syncThrow.fetch(`${API}/x`))).toBe('unreachable');
  });

  it('a resource over an unreachable handler shows error with that code, and nothing is left unhandled', async () => {
    const rejections: unknown[] = [];
    const onRejection = (event: PromiseRejectionEvent) => rejections.push(event.reason);
    window.addEventListener('unhandledrejection', onRejection);
    const auth = createTestAuth({ apiOrigins: [API], handler: () => Promise.reject(new TypeError('Failed to fetch')) });
    const resource = auth.resource(`${API}/items`);
    const stop = resource.subscribe(() => {});
    await vi.waitFor(() => expect(get(resource).status).toBe('error'));
    await new Promise((resolve) => setTimeout(resolve, 0));
    window.removeEventListener('unhandledrejection', onRejection);
    expect(get(resource).error).toBeInstanceOf(AuthError);
    expect(get(resource).error?.code).toBe('unreachable');
    expect(rejections).toEqual([]);
    stop();
  });

  it('a 401 with WWW-Authenticate: Bearer error="invalid_token" ends the session as expired', async () => {
    const handler = vi.fn(
      () => new Response(null, { status: 401, headers: { 'www-authenticate': 'Bearer error="invalid_token"' } }),
    );
    const auth = createTestAuth({ apiOrigins: [API], handler });
    expect(await codeOf(auth.fetch(`${API}/x`))).toBe('session_expired');
    expect(auth.session.current).toMatchObject({ status: 'expired', user: null, error: { code: 'session_expired' } });
    expect(handler).toHaveBeenCalledTimes(1);
    expect(await codeOf(auth.fetch(`${API}/x`))).toBe('unauthenticated');
  });

  it('two requests refused together end the session once: one expired event, each request session_expired', async () => {
    let refuse!: () => void;
    const refused = new Promise<void>((resolve) => (refuse = resolve));
    const handler = vi.fn(async () => {
      await refused;
      return new Response(null, { status: 401, headers: { 'www-authenticate': 'Bearer error="invalid_token"' } });
    });
    const auth = createTestAuth({ apiOrigins: [API], handler });
    const expired = vi.fn();
    auth.on('expired', expired);
    const both = [auth.fetch(`${API}/a`), auth.fetch(`${API}/b`)].map(codeOf);
    await vi.waitFor(() => expect(handler).toHaveBeenCalledTimes(2));
    refuse();
    expect(await Promise.all(both)).toEqual(['session_expired', 'session_expired']);
    expect(expired).toHaveBeenCalledTimes(1);
    expect(auth.session.current).toMatchObject({ status: 'expired', error: { code: 'session_expired' } });
  });

  it('knows the person as production does: signed in, then expired; not after signOut(), again after signIn()', async () => {
    const handler = () => new Response(null, { status: 401, headers: { 'www-authenticate': 'Bearer error="invalid_token"' } });
    const auth = createTestAuth({ apiOrigins: [API], handler });
    expect(auth.session.current.known).toBe(true);
    await codeOf(auth.fetch(`${API}/x`));
    expect(auth.session.current).toMatchObject({ status: 'expired', known: true });
    auth.signOut();
    expect(auth.session.current).toMatchObject({ status: 'signed-out', known: false });
    await auth.signIn();
    expect(auth.session.current).toMatchObject({ status: 'signed-in', known: true });
    // A failed first sign-in knows no one; a failure with a user is a later one of a known person.
    expect(createTestAuth({ status: 'error', user: null }).session.current.known).toBe(false);
    expect(createTestAuth({ status: 'expired', user: null }).session.current.known).toBe(true);
  });

  it('a resource whose token is refused is unauthenticated, the session expired', async () => {
    const auth = createTestAuth({
      apiOrigins: [API],
      handler: () => new Response(null, { status: 401, headers: { 'www-authenticate': 'Bearer error="invalid_token"' } }),
    });
    const resource = auth.resource(`${API}/items`);
    const stop = resource.subscribe(() => {});
    await vi.waitFor(() => expect(get(resource).status).toBe('unauthenticated'));
    expect(auth.session.current.status).toBe('expired');
    stop();
  });

  it('a 403 insufficient_scope is that code, and the session stays', async () => {
    const auth = createTestAuth({
      apiOrigins: [API],
      handler: () => new Response(null, { status: 403, headers: { 'www-authenticate': 'Bearer error="insufficient_scope"' } }),
    });
    expect(await codeOf(auth.fetch(`${API}/x`))).toBe('insufficient_scope');
    expect(auth.session.current.status).toBe('signed-in');
  });

  it('a scope beyond stepUpScopes (none by default) is scope_not_allowed, as in production', async () => {
    const header = 'Bearer error="insufficient_scope", scope="notes.write admin"';
    const handler = () => new Response(null, { status: 403, headers: { 'www-authenticate': header } });
    expect(await codeOf(createTestAuth({ apiOrigins: [API], handler }).fetch(`${API}/x`))).toBe('scope_not_allowed');
    const allowed = createTestAuth({ apiOrigins: [API], stepUpScopes: 'notes.write', handler });
    expect(await codeOf(allowed.fetch(`${API}/x`))).toBe('scope_not_allowed');
    const both = createTestAuth({ apiOrigins: [API], stepUpScopes: 'notes.write admin', handler });
    expect(await codeOf(both.fetch(`${API}/x`))).toBe('insufficient_scope');
  });

  it.each([
    [
      403,
      'Bearer error="insufficient_scope", scope="notes.write"',
      { code: 'insufficient_scope', oauthError: 'insufficient_scope', status: 403, scope: 'notes.write' },
    ],
    [
      401,
      'Bearer error="insufficient_user_authentication", acr_values="urn:example:mfa", max_age=60',
      {
        code: 'insufficient_user_authentication',
        oauthError: 'insufficient_user_authentication',
        status: 401,
        acr_values: 'urn:example:mfa',
        max_age: 60,
      },
    ],
  ])(
    'a %i challenge from the handler rejects with the typed error and its fields, as in production',
    async (status, header, expected) => {
      const auth = createTestAuth({
        apiOrigins: [API],
        stepUpScopes: 'notes.write',
        handler: () => new Response(null, { status, headers: { 'www-authenticate': header } }),
      });
      const error = await auth.fetch(`${API}/x`).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AuthError);
      expect((error as AuthError).toJSON()).toEqual(expected);
      const resource = auth.resource(`${API}/x`);
      const stop = resource.subscribe(() => {});
      await vi.waitFor(() => expect(get(resource)).toMatchObject({ status: 'error', error: expected }));
      stop();
      expect(auth.session.current.status).toBe('signed-in');
    },
  );

  it('a redirect from the handler is invalid_response, never followed', async () => {
    const handler = vi.fn(() => new Response(null, { status: 302, headers: { location: `${API}/elsewhere` } }));
    const auth = createTestAuth({ apiOrigins: [API], handler });
    expect(await codeOf(auth.fetch(`${API}/x`))).toBe('invalid_response');
    expect(handler).toHaveBeenCalledTimes(1);
  });
});

describe('the start state', () => {
  it.each<[SessionStatus, unknown, boolean]>([
    ['loading', null, false],
    ['signed-out', null, false],
    ['redirecting', null, false],
    ['expired', { code: 'session_expired' }, true],
    ['error', { code: 'authorization_failed' }, true],
  ])('status %s is where it starts, whatever the user; fetch is unauthenticated', async (status, error, known) => {
    const handler = vi.fn(() => new Response());
    const auth = createTestAuth({ status, user: { name: 'Alice' }, apiOrigins: [API], handler });
    expect(auth.session.current).toEqual({ status, user: null, expiresAt: null, error, known, offline: false, endsAt: null });
    expect(await codeOf(auth.fetch(`${API}/x`))).toBe('unauthenticated');
    expect(handler).not.toHaveBeenCalled();
  });

  it('status signed-in is signed in with the user (sub test-user without one)', () => {
    expect(createTestAuth({ status: 'signed-in', user: { name: 'Alice' } }).session.current).toMatchObject({
      status: 'signed-in',
      user: { sub: 'test-user', name: 'Alice' },
    });
    expect(createTestAuth({ status: 'signed-in', user: null }).session.current.user).toEqual({ sub: 'test-user' });
  });

  it('from another status, signIn() signs the given user in', async () => {
    const auth = createTestAuth({ status: 'expired', user: { sub: 'alice' } });
    await auth.signIn();
    expect(auth.session.current).toMatchObject({ status: 'signed-in', user: { sub: 'alice' }, error: null });
  });

  it("signIn() takes production's step-up options and signs in at once; an invalid one is a TypeError", async () => {
    const auth = createTestAuth({ status: 'signed-out' });
    await auth.signIn({ scope: 'notes.write', acr_values: 'mfa', max_age: 0, returnTo: '/notes' });
    expect(auth.session.current.status).toBe('signed-in');
    const refused = auth.signIn({ scope: 'a"b' });
    await expect(refused).rejects.toBeInstanceOf(TypeError);
    await expect(refused).rejects.toThrow(/^signIn: scope and acr_values/);
    // The kit has no APIs: a step-up for any API's resource is taken.
    await auth.signIn({ scope: 'notes.write', resource: 'https://notes.example/' });
  });

  it("signIn() checks hints as production does: a refused one is the session's param_not_allowed", async () => {
    const auth = createTestAuth({ status: 'signed-out', extraParams: ['organization'] });
    await auth.signIn({ login_hint: 'bob', ui_locales: 'de', prompt: 'login', extraParams: { organization: 'acme' } });
    expect(auth.session.current.status).toBe('signed-in');
    auth.signOut();
    await auth.signIn({ extraParams: { audience: 'x' } });
    expect(auth.session.current).toMatchObject({ status: 'error', error: { code: 'param_not_allowed', parameter: 'audience' } });
    await auth.signIn({ prompt: 'create' });
    expect(auth.session.current).toMatchObject({ status: 'error', error: { code: 'param_not_allowed', parameter: 'prompt' } });
  });

  it('prompt=create signs in where the provider is said to advertise it', async () => {
    const auth = createTestAuth({ status: 'signed-out', promptValuesSupported: ['login', 'create'] });
    await auth.signIn({ prompt: 'create' });
    expect(auth.session.current.status).toBe('signed-in');
  });

  it('start() hands back nothing, as createAuth does without a callback', async () => {
    expect(await createTestAuth().start()).toEqual({});
  });
});

it('start() and destroy() are harmless, and without a handler every allowed request gets a 404', async () => {
  const auth = createTestAuth({ apiOrigins: ['https://api.example.test'] });
  await auth.start();
  expect((await auth.fetch('https://api.example.test/x')).status).toBe(404);
  auth.destroy();
  expect(auth.session.current.status).toBe('signed-in');
});

describe('idle', () => {
  it('shows the warning it is given until stayActive(), and none by default', () => {
    const auth = createTestAuth({ idle: { warning: true, remainingMs: 5000 } });
    expect(auth.idle.current).toEqual({ warning: true, remainingMs: 5000 });
    auth.stayActive();
    expect(auth.idle.current).toEqual({ warning: false });
    expect(createTestAuth().idle.current).toEqual({ warning: false });
  });
});

describe('settled()', () => {
  /** Whether `promise` has resolved after the pending promise turns. */
  async function resolved(promise: Promise<unknown>) {
    let done = false;
    void promise.then(() => (done = true));
    for (let turn = 0; turn < 20; turn++) await Promise.resolve();
    return done;
  }

  it('resolves as production does: signed in, signed out, or the failed state it starts in', async () => {
    expect((await createTestAuth({ user: { name: 'Ada' } }).settled()).user).toEqual({ sub: 'test-user', name: 'Ada' });
    expect((await createTestAuth({ user: null }).settled()).status).toBe('signed-out');
    expect((await createTestAuth({ status: 'expired' }).settled()).error).toEqual({ code: 'session_expired' });
    expect(await resolved(createTestAuth({ status: 'loading' }).settled())).toBe(false);
  });
});
