// Test-only: a scripted identity service, API and browser plumbing for the module's unit tests (the
// demo app's provider). It answers the module's real requests (handed to its `fetch` as an auth
// instance's network, with real Response objects) the way the interface spec says, and records every
// request so tests can assert what was sent, and what was not.
import { vi } from 'vitest';
import * as oauth from 'oauth4webapi';
import { calculateJwkThumbprint, decodeJwt, decodeProtectedHeader, type JWK } from 'jose';
import { appNames } from '../browser/storage';
import type { AuthOptions, ClientOptions, ServerEndpoints } from '../options';

export const APP_URL = 'http://localhost:5173/';
export const ACCOUNT_URL = 'http://localhost:9010';
export const AUTH_URL = 'http://127.0.0.1:9011';
export const API_ORIGIN = 'http://127.0.0.1:9012';
export const API_URL = `${API_ORIGIN}/api/greeting`;
/** A second API on an origin of its own, answered like the first (per-API tokens, RFC 8707). */
export const OTHER_API_ORIGIN = 'http://127.0.0.1:9013';
export const OTHER_API_URL = `${OTHER_API_ORIGIN}/api/other`;
export const CLIENT_ID = 'demo-spa';
export const TOKEN_URL = `${ACCOUNT_URL}/connect/token`;
export const AUTHORIZE_URL = `${ACCOUNT_URL}/connect/authorize`;
export const USERINFO_URL = `${AUTH_URL}/connect/userinfo`;
export const REVOCATION_URL = `${ACCOUNT_URL}/connect/revocation`;
export const END_SESSION_URL = `${ACCOUNT_URL}/connect/endsession`;
/** The names the app's tabs share for the test options' issuer and client id: storage keys, channel, locks. */
export const NAMES = appNames(ACCOUNT_URL, CLIENT_ID);

/** What a test changes of testOptions(): client options, the issuer, and single endpoints of `server`. */
export type OptionsOverrides = Partial<ClientOptions> & { issuer?: string; server?: Partial<ServerEndpoints> };

/** Options that name the issuer and every endpoint: no discovery, and `server` is there to read. */
export type TestOptions = AuthOptions & { issuer: string; scope: string; server: ServerEndpoints };

/**
 * The local provider's options, as the demo app hands them to the module: every endpoint under its two
 * hosts, one API origin, the sign-out endpoints only when a test adds them; `overrides` on top, `server`
 * merged endpoint by endpoint.
 */
export function testOptions({ server, ...overrides }: OptionsOverrides = {}): TestOptions {
  return {
    issuer: ACCOUNT_URL,
    clientId: CLIENT_ID,
    redirectUri: APP_URL,
    scope: 'openid profile email service.api',
    requireIss: false,
    apiOrigins: [API_ORIGIN],
    apis: {},
    timeoutMs: 15_000,
    dpop: false,
    // A session without a refresh token ends at expiry, as most tests expect; the hidden frame's tests turn it on.
    hiddenFrame: false,
    ...overrides,
    server: {
      issuer: ACCOUNT_URL,
      authorization_endpoint: AUTHORIZE_URL,
      token_endpoint: TOKEN_URL,
      userinfo_endpoint: USERINFO_URL,
      ...server,
    },
  };
}

/** Puts the page at `url` (happy-dom refuses cross-origin history entries, so this is the way). */
export function setPageUrl(url: string): void {
  (window as unknown as { happyDOM: { setURL(url: string): void } }).happyDOM.setURL(url);
}

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
}

/** A JSON answer whose connection drops after its headers and the start of its body, which it says is longer. */
export function cutOff(): Response {
  const start = new TextEncoder().encode('{"access_token":"at-');
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(start);
      controller.error(new TypeError('network error'));
    },
  });
  return new Response(body, { headers: { 'content-type': 'application/json', 'content-length': '300' } });
}

/** A Bearer challenge as a resource server sends it (RFC 6750 §3). */
export function challenge(status: 401 | 403, error: string): Response {
  return new Response(null, { status, headers: { 'www-authenticate': `Bearer realm="api", error="${error}"` } });
}

/** An answer with this `WWW-Authenticate` header, as written. */
export function challengeHeader(status: number, header: string): Response {
  return new Response(null, { status, headers: { 'www-authenticate': header } });
}

const b64url = (value: unknown) =>
  btoa(String.fromCharCode(...new TextEncoder().encode(JSON.stringify(value))))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');

