// What an instance is told about its identity service and itself (createAuth's options), and the
// description of both that every protocol step reads (Server). The page and the session engine read the
// same options: the engine's worker is named after all of them, so a page only ever reaches an engine
// made with its own configuration.
import type { ApiOptions } from './protocol/apis';
import type { Network } from './protocol/http';
import type { Server } from './protocol/steps';
import type { IdleOptions } from './session/idle';

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
 * (OIDC Discovery 1.0 §4, read once by the session engine and kept in its memory), or every endpoint a
 * sign-in needs in `server`, `issuer` among them. The issuer is checked against `iss` (RFC 9207, OIDC
 * Core §3.1.3.7).
 */
export type ServerOptions = { issuer: string; server?: Partial<ServerEndpoints> } | { issuer?: string; server: ServerEndpoints };

export type AuthOptions = ServerOptions & ClientOptions;

export interface ClientOptions {
  /** The public client's id; there is no client secret. With `issuer`, it keys what the app's pages share. */
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
  /** Bind tokens to a key of the session (RFC 9449). */
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
   * Sign out after `timeoutMs` without input (pointer, keys, wheel, touch, scroll) in any page of the
   * session, as a sign-out does (revocation included), with the notice `idle_timeout`; `warnMs` before,
   * `auth.idle` counts down. Whole milliseconds, 0 < warnMs < timeoutMs ≤ 24 h, else a TypeError. Default off.
   */
  idle?: IdleOptions;
  /**
   * How long the session outlives the app's last open page, in whole milliseconds: a reload, or Back from
   * another site within this time, finds it with no request to the identity service. Default
   * 120000 (two minutes); 0 forgets it at once. Only where the browser keeps a shared worker alive
   * after its last page (Chromium); elsewhere a lone page's session ends with it.
   */
  keepSessionMs?: number;
  /**
   * Where the session has no refresh token, renew it before expiry, and restore a lone page's reload the
   * shared worker could not keep, with a `prompt=none` authorization in a hidden frame (OIDC Core
   * §3.1.2.1), with no navigation. Default true. It needs the provider's session cookie in a same-site
   * frame and framing of its authorization endpoint allowed, and the app's CSP `frame-src` for that
   * origin and `frame-ancestors 'self'`. Where it cannot work, the session says when it ends (`endsAt`).
   */
  hiddenFrame?: boolean;
}

/** A reload takes under two seconds, a visit elsewhere about a minute: twice that, and no longer. */
export const KEEP_SESSION_MS = 120_000;

/** Whole milliseconds, 0 < warnMs < timeoutMs, at most a day: longer is not being idle but leaving. */
const validIdle = ({ timeoutMs, warnMs }: IdleOptions) =>
  Number.isInteger(warnMs) && warnMs > 0 && warnMs < timeoutMs && Number.isInteger(timeoutMs) && timeoutMs <= 864e5;

/** At most a day, as with idle: a session nobody can see is not kept longer. */
const validKeep = (ms: number) => Number.isInteger(ms) && ms >= 0 && ms <= 864e5;

/** The options' own mistakes, before anything is made: a TypeError names the option. */
export function checkOptions(options: AuthOptions): void {
  if (options.idle && !validIdle(options.idle))
    throw new TypeError('createAuth: idle wants whole ms, 0 < warnMs < timeoutMs <= 24 h');
  if (options.keepSessionMs !== undefined && !validKeep(options.keepSessionMs))
    throw new TypeError('createAuth: keepSessionMs wants whole ms from 0 to 24 h');
}

/**
 * What the engine reads of the options, in a fixed order: the worker is named by all of it, and by
 * nothing else an app passes along (its own settings beside them, `maxResponseBytes`, which only the
 * page's auth.fetch reads).
 */
const ENGINE_OPTIONS = [
  'issuer',
  'server',
  'clientId',
  'redirectUri',
  'postLogoutRedirectUri',
  'scope',
  'requireIss',
  'apiOrigins',
  'apis',
  'stepUpScopes',
  'extraParams',
  'timeoutMs',
  'dpop',
  'endSessionIdTokenHint',
  'idle',
  'keepSessionMs',
  'hiddenFrame',
] as const;

/**
 * The worker's name: the configuration the engine runs on, so a page only ever reaches an engine made
 * with its own, and every page of one app, created from one configuration, reaches the same one.
 */
export const workerName = (options: AuthOptions): string =>
  `auth ${JSON.stringify(Object.fromEntries(ENGINE_OPTIONS.map((key) => [key, options[key]])))}`;

/** The issuer identifier the options name, explicitly or in `server`. */
export const issuerOf = (options: AuthOptions): string => (options.issuer ?? options.server?.issuer)!;

/** Whether the options lack an endpoint a sign-in needs, so the provider's metadata is read first. */
export const discovers = ({ server }: AuthOptions): boolean =>
  !server?.authorization_endpoint || !server.token_endpoint || !server.userinfo_endpoint;

/**
 * The description of the identity service and this client that every protocol step reads; fixed but
 * for `as`, which discovery completes before the first step.
 */
export function serverOf(options: AuthOptions, network: Network): Server {
  const apis = Object.values(options.apis ?? {});
  return Object.freeze({
    // Makes validateAuthResponse refuse a response without `iss` (RFC 9207 §2.4).
    as: { ...options.server, issuer: issuerOf(options), authorization_response_iss_parameter_supported: options.requireIss },
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
