// createAuth: one auth instance. The shared session policy (core.ts) and the sign-in round trip
// (signin.ts), wired to the browser, its storage and the app's other tabs under names keyed to the
// app (storage.ts), with sign-out here, in every tab and at the identity service.
// Making one touches no browser global, so it is safe during server rendering; start() begins the work.
import type { ApiOptions } from './protocol/apis';
import { createCore } from './core';
import { toAuthErrorOrShow } from './protocol/errors';
import type { AuthEventType, AuthListener, SignOutReason } from './page/events';
import type { Network } from './protocol/http';
import type { IdleOptions, IdleState } from './tabs/idle';
import { browserPort, type BrowserPort } from './browser/port';
import type { Claims, Server, StandardClaims } from './protocol/steps';
import type { Resource, ResourceOptions, ResourceUrl } from './svelte/resource.svelte';
import { reactiveStore, type ReactiveStore, type SessionState } from './svelte/session';
import { createSignIn, type SignInOptions, type StartOptions, type StartResult } from './page/signin';
import { appNames, appStorage, type AppStorage } from './browser/storage';

export type { IdleOptions, IdleState } from './tabs/idle';
export type { SignInOptions, StartOptions, StartResult } from './page/signin';
export { safeReturnTo } from './page/signin';

/** The identity service's endpoints, in RFC 8414 metadata names (a discovery document fits). */
export interface ServerEndpoints {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  userinfo_endpoint: string;
  end_session_endpoint?: string;
  revocation_endpoint?: string;
}

/**
 * Where the identity service is: its issuer, whose metadata gives the endpoints `server` leaves out
 * (OIDC Discovery 1.0 §4, read before start() or signIn() sends anything: once, kept for an hour for
 * the app's pages), or every endpoint a sign-in needs in `server`, `issuer` among them. The issuer is
 * checked against `iss` (RFC 9207, OIDC Core §3.1.3.7).
 */
export type ServerOptions = { issuer: string; server?: Partial<ServerEndpoints> } | { issuer?: string; server: ServerEndpoints };

export type AuthOptions = ServerOptions & ClientOptions;

export interface ClientOptions {
  /** The public client's id; there is no client secret. With `issuer`, it keys what the app's tabs share. */
  clientId: string;
  /** Where the identity service sends the person back: only this origin and path is taken as a callback. */
  redirectUri: string;
  /** Default `openid`. */
  scope?: string;
  /** Refuse authorization responses without `iss` (RFC 9207 §2.4). */
  requireIss?: boolean;
  /** Further origins that may receive the access token; the userinfo endpoint's origin always may. */
  apiOrigins?: string[];
  /**
   * APIs that get a token of their own (RFC 8707), keyed by origin: every sign-in asks for each `resource`
   * and `scope`, and requests to that origin carry a token for its resource, never the sign-in token.
   */
  apis?: Record<string, ApiOptions>;
  /**
   * Scope tokens, space-separated, that an origin without an `apis` entry (`apiOrigins`, userinfo) may
   * ask a step-up for besides `scope`: they widen the sign-in token, which every such origin receives.
   * Default none: such an origin's `insufficient_scope` for anything else is `scope_not_allowed`.
   */
  stepUpScopes?: string;
  /**
   * Names of further authorization parameters `signIn({ extraParams })` may send (OIDC Core §3.1.2.1).
   * A parameter the module sets itself (`state`, `scope`, `redirect_uri`, …) is never allowed: a sign-in
   * that sends one is refused (`param_not_allowed`), as one with a name not listed here.
   */
  extraParams?: string[];
  /** Per-request timeout over the whole exchange, default 15000 ms. */
  timeoutMs?: number;
  /** Refuse an API answer larger than this many bytes from `auth.fetch`; default none (the body streams). */
  maxResponseBytes?: number;
  /** Bind tokens to a key of this page (RFC 9449). */
  dpop?: boolean;
  /**
   * Send the ID token as `id_token_hint` with the end-session request (RP-Initiated Logout 1.0 §2).
   * Off by default: the request is a GET, so the token would sit in its URL (the provider's logs, and
   * history where the provider shows a page there). Turn it on for a provider that returns to
   * `post_logout_redirect_uri` only with the hint (e.g. Glewlwyd, IdentityServer/Duende); `client_id` is sent either way.
   */
  endSessionIdTokenHint?: boolean;
  /**
   * Where the provider's sign-out brings the person back (`post_logout_redirect_uri`, RP-Initiated
   * Logout 1.0 §3); default `redirectUri`. Register it with the provider. start() on a page at its
   * origin and path whose query adds only `state` takes that as the sign-out's return: it confirms
   * the sign-out (or shows `unknown_signout`) and removes `state` from the URL.
   */
  postLogoutRedirectUri?: string;
  /**
   * Sign out after `timeoutMs` without input (pointer, keys, wheel, touch, scroll) in any tab of the
   * session, as a sign-out does (revocation included), with the notice `idle_timeout`; `warnMs` before,
   * `auth.idle` counts down. Whole milliseconds, 0 < warnMs < timeoutMs ≤ 24 h, else a TypeError. Default off.
   */
  idle?: IdleOptions;
}