/**
 * A well-formed ID token whose signature is junk: oauth4webapi does not verify the signature of an ID
 * token received directly from the token endpoint over TLS (OIDC Core §3.1.3.7 item 6), so this is enough.
 */
export function unsignedIdToken(claims: Record<string, unknown>): string {
  return `${b64url({ alg: 'RS256', typ: 'JWT', kid: 'k1' })}.${b64url(claims)}.bm90LWEtcmVhbC1zaWduYXR1cmU`;
}

export function idTokenClaims(sub: string, nonce: string | undefined, extra: Record<string, unknown> = {}) {
  const now = Math.floor(Date.now() / 1000);
  return { iss: ACCOUNT_URL, aud: CLIENT_ID, sub, nonce, iat: now, exp: now + 300, ...extra };
}

export interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(reason: unknown): void;
}

export function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

export interface RecordedRequest {
  url: string;
  method: string;
  headers: Headers;
  /** The body as form parameters (token requests), empty when there is none. */
  form: URLSearchParams;
  /** The body's bytes, as the server receives them. */
  body: ArrayBuffer | undefined;
  /** The request as sent, with every member (credentials, keepalive, signal…). */
  init: Request;
}

type Handler = (request: RecordedRequest) => Response | Promise<Response>;
/** An endpoint override; `standard` is the endpoint's default behaviour, to delegate to. */
type Override = (request: RecordedRequest, standard: Handler) => Response | Promise<Response>;

interface IssuedCode {
  nonce?: string;
  challenge: string;
  redirectUri: string;
  clientId: string;
  scope: string;
}

export type Profile = Record<string, unknown> & { sub: string };

export const ALICE: Profile = {
  sub: 'alice-sub',
  name: 'Alice Liddell',
  email: 'alice@example.test',
  preferred_username: 'alice',
};
export const BOB: Profile = { sub: 'bob-sub', name: 'Bob Builder', email: 'bob@example.test', preferred_username: 'bob' };

export class FakeIdp {
  readonly requests: RecordedRequest[] = [];
  /** Who signs in at the next approve(). */
  user: Profile = ALICE;
  /** `expires_in` of issued access tokens; undefined leaves it out. */
  expiresIn: number | undefined = 300;
  /** Whether token responses carry a (rotating) refresh token. */
  refreshTokens = false;
  /** Access tokens the resource servers accept. */
  readonly validAccessTokens = new Set<string>();
  /** DPoP (RFC 9449): token requests with a proof get tokens bound to its key (token_type DPoP). */
  dpop = false;
  /** When set, DPoP proofs must carry this nonce; without it the servers answer use_dpop_nonce. */
  dpopNonce: string | undefined;
  /** The key thumbprint each bound access token (and refresh token) is bound to. */
  readonly boundTo = new Map<string, string>();
  /** Every token response body the default token endpoint issued, in order. */
  readonly issued: Record<string, unknown>[] = [];
  /** Claims added to the ID tokens of code exchanges (auth_time, acr…). */
  idTokenExtra: Record<string, unknown> = {};
  /** The `scope` a code exchange's answer names from the requested one; undefined leaves it out (as requested). */
  grantedScope?: (requested: string) => string;
  /** The RFC 8707 resource each access token was issued for (refresh grants with `resource`). */
  readonly resourceOf = new Map<string, string>();
  /** The one refresh token the token endpoint accepts next (rotation: each use replaces it). */
  currentRefreshToken: string | undefined;
  /** Overrides of the endpoints' default behaviour. */
  token?: Override;
  userinfo?: Override;
  api?: Override;
  revocation?: Override;
  private readonly codes = new Map<string, IssuedCode>();
  private readonly subjects = new Map<string, string>();
  private serial = 0;

  readonly fetch = vi.fn(async (input: RequestInfo | URL, options: RequestInit = {}): Promise<Response> => {
    // What the browser would send: the module passes a Request, tests may pass a URL and init.
    const init = new Request(input, options);
    const body = init.body ? await init.clone().arrayBuffer() : undefined;
    const form = init.headers.get('content-type')?.startsWith('application/x-www-form-urlencoded');
    const request: RecordedRequest = {
      url: init.url,
      method: init.method,
      headers: init.headers,
      form: new URLSearchParams(form && body ? new TextDecoder().decode(body) : undefined),
      body,
      init,
    };
    this.requests.push(request);
    const signal = init.signal;
    if (signal?.aborted) throw signal.reason;
    const answer = Promise.resolve().then(() => this.route(request));
    if (!signal) return answer;
    // Like a browser: an abort rejects the pending fetch whatever the server is doing.
    return new Promise<Response>((resolve, reject) => {
      signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      answer.then(resolve, reject);
    });
  });

