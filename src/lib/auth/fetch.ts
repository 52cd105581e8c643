// auth.fetch: fetch with the access token, for allow-listed origins only (RFC 6750 §2.1, RFC 9449 §7),
// the API's own token for an origin of `apis` (RFC 8707), and a resource's challenges as typed errors.
import * as oauth from 'oauth4webapi';
import { withoutOversizedChallenge } from './challenge';
import { AuthError, toAuthError } from './errors';
import { boundedFetch, insecure, type Network, type RequestLimits } from './http';
import { withNonce } from './protocol';
import type { Vault } from './vault';

export interface AuthFetchParts {
  network: Network;
  /** The session's tokens, the APIs' tokens and the DPoP key. */
  vault: Vault;
  /** Origins that may receive the token, as bare origins (`https://api.example.com/` is `https://api.example.com`). */
  allowed: Set<string>;
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
 * with other requests) and replays once. Other challenges are thrown as typed AuthErrors (challenge.ts).
 */
export function createAuthFetch({ network, vault, allowed, base, timeoutMs, maxBytes }: AuthFetchParts): typeof fetch {
  return async (input, init) => {
    const url = allowedUrl(input, base(), allowed);
    const request = withDefaults(input, url, init);
    // A caller's stream is sent once, as it comes; any other body is copied per attempt for a replay.
    const stream = init?.body instanceof ReadableStream;
    const template = stream ? () => request : () => request.clone();
    const signal = AbortSignal.any([request.signal, vault.signal()]);
    for (let attempt = 0; ; attempt++) {
      const current = vault.tokens();
      if (!current) throw new AuthError('unauthenticated');
      // Keyed by the origin the allow-list passed: an API's token cannot be sent anywhere else.
      const apiToken = await vault.apiToken(url.origin);
      const token = apiToken ?? current.accessToken;
      const dpop = vault.dpop();
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
        // Anything but a refused token (RFC 6750 §3.1 invalid_token) is the caller's to handle: scope, step-up.
        if (challenge.code !== 'session_expired') throw challenge;
        if (apiToken !== undefined) {
          // The API refused its own token: the next attempt gets a new one. Twice is the API's doing, not the session's.
          vault.forgetApiToken(url.origin, apiToken);
          if (attempt > 0) throw new AuthError('http_error', { oauthError: 'invalid_token', status: err.status }, err);
          if (stream) return err.response;
          continue;
        }
        // Replay once: with the token another request already renewed, or after one shared renewal.
        // A stream cannot be sent again: its caller gets the 401, and the next request the new token.
        const renewed = () => vault.tokens()?.accessToken !== current.accessToken;
        if (attempt === 0 && (renewed() || (await vault.renew(true)))) {
          if (stream) return err.response;
          continue;
        }
        // Refused even when fresh: this tab's session ends (another tab's, with the same tokens, goes on).
        if (!renewed()) vault.end();
        throw new AuthError('session_expired', {}, err);
      }
    }
  };
}
