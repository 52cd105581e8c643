// auth.fetch: fetch with the access token, for allow-listed origins only (RFC 6750 §2.1, RFC 9449 §7),
// the API's own token for an origin of `apis` (RFC 8707), and a resource's challenges as typed errors.
import * as oauth from 'oauth4webapi';
import { apisByOrigin, type ApiOptions } from '../protocol/apis';
import { withoutOversizedChallenge } from '../protocol/challenge';
import { AuthError } from '../protocol/errors';
import { toAuthError } from '../protocol/failures';
import { boundedFetch, insecure, type Network, type RequestLimits } from '../protocol/http';
import { withNonce, type Proof } from '../protocol/steps';
import { unionScope } from '../protocol/scope';

/** Where auth.fetch gets its tokens: the session engine, through the page's connection (host/client.ts). */
export interface TokenSource {
  /** The token for a request to `origin`, an API's own for an origin of `apis`, with the proof to send it with. */
  token(origin: string): Promise<{ accessToken: string; api: boolean; dpop: Proof }>;
  /** `refused` was refused (RFC 6750 §3.1 invalid_token): renewed once for every page; true when there is a new one. */
  renew(refused: string): Promise<boolean>;
  /** An API refused its own token: the next request gets another. */
  forget(origin: string, accessToken: string): void;
  /** A freshly renewed `refused` was refused too: the session ends. */
  end(refused: string): void;
  /** The last renewal could not reach the provider. */
  offline(): boolean;
  /** Aborted when the session ends: its requests die with it. */
  signal(): AbortSignal;
}

export interface AuthFetchParts {
  network: Network;
  /** The session's tokens, the APIs' tokens and the DPoP proof. */
  tokens: TokenSource;
  /** Origins that may receive the token, as bare origins (`https://api.example.com/` is `https://api.example.com`). */
  allowed: Set<string>;
  /** APIs with tokens of their own, keyed by origin in any URL form: each may ask a step-up for its scope and `stepUpScopes`. */
  apis?: Record<string, ApiOptions>;
  /** What every sign-in asks for: with `stepUpScopes`, what an origin outside `apis` may ask a step-up for. */
  scope: string;
  /** Scope tokens an origin outside `apis` (which gets the sign-in token) may ask a step-up for. */
  stepUpScopes?: string;
  /** The page's URL, which relative URLs resolve against. */
  base: () => string;
  timeoutMs: number;
  /** Cap on a response's size; none by default (the body streams). */
  maxBytes?: number;
}

/**
 * The URL `input` names (relative ones against `base`) when it may carry the token, else AuthError
 * `forbidden_origin` before anything is sent.
 */
export function allowedUrl(input: RequestInfo | URL, base: string, allowed: Set<string>): URL {
  const url = new URL(input instanceof Request ? input.url : input, base);
  if (!/^https?:$/.test(url.protocol) || url.username || url.password || !allowed.has(url.origin)) {
    throw new AuthError('forbidden_origin');
  }
  return url;
}

/**
 * The same for the app's own request: every member the caller set is sent as set (a fresh copy of
 * `template()` per attempt, so the body can be sent again); oauth4webapi adds only the headers.
 */
export function resourceRequestOptions(network: Network, url: URL, limits: RequestLimits, template: () => Request) {
  const send = boundedFetch(network, limits, (_href, init, signal) => {
    const request = template();
    // A non-empty init resets the referrer and its policy (Fetch standard, new Request): carried across.
    const { referrer, referrerPolicy } = request;
    return new Request(request, { headers: init.headers, signal, redirect: 'manual', referrer, referrerPolicy });
  });
  return {
    [oauth.customFetch]: async (...args: Parameters<typeof send>) => withoutOversizedChallenge(await send(...args)),
    [oauth.allowInsecureRequests]: insecure(url),
  };
}

/**
 * An `insufficient_scope` challenge as far as its origin may ask: every scope token it names within what
 * that origin's configuration allows (`allowed`), for the API's `resource` when it has one (so a step-up
 * widens that API's grants alone); anything more is `scope_not_allowed`, with no scope to ask a sign-in for.
 */