  /** Routes the global fetch to this fake, for a test of createAuth over the real global fetch (undone by vi.unstubAllGlobals). */
  install(): this {
    vi.stubGlobal('fetch', this.fetch);
    return this;
  }

  to(url: string): RecordedRequest[] {
    return this.requests.filter((r) => r.url.split('?')[0] === url);
  }

  /** The revocation log: every token sent to the revocation endpoint (RFC 7009), in order. */
  revoked(): string[] {
    return this.to(REVOCATION_URL).map((r) => r.form.get('token') ?? '');
  }

  tokenRequests(grantType?: string): RecordedRequest[] {
    return this.to(TOKEN_URL).filter((r) => !grantType || r.form.get('grant_type') === grantType);
  }

  /**
   * Plays the person approving at the identity service for the authorization URL the app navigated to:
   * issues a code bound to its PKCE challenge, nonce and redirect URI, and returns the callback's query.
   */
  approve(authorizeUrl: string, { iss = ACCOUNT_URL as string | null } = {}): URLSearchParams {
    const request = new URL(authorizeUrl).searchParams;
    const code = `code-${++this.serial}-${crypto.randomUUID()}`;
    this.codes.set(code, {
      nonce: request.get('nonce') ?? undefined,
      challenge: request.get('code_challenge') ?? '',
      redirectUri: request.get('redirect_uri') ?? '',
      clientId: request.get('client_id') ?? '',
      scope: request.get('scope') ?? '',
    });
    this.subjects.set(code, this.user.sub);
    const callback = new URLSearchParams({ code, state: request.get('state') ?? '' });
    if (iss !== null) callback.set('iss', iss);
    return callback;
  }

  /** The error response of the authorization endpoint (RFC 6749 §4.1.2.1) for that request. */
  deny(authorizeUrl: string, error = 'access_denied', extra: Record<string, string> = {}): URLSearchParams {
    const state = new URL(authorizeUrl).searchParams.get('state') ?? '';
    return new URLSearchParams({ error, state, iss: ACCOUNT_URL, ...extra });
  }

  /** Token responses as the default token endpoint builds them. */
  issue(sub: string, nonce?: string, withIdToken = true, clientId = CLIENT_ID): Record<string, unknown> {
    const n = ++this.serial;
    const accessToken = `at-${n}-${crypto.randomUUID()}`;
    this.validAccessTokens.add(accessToken);
    const body: Record<string, unknown> = { access_token: accessToken, token_type: 'Bearer' };
    if (this.expiresIn !== undefined) body.expires_in = this.expiresIn;
    if (withIdToken) body.id_token = unsignedIdToken(idTokenClaims(sub, nonce, { aud: clientId, ...this.idTokenExtra }));
    if (this.refreshTokens) body.refresh_token = this.currentRefreshToken = `rt-${n}-${crypto.randomUUID()}`;
    this.issued.push(body);
    return body;
  }

  private async route(request: RecordedRequest): Promise<Response> {
    const path = request.url.split('?')[0];
    const answer = (override: Override | undefined, standard: Handler) =>
      override ? override(request, standard) : standard(request);
    if (path === TOKEN_URL && request.method === 'POST') return answer(this.token, this.defaultToken);
    if (path === USERINFO_URL) return answer(this.userinfo, this.defaultUserinfo);
    if (path === API_URL || path === OTHER_API_URL) return answer(this.api, this.defaultApi);
    if (path === REVOCATION_URL && request.method === 'POST') return answer(this.revocation, this.defaultRevocation);
    // Anything else is a host this test world does not have.
    throw new TypeError('Failed to fetch');
  }

  /** RFC 7009: the token stops working; 200 whether or not it was known (§2.2). */
  private readonly defaultRevocation = ({ form }: RecordedRequest): Response => {
    const token = form.get('token');
    if (token === this.currentRefreshToken) this.currentRefreshToken = undefined;
    if (token) this.validAccessTokens.delete(token);
    return new Response(null, { status: 200 });
  };