export interface Auth<C extends Claims = StandardClaims> {
  /** `{ status, user, expiresAt, error }`, as a store and as `current`. It never carries a token. */
  readonly session: ReactiveStore<SessionState<C>>;
  /** Completes a callback in the URL, or restores a session, or settles as signed out; never navigates in the app. */
  start(options?: StartOptions): Promise<StartResult>;
  /**
   * The session once start() has settled it: `signed-in`, `signed-out`, `expired` or `error`, never
   * `loading` or `redirecting` (at once when it is settled already). A `load` awaits it before
   * `auth.fetch`. On a server, where start() never runs, it resolves at once with the session as it
   * is there (`loading`), so rendering never waits for it.
   */
  settled(): Promise<SessionState<C>>;
  /** Sends the person to the identity service; start() hands `returnTo` back after the callback. */
  signIn(options?: SignInOptions): Promise<void>;
  /** Forgets the tokens here and in every other tab, revokes them, and ends the provider's session when it can. */
  signOut(): void;
  /** The idle sign-out's countdown: `{ warning: true, remainingMs }` from `idle.warnMs` before it, else `{ warning: false }`. */
  readonly idle: ReactiveStore<IdleState>;
  /** The person is here (a "Stay signed in" button): the idle sign-out starts over in every tab. */
  stayActive(): void;
  /** `fetch` with the access token, for allowed origins only. */
  readonly fetch: typeof fetch;
  /** A store of `url` loaded with the token, following a function URL. */
  resource<T = unknown>(url: ResourceUrl, options?: ResourceOptions<T>): Resource<T>;
  /**
   * Calls `listener` with each event of `type` this instance emits (see `AuthEvents`), for telemetry and
   * logs; returns the unsubscribe, which may be called more than once.
   */
  on<K extends AuthEventType>(type: K, listener: AuthListener<K>): () => void;
  /** Removes every listener, timer and channel this instance added, `on` listeners included. */
  destroy(): void;
}

/** The browser and the network, passed in so tests need no globals. */
export interface Collaborators {
  browser: () => BrowserPort;
  network: Network;
}

/** One auth instance over the real browser and network; makes nothing until start() is called. */
export function createAuth<C extends Claims = StandardClaims>(options: AuthOptions): Auth<C> {
  return assembleAuth<C>(options, { browser: browserPort, network: (request) => fetch(request) });
}

/**
 * The description of the identity service and this client that every protocol step reads; fixed but
 * for `as`, which discovery completes before the first step.
 */
function serverOf(options: AuthOptions, issuer: string, network: Network): Server {
  const apis = Object.values(options.apis ?? {});
  return Object.freeze({
    // Makes validateAuthResponse refuse a response without `iss` (RFC 9207 §2.4).
    as: { ...options.server, issuer, authorization_response_iss_parameter_supported: options.requireIss },
    client: { client_id: options.clientId },
    redirectUri: options.redirectUri,
    postLogoutRedirectUri: options.postLogoutRedirectUri,
    // The sign-in's scope and every API's: a token repeated in the list asks for nothing more.
    scope: [options.scope ?? 'openid', ...apis.map((api) => api.scope)].filter(Boolean).join(' '),
    resources: apis.map((api) => api.resource),
    extraParams: options.extraParams,
    timeoutMs: options.timeoutMs ?? 15_000,
    network,
  });
}

/** Whole milliseconds, 0 < warnMs < timeoutMs, at most a day: longer is not being idle but leaving. */
const validIdle = ({ timeoutMs, warnMs }: IdleOptions) =>
  Number.isInteger(warnMs) && warnMs > 0 && warnMs < timeoutMs && Number.isInteger(timeoutMs) && timeoutMs <= 864e5;

