// Discovery (discovery.ts, OIDC Discovery 1.0 §4): an instance given only its issuer has its session
// engine read the provider's metadata once, bounded and timed, with its issuer compared exactly and its
// endpoints' schemes checked; what the options set wins; the metadata is kept in the engine's memory
// for every page it serves, never in the origin's storage. Observed at the edges: the requests on the
// wire, the authorization request, the session's error, storage.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { useAuthHarness } from '../__fixtures__/harness';
import {
  ACCOUNT_URL,
  allStorage,
  AUTHORIZE_URL,
  CLIENT_ID,
  json,
  setPageUrl,
  TOKEN_URL,
  USERINFO_URL,
} from '../__fixtures__/fake-idp';
import { assembleAuth, type Auth, type ClientOptions, type ServerEndpoints } from '../auth';
import { appNames } from '../browser/storage';

const h = useAuthHarness();

const WELL_KNOWN = `${ACCOUNT_URL}/.well-known/openid-configuration`;
const DOCUMENT = {
  issuer: ACCOUNT_URL,
  authorization_endpoint: AUTHORIZE_URL,
  token_endpoint: TOKEN_URL,
  userinfo_endpoint: USERINFO_URL,
  end_session_endpoint: `${ACCOUNT_URL}/connect/endsession`,
  prompt_values_supported: ['none', 'login', 'create'],
};
/** Where earlier versions kept a copy of the document, for every script of the origin to rewrite. */
const NAMES = appNames(ACCOUNT_URL, CLIENT_ID);
const METADATA_KEY = NAMES.key('metadata');

/** The discovery document's answer; everything else goes to the fake identity service. */
let document: (request: Request) => Response | Promise<Response>;
const discoveries = () => h.idp.requests.filter((r) => r.url === WELL_KNOWN);
const instances: Auth[] = [];

beforeEach(() => {
  // The network of every engine, in the shared worker or in a page, answers the document with `document`.
  const standard = h.idp.fetch.getMockImplementation()!;
  h.idp.fetch.mockImplementation(async (input, init) => {
    const request = new Request(input, init);
    if (request.url !== WELL_KNOWN) return standard(input, init);
    h.idp.requests.push({ url: request.url, method: request.method, headers: request.headers, init: request } as never);
    return document(request);
  });
});

/** A new page of the app with these options. */
function tab(options: Partial<ClientOptions> & { issuer?: string; server?: Partial<ServerEndpoints> } = {}): Auth {
  const auth = assembleAuth(
    { issuer: ACCOUNT_URL, clientId: CLIENT_ID, redirectUri: 'http://localhost:5173/', ...options },
    { browser: h.port, network: (request) => h.idp.fetch(request) },
  );
  instances.push(auth);
  return auth;
}

/** A started instance's sign-in: the authorization URL it left for. */
async function signIn(auth: Auth): Promise<URL> {
  await auth.start();
  await auth.signIn();
  return new URL(h.lastNavigation());
}

afterEach(() => {
  for (const auth of instances.splice(0)) auth.destroy();
});

describe('a good document', () => {
  it('gives the endpoints: the sign-in goes to its authorization endpoint, once read for the page', async () => {
    document = () => json(DOCUMENT);
    const auth = tab();
    const url = await signIn(auth);
    expect(url.origin + url.pathname).toBe(AUTHORIZE_URL);
    await auth.signIn();
    await expect(auth.fetch(USERINFO_URL)).rejects.toMatchObject({ code: 'unauthenticated' });
    expect(discoveries()).toHaveLength(1);
    // A GET for JSON, with nothing of the person: no cookies, no referrer.
    const { init } = discoveries()[0];
    expect(init.method).toBe('GET');
    expect(init.headers.get('accept')).toBe('application/json');
    expect(init.credentials).toBe('omit');
  });

  it("is kept in the engine's memory for every page it serves, read again only by an engine started anew", async () => {
    document = () => json(DOCUMENT);
    await signIn(tab());
    await signIn(tab());
    expect(discoveries()).toHaveLength(1);
    // The browser ended the shared worker (its last page gone, no extended lifetime): its memory with it.
    h.endWorkers();
    await signIn(tab());
    expect(discoveries()).toHaveLength(2);
  });

  it("in the page (no shared worker), each page's engine reads it for itself", async () => {
    h.sharedWorkers = false;
    document = () => json(DOCUMENT);
    const first = tab();
    await signIn(first);
    await signIn(first);
    expect(discoveries()).toHaveLength(1);
    await signIn(tab());
    expect(discoveries()).toHaveLength(2);
  });

  it.each([
    ['in the page', false],
    ['in the shared worker', true],
  ])(
    "is never kept in, nor read from, the origin's storage (%s): a planted copy sends no one elsewhere",
    async (_name, workers) => {
      h.sharedWorkers = workers;
      // A copy as earlier versions kept it, fresh and with the right issuer, rewritten by another script of the origin.
      const planted = {
        ...DOCUMENT,
        authorization_endpoint: 'https://evil.test/authorize',
        token_endpoint: 'https://evil.test/token',
      };
      localStorage.setItem(METADATA_KEY, JSON.stringify({ at: Date.now(), doc: planted }));
      const read = vi.spyOn(localStorage, 'getItem');
      document = () => json(DOCUMENT);
      const url = await signIn(tab());
      expect(url.origin + url.pathname).toBe(AUTHORIZE_URL);
      expect(discoveries()).toHaveLength(1);
      const keys = read.mock.calls.map(([key]) => key);
      expect(keys).toContain(NAMES.key('hint')); // the spy sees the page's reads
      expect(keys).not.toContain(METADATA_KEY);
      // Nothing of the document was written anywhere either.
      localStorage.removeItem(METADATA_KEY);
      expect(allStorage()).not.toContain('authorization_endpoint');
    },
  );

  it('makes prompt=create possible where the provider advertises it', async () => {
    document = () => json(DOCUMENT);
    const auth = tab();
    await auth.start();
    await auth.signIn({ prompt: 'create' });
    expect(new URL(h.lastNavigation()).searchParams.get('prompt')).toBe('create');
  });

  it('explicit endpoints win over the discovered ones', async () => {
    document = () => json({ ...DOCUMENT, authorization_endpoint: 'https://elsewhere.test/authorize' });
    const url = await signIn(tab({ server: { authorization_endpoint: AUTHORIZE_URL } }));
    expect(url.origin + url.pathname).toBe(AUTHORIZE_URL);
  });

  it('an instance with every endpoint reads nothing', async () => {
    document = () => json(DOCUMENT);
    const url = await signIn(
      tab({ server: { authorization_endpoint: AUTHORIZE_URL, token_endpoint: TOKEN_URL, userinfo_endpoint: USERINFO_URL } }),
    );
    expect(url.origin + url.pathname).toBe(AUTHORIZE_URL);
    expect(discoveries()).toHaveLength(0);
  });
});