  /** The thumbprint of a valid proof's key, undefined without one; throws the nonce answer when one is due. */
  private async proofKey(request: RecordedRequest, accessToken?: string): Promise<string | undefined> {
    const proof = request.headers.get('dpop');
    if (!proof) return undefined;
    const header = decodeProtectedHeader(proof);
    const claims = decodeJwt(proof);
    const url = new URL(request.url);
    const ath = accessToken && oauth.calculatePKCECodeChallenge(accessToken);
    const valid =
      header.typ === 'dpop+jwt' &&
      header.alg === 'ES256' &&
      claims.htm === request.method &&
      claims.htu === url.origin + url.pathname &&
      (!ath || claims.ath === (await ath));
    if (!valid) throw json({ error: 'invalid_dpop_proof' }, 400);
    if (this.dpopNonce && claims.nonce !== this.dpopNonce) throw new DpopNonceDue(this.dpopNonce);
    return calculateJwkThumbprint(header.jwk as JWK);
  }

  private readonly defaultToken = async (request: RecordedRequest): Promise<Response> => {
    const { form } = request;
    let key: string | undefined;
    try {
      key = await this.proofKey(request);
    } catch (answer) {
      if (!(answer instanceof DpopNonceDue)) return answer as Response;
      return json({ error: 'use_dpop_nonce' }, 400, { 'dpop-nonce': answer.nonce });
    }
    const bind = (body: Record<string, unknown>) => {
      if (!this.dpop || !key) return json(body);
      body.token_type = 'DPoP';
      this.boundTo.set(body.access_token as string, key);
      if (body.refresh_token) this.boundTo.set(body.refresh_token as string, key);
      return json(body);
    };
    const invalidGrant = json({ error: 'invalid_grant' }, 400);
    if (form.get('grant_type') === 'refresh_token') {
      const refreshToken = form.get('refresh_token') ?? '';
      if (!this.currentRefreshToken || refreshToken !== this.currentRefreshToken) return invalidGrant;
      const boundKey = this.boundTo.get(refreshToken);
      if (boundKey && boundKey !== key) return invalidGrant;
      const body = this.issue(this.user.sub, undefined, false);
      const resource = form.get('resource');
      if (resource) this.resourceOf.set(body.access_token as string, resource);
      return bind(body);
    }
    const code = form.get('code') ?? '';
    const issued = this.codes.get(code);
    this.codes.delete(code);
    if (!issued || form.get('grant_type') !== 'authorization_code') return invalidGrant;
    const verifier = form.get('code_verifier') ?? '';
    const pkceOk = verifier !== '' && (await oauth.calculatePKCECodeChallenge(verifier)) === issued.challenge;
    if (!pkceOk || form.get('redirect_uri') !== issued.redirectUri || form.get('client_id') !== issued.clientId) {
      return invalidGrant;
    }
    // The ID token's audience is the client the code was issued to (two apps of one provider).
    const body = this.issue(this.subjects.get(code)!, issued.nonce, issued.scope.split(' ').includes('openid'), issued.clientId);
    if (this.grantedScope) body.scope = this.grantedScope(issued.scope);
    return bind(body);
  };

  /** Whether the request carries a valid token: Bearer for unbound ones, DPoP with a proof of its key for bound ones. */
  private async authorized(request: RecordedRequest): Promise<Response | true> {
    const [, scheme, token] = request.headers.get('authorization')?.match(/^(Bearer|DPoP) (.+)$/) ?? [];
    if (!token || !this.validAccessTokens.has(token)) return challenge(401, 'invalid_token');
    const bound = this.boundTo.get(token);
    if (!bound) return scheme === 'Bearer' || challenge(401, 'invalid_token');
    try {
      if (scheme === 'DPoP' && (await this.proofKey(request, token)) === bound) return true;
    } catch (answer) {
      if (answer instanceof DpopNonceDue) {
        return new Response(null, {
          status: 401,
          headers: { 'www-authenticate': 'DPoP error="use_dpop_nonce"', 'dpop-nonce': answer.nonce },
        });
      }
    }
    return new Response(null, { status: 401, headers: { 'www-authenticate': 'DPoP error="invalid_token"' } });
  }

  private readonly defaultUserinfo = async (request: RecordedRequest): Promise<Response> => {
    const ok = await this.authorized(request);
    return ok === true ? json(this.user) : ok;
  };

  private readonly defaultApi = async (request: RecordedRequest): Promise<Response> => {
    const ok = await this.authorized(request);
    return ok === true ? json({ greeting: `Hello, ${String(this.user.name)}` }) : ok;
  };
}