/** createAuth over the browser and network given: tests pass fakes instead of stubbing globals. */
export function assembleAuth<C extends Claims>(options: AuthOptions, { browser: makeBrowser, network }: Collaborators): Auth<C> {
  if (options.idle && !validIdle(options.idle))
    throw new TypeError('createAuth: idle wants whole ms, 0 < warnMs < timeoutMs <= 24 h');
  const issuer = (options.issuer ?? options.server?.issuer)!;
  const server = serverOf(options, issuer, network);
  const names = appNames(issuer, options.clientId);
  let port: BrowserPort | undefined;
  let records: AppStorage | undefined;
  const idle = reactiveStore<IdleState>({ warning: false });
  const browser = () => (port ??= makeBrowser());
  const storage = () => (records ??= appStorage(browser(), names));
  const core = createCore<C>({
    client: server.client,
    network,
    timeoutMs: server.timeoutMs,
    scope: server.scope,
    apis: options.apis,
    stepUpScopes: options.stepUpScopes,
    allowed: () => [server.as.userinfo_endpoint!, ...(options.apiOrigins ?? []), ...Object.keys(options.apis ?? {})],
    ready,
    base: () => port?.url() ?? options.redirectUri,
    now: () => browser().now(),
    maxBytes: options.maxResponseBytes,
    // The other tabs and the page's events, loaded when this tab has settled: a sign-in never waits for them.
    tabs: {
      port: browser,
      names,
      storage,
      server,
      apis: Object.values(options.apis ?? {}),
      dpop: !!options.dpop,
      signOut,
      idle: options.idle,
      showIdle: idle.set,
    },
  });
  const signIn = createSignIn<C>({
    server,
    browser,
    storage,
    state: core.state,
    vault: core.vault,
    signedIn: core.signedIn,
    tabs: core.tabs,
    later: core.later,
    dpop: !!options.dpop,
  });

  /**
   * The provider's metadata, discovered once when the options lack an endpoint a sign-in needs (explicit
   * ones win); after a failure, the next start() or signIn() (the alert's Try again) reads it again.
   */
  const discovers =
    !options.server?.authorization_endpoint || !options.server.token_endpoint || !options.server.userinfo_endpoint;
  let metadata: Promise<void> | undefined;
  function ready(): Promise<void> {
    return (metadata ??= discovers
      ? core.later().then((later) =>
          later
            .discoverServer(server.as, {
              network,
              timeoutMs: server.timeoutMs,
              store: browser().perBrowser,
              key: names.key('metadata'),
              now: browser().now(),
            })
            .catch((err: unknown) => {
              metadata = undefined;
              throw err;
            }),
        )
      : Promise.resolve());
  }
  /**
   * `run` once the metadata is there; a failure to read it is the session's error, and nothing is sent.
   * Without discovery, `run` itself: a stranger's start() settles before it returns (main.ts mounts at once).
   */
  const whenReady = <A, R>(run: (arg: A) => Promise<R>, none: R) =>
    discovers
      ? (arg: A) =>
          ready().then(
            () => run(arg),
            (err) => (core.state.failed(toAuthErrorOrShow(err, core.state.failed)), none),
          )
      : run;

  /** `revoke` unless the tab that signed out shared this session's tokens, and revoked them once; `reason` goes to the event. */
  function signOut(everywhere: boolean, revoke: boolean, reason: SignOutReason) {
    const b = browser();
    // Before the vault forgets the session: the message names it.
    if (everywhere) core.joined()?.signedOut();
    const tokens = core.signOut(reason);
    storage().clearTab();
    storage().writeHint('signed-out');
    // The provider's part follows with its module: the sign-out has happened here already.
    void core.later().then((later) => {
      if (tokens && revoke) later.revokeAll(server, tokens);
      if (everywhere) later.endSession(server, b, tokens?.idToken, storage(), options.endSessionIdTokenHint);
    });
  }

  return {
    session: core.state.session,
    start: whenReady(signIn.start, {}),
    // No window: a server, where start() never runs.
    settled: () => (typeof window == 'undefined' ? Promise.resolve(core.state.session.current) : core.settled()),
    signIn: whenReady(signIn.signIn, undefined),
    signOut: () => signOut(true, true, 'user'),
    idle: idle.readable,
    stayActive: () => core.joined()?.stayActive(),
    fetch: core.fetch,
    resource: core.resource,
    on: core.events.on,
    destroy: core.destroy,
  };
}