function boundStepUp(error: AuthError, allowed: string[], resource?: string): AuthError {
  const { code, scope, ...details } = error.toJSON();
  return scope!.split(' ').every((token) => allowed.includes(token))
    ? new AuthError(code, { ...details, scope, ...(resource && { resource }) }, error.cause)
    : new AuthError('scope_not_allowed', details, error.cause);
}

/**
 * The caller's request with our defaults where the caller set nothing: no cookies, no referrer, no
 * cache (a response to a token is private). Every member the caller did set is kept.
 */
function withDefaults(input: RequestInfo | URL, url: URL, init: RequestInit = {}): Request {
  const given = input instanceof Request ? input : undefined;
  return new Request(given ?? url, {
    ...init,
    credentials: init.credentials ?? (given && given.credentials !== 'same-origin' ? given.credentials : 'omit'),
    referrerPolicy: init.referrerPolicy ?? (given?.referrerPolicy || 'no-referrer'),
    cache: init.cache ?? (given && given.cache !== 'default' ? given.cache : 'no-store'),
  });
}

/**
 * A drop-in `fetch` that adds the token only for allowed origins (an API's own for an origin of `apis`),
 * never follows a redirect, has a timeout, and after a 401 `invalid_token` gets a new token once (shared
 * with other requests) and replays once. Other challenges are thrown as typed AuthErrors (challenge.ts),
 * an `insufficient_scope` for more than its origin may ask as `scope_not_allowed`.
 */
export function createAuthFetch(parts: AuthFetchParts): typeof fetch {
  const { network, tokens, allowed, base, timeoutMs, maxBytes } = parts;
  const apis = apisByOrigin(parts.apis);
  const signInAllowed = unionScope(parts.scope, parts.stepUpScopes).split(' ');
  return async (input, init) => {
    const url = allowedUrl(input, base(), allowed);
    const request = withDefaults(input, url, init);
    // A caller's stream is sent once, as it comes; any other body is copied per attempt for a replay.
    const stream = init?.body instanceof ReadableStream;
    const template = stream ? () => request : () => request.clone();
    const signal = AbortSignal.any([request.signal, tokens.signal()]);
    for (let attempt = 0; ; attempt++) {
      // Keyed by the origin the allow-list passed: an API's token cannot be sent anywhere else.
      const { accessToken: token, api: apiOwn, dpop } = await tokens.token(url.origin);
      const send = () =>
        oauth.protectedResourceRequest(token, request.method, url, request.headers, null, {
          ...resourceRequestOptions(network, url, { timeoutMs, maxBytes, signal }, template),
          DPoP: dpop,
        });
      try {
        return await (stream ? send() : withNonce(dpop, send));
      } catch (err) {
        if (!(err instanceof oauth.WWWAuthenticateChallengeError)) throw toAuthError(err);
        if (err.status !== 401 && err.status !== 403) return err.response;
        const challenge = toAuthError(err, dpop ? 'dpop' : 'bearer');
        // A scope is asked for only within what this origin may ask: the bound is configuration, not the server's word.
        const api = apis.get(url.origin);
        if (challenge.code === 'insufficient_scope' && challenge.scope)
          throw boundStepUp(challenge, api ? unionScope(api.scope, api.stepUpScopes).split(' ') : signInAllowed, api?.resource);
        // Anything but a refused token (RFC 6750 §3.1 invalid_token) is the caller's to handle: scope, step-up.
        if (challenge.code !== 'session_expired') throw challenge;
        if (apiOwn) {
          // The API refused its own token: the next attempt gets a new one. Twice is the API's doing, not the session's.
          tokens.forget(url.origin, token);
          if (attempt > 0) throw new AuthError('http_error', { oauthError: 'invalid_token', status: err.status }, err);
          if (stream) return err.response;
          continue;
        }
        // Replay once: with the token another request already renewed, or after one shared renewal.
        // A stream cannot be sent again: its caller gets the 401, and the next request the new token.
        if (attempt === 0 && (await tokens.renew(token))) {
          if (stream) return err.response;
          continue;
        }
        // The provider could not be reached to renew: the session stays (tokens.ts), and the caller learns why.
        if (tokens.offline()) throw new AuthError('unreachable', {}, err);
        // Refused even when fresh: the session ends, unless another request has renewed it meanwhile.
        tokens.end(token);
        throw new AuthError('session_expired', {}, err);
      }
    }
  };
}