/** Thrown inside the fake servers when a DPoP proof lacks the current nonce. */
class DpopNonceDue {
  constructor(readonly nonce: string) {}
}

/**
 * BroadcastChannel for tests: same-name instances in this process talk to each other (not to
 * themselves), asynchronously like the real one, and reset() cuts off every channel of a finished test
 * so no message leaks into the next one.
 */
export class FakeBroadcastChannel extends EventTarget {
  static open = new Set<FakeBroadcastChannel>();
  /** Every message posted, for assertions on what went on the wire. */
  static posted: { name: string; data: unknown }[] = [];
  onmessage: ((event: MessageEvent) => void) | null = null;

  constructor(readonly name: string) {
    super();
    FakeBroadcastChannel.open.add(this);
  }

  postMessage(data: unknown): void {
    if (!FakeBroadcastChannel.open.has(this)) throw new DOMException('closed', 'InvalidStateError');
    FakeBroadcastChannel.posted.push({ name: this.name, data: structuredClone(data) });
    for (const other of FakeBroadcastChannel.open) {
      if (other === this || other.name !== this.name) continue;
      const copy = structuredClone(data);
      queueMicrotask(() => {
        if (!FakeBroadcastChannel.open.has(other)) return;
        const event = new MessageEvent('message', { data: copy });
        other.onmessage?.(event);
        other.dispatchEvent(event);
      });
    }
  }

  close(): void {
    FakeBroadcastChannel.open.delete(this);
  }

  static reset(): void {
    FakeBroadcastChannel.open.clear();
    FakeBroadcastChannel.posted = [];
  }
}

/** Every storage entry as one string, to search for secrets. */
export function allStorage(): string {
  const dump = (storage: Storage) => Object.keys(storage).map((key) => `${key}=${storage.getItem(key)}`);
  return [...dump(localStorage), ...dump(sessionStorage)].join('\n');
}

/**
 * Web Locks for tests: exclusive locks shared by the tabs of one test (like one browser's origin),
 * granted in request order, with `signal` leaving the queue. A tab's destroy() releases what it holds,
 * as closing a real tab does.
 */
/**
 * The Web Locks of one browser: exclusive, queued by name. A page holds its lock until it releases it
 * (its tab closes); the worker's request for the same name is granted then.
 */
export class FakeLocks {
  private readonly holders = new Map<string, symbol>();
  private readonly queues = new Map<string, (() => void)[]>();

  request(name: string, callback: () => Promise<void>): Promise<void> {
    const token = Symbol(name);
    return new Promise<void>((resolve, reject) => {
      const grant = () => {
        this.holders.set(name, token);
        void Promise.resolve()
          .then(callback)
          .then(resolve, reject)
          .finally(() => this.release(name, token));
      };
      if (this.holders.has(name)) this.queues.set(name, [...(this.queues.get(name) ?? []), grant]);
      else grant();
    });
  }

  /** The names of the locks held now. */
  held(): string[] {
    return [...this.holders.keys()];
  }

  private release(name: string, token: symbol) {
    if (this.holders.get(name) !== token) return;
    this.holders.delete(name);
    this.queues.get(name)?.shift()?.();
  }
}

/**
 * A MessageChannel whose ports deliver in a microtask, cloned as a real port clones: tests on fake
 * timers keep their clock, and a page and its engine talk within promise turns. As a real port, each
 * keeps what it receives until start(): a page may post before the other end listens (open.ts).
 */
export class FakeMessageChannel {
  readonly port1: FakePort;
  readonly port2: FakePort;
  constructor() {
    this.port1 = new FakePort();
    this.port2 = new FakePort();
    this.port1.other = this.port2;
    this.port2.other = this.port1;
  }
}

export class FakePort extends EventTarget {
  other?: FakePort;
  closed = false;
  /** What came before start(), in order; undefined once started. */
  private held: unknown[] | undefined = [];
  postMessage(data: unknown): void {
    const to = this.other;
    if (this.closed || !to) return;
    const copy = structuredClone(data);
    if (to.held) to.held.push(copy);
    else to.deliver(copy);
  }
  start(): void {
    const held = this.held ?? [];
    this.held = undefined;
    for (const data of held) this.deliver(data);
  }
  private deliver(data: unknown) {
    queueMicrotask(() => !this.closed && this.dispatchEvent(new MessageEvent('message', { data })));
  }
  close(): void {
    this.closed = true;
  }
}