describe('refused: discovery_failed with the reason, and nothing else is sent', () => {
  it.each<[string, () => Response | Promise<Response>, string]>([
    ['another issuer', () => json({ ...DOCUMENT, issuer: 'https://evil.test' }), 'issuer_mismatch'],
    [
      'the issuer written otherwise (a trailing slash)',
      () => json({ ...DOCUMENT, issuer: `${ACCOUNT_URL}/` }),
      'issuer_mismatch',
    ],
    [
      'an http endpoint off loopback',
      () => json({ ...DOCUMENT, token_endpoint: 'http://id.example.test/token' }),
      'insecure_endpoint',
    ],
    ['a javascript: endpoint', () => json({ ...DOCUMENT, authorization_endpoint: 'javascript:alert(1)' }), 'insecure_endpoint'],
    [
      'an optional endpoint off https',
      () => json({ ...DOCUMENT, end_session_endpoint: 'http://id.example.test/end' }),
      'insecure_endpoint',
    ],
    ['no token endpoint', () => json({ ...DOCUMENT, token_endpoint: undefined }), 'missing_endpoint'],
    ['an oversized document', () => json({ ...DOCUMENT, padding: 'x'.repeat(70_000) }), 'invalid_response'],
    ['not JSON', () => new Response('<html>', { headers: { 'content-type': 'text/html' } }), 'invalid_response'],
    ['broken JSON', () => new Response('{', { headers: { 'content-type': 'application/json' } }), 'invalid_response'],
    ['a JSON array', () => json([DOCUMENT]), 'invalid_response'],
    ['a 404', () => json({}, 404), 'invalid_response'],
    ['a redirect', () => new Response(null, { status: 302, headers: { location: 'https://evil.test/' } }), 'invalid_response'],
    ['no answer', () => Promise.reject(new TypeError('Failed to fetch')), 'unreachable'],
  ])('%s', async (_name, answer, reason) => {
    document = answer;
    const auth = tab();
    await auth.start();
    await auth.signIn();
    expect(auth.session.current).toMatchObject({
      status: 'error',
      error: { code: 'discovery_failed', reason, host: 'localhost:9010' },
    });
    expect(h.idp.requests.filter((r) => r.url !== WELL_KNOWN)).toEqual([]);
    expect(h.assign).not.toHaveBeenCalled();
    expect(discoveries()).toHaveLength(1);
  });

  it("a failure is read again at the next attempt (the alert's Try again), not before", async () => {
    document = () => json({ ...DOCUMENT, issuer: 'https://evil.test' });
    const auth = tab();
    // A stranger's page asks nothing of the engine: the first read is the first sign-in's.
    await auth.start();
    expect(discoveries()).toHaveLength(0);
    await auth.signIn();
    expect(auth.session.current.error).toMatchObject({ code: 'discovery_failed', reason: 'issuer_mismatch' });
    expect(discoveries()).toHaveLength(1);
    await auth.signIn();
    expect(h.assign).not.toHaveBeenCalled();
    expect(discoveries()).toHaveLength(2);
    await expect(auth.fetch(USERINFO_URL)).rejects.toMatchObject({ code: 'discovery_failed' });
    expect(discoveries()).toHaveLength(3);
    document = () => json(DOCUMENT);
    await auth.signIn();
    expect(discoveries()).toHaveLength(4);
    expect(h.lastNavigation().startsWith(AUTHORIZE_URL)).toBe(true);
    // Read: auth.fetch allows the discovered userinfo origin now, and asks nothing more.
    await expect(auth.fetch(USERINFO_URL)).rejects.toMatchObject({ code: 'unauthenticated' });
    expect(discoveries()).toHaveLength(4);
  });

  it('a slow document times out', async () => {
    // Never answers: only the request's own timeout (AbortSignal.timeout, which fake timers do not reach) ends it.
    document = (request) =>
      new Promise((_resolve, reject) => request.signal.addEventListener('abort', () => reject(request.signal.reason)));
    const auth = tab({ timeoutMs: 100 });
    await auth.start();
    await auth.signIn();
    expect(auth.session.current.error).toMatchObject({ code: 'discovery_failed', reason: 'timeout' });
  });

  it('an issuer off https is never asked', async () => {
    setPageUrl('http://localhost:5173/');
    document = () => json(DOCUMENT);
    const auth = tab({ issuer: 'http://id.example.test' });
    await auth.start();
    await auth.signIn();
    expect(auth.session.current.error).toMatchObject({ code: 'discovery_failed', reason: 'insecure_endpoint' });
    expect(h.idp.requests).toEqual([]);
  });
});
