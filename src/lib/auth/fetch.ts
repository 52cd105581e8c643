// auth.fetch: fetch with the access token, for allow-listed origins only (RFC 6750 §2.1, RFC 9449 §7).
import * as oauth from 'oauth4webapi';
import { AuthError, challengeError, toAuthError } from './errors';
import { requestOptions } from './http';
import { withNonce, type Server } from './protocol';
import type { Renewal } from './renewal';

const MAX_RESOURCE_BYTES = 1024 * 1024;

export interface AuthFetchParts {
  server: Server;
  renewal: Renewal;
  /** Origins that may receive the token. */
  allowed: Set<string>;
  /** The page's URL, which relative URLs resolve against. */
  base: () => string;
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
 * A drop-in `fetch` that adds the token only for allowed origins, without cookies, referrer or
 * redirects, with a timeout; after a 401 `invalid_token` it renews once (shared) and replays once.
 */
export function createAuthFetch({ server, renewal, allowed, base }: AuthFetchParts): typeof fetch {
  return async (input, init) => {
    const url = allowedUrl(input, base(), allowed);
    const request = new Request(input instanceof Request ? input : url, init);
    // A stream can be sent once; every other body is read once here so a replay can send it again.
    const stream = init?.body instanceof ReadableStream;
    const body = stream ? request.body : request.body && (await request.arrayBuffer());
    const signal = AbortSignal.any([request.signal, renewal.signal()]);
    for (let attempt = 0; ; attempt++) {
      const current = renewal.current();
      if (!current) throw new AuthError('unauthenticated');
      const send = () =>
        oauth.protectedResourceRequest(current.accessToken, request.method, url, request.headers, body, {
          ...requestOptions(url, { timeoutMs: server.timeoutMs, maxBytes: MAX_RESOURCE_BYTES, signal }),
          DPoP: server.dpop,
        });
      try {
        return await (stream ? send() : withNonce(server, send));
      } catch (err) {
        if (!(err instanceof oauth.WWWAuthenticateChallengeError)) throw toAuthError(err);
        if (err.status !== 401 && err.status !== 403) return err.response;
        if (challengeError(err) !== 'invalid_token') throw toAuthError(err);
        // Replay once: with the token another request already renewed, or after one shared renewal.
        // A stream cannot be sent again: its caller gets the 401, and the next request the new token.
        if (attempt === 0 && (renewal.current() !== current || (await renewal.renew(true)))) {
          if (stream) return err.response;
          continue;
        }
        if (renewal.current() === current) renewal.expire();
        throw new AuthError('session_expired', {}, err);
      }
    }
  };
}
