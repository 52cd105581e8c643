// A token per API (RFC 8707): for an origin of `apis`, auth.fetch sends a token obtained for that API's
// resource with the session's refresh token (§2.2), never the sign-in token, so a token taken from one
// API is useless at another. Tokens are cached in memory per origin, for the session they came from.
import * as oauth from 'oauth4webapi';
import { unionScope } from './scope';
import { AuthError, toAuthError } from './errors';
import type { ResourceParams, TokenSet } from './protocol';
import { exchange } from './exchange';
import type { Renewal } from './renewal';

/** An API of `apis`: the RFC 8707 resource indicator its tokens are for, and the scope they need. */
export interface ApiOptions {
  resource: string;
  scope?: string;
}

export interface ApiTokenParts {
  renewal: Renewal;
  /** The refresh-token grant with RFC 8707 parameters; none means no per-API token can be had. */
  refresh?(current: TokenSet, signal: AbortSignal, extra: ResourceParams): Promise<TokenSet>;
  apis?: Record<string, ApiOptions>;
  /** The session's scope now, with what step-ups added. */
  sessionScope: () => string | undefined;
  /** The scope the instance signed in with before any step-up. */
  scope?: string;
  now: () => number;
}

/** A token is taken as expired this long before its end, or a fifth of its life when that is shorter. */
const EARLY_MS = 30_000;

interface ApiToken {
  accessToken: string;
  /** Epoch ms after which the next request gets a new one. */
  renewAt: number;
}

interface Cached {
  token: Promise<ApiToken>;
  /** Set once the token has arrived. */
  value?: ApiToken;
}

/** `apis` keyed by bare origin, however each key was written (as with apiOrigins). */
export const apisByOrigin = (apis: Record<string, ApiOptions> = {}): Map<string, ApiOptions> =>
  new Map(Object.entries(apis).map(([key, api]) => [new URL(key).origin, api]));

/**
 * The scope a token for `api` asks for: its own, plus what step-ups added to the session since sign-in
 * (the provider keeps each API's share, RFC 8707 §2.2).
 */
export function apiScope(api: ApiOptions, sessionScope = '', signInScope = ''): string {
  const initial = signInScope.split(' ');
  return unionScope(api.scope, ...sessionScope.split(' ').filter((token) => !initial.includes(token)));
}

/** The per-API tokens of one auth.fetch: `token(origin)` is undefined for an origin without an entry. */
export function createApiTokens({ renewal, refresh, apis, sessionScope, scope: signInScope, now }: ApiTokenParts) {
  const byOrigin = apisByOrigin(apis);
  const cache = new Map<string, Cached>();
  let watched: AbortSignal | undefined;

  /** Gets a token for `api` with the session's refresh token; a refusal of that token ends the session. */
  function obtain(api: ApiOptions): Promise<ApiToken> {
    const session = renewal.signal();
    const scope = apiScope(api, sessionScope(), signInScope);
    const extra: ResourceParams = scope ? { resource: api.resource, scope } : { resource: api.resource };
    const needsPerson = () => new AuthError('interaction_required', scope ? { scope } : {});
    return exchange(renewal, async (current, signal) => {
      if (!current.refreshToken || !refresh) throw needsPerson();
      const next = await refresh(current, signal, extra);
      const start = now();
      const renewAt = next.expiresAt - Math.min(EARLY_MS, (next.expiresAt - start) / 5);
      return { result: { accessToken: next.accessToken, renewAt }, refreshToken: next.refreshToken };
    }).catch((err: unknown) => {
      // The grant lacks the scope for this API: only the person can add it (RFC 6749 §5.2).
      if (err instanceof oauth.ResponseBodyError && err.error === 'invalid_scope') throw needsPerson();
      const failure = toAuthError(err);
      if (failure.code !== 'invalid_grant') throw failure;
      // The session's refresh token is refused: it cannot renew the sign-in token either.
      if (renewal.signal() === session) renewal.expire(failure);
      throw new AuthError('session_expired', {}, failure);
    });
  }

  return {
    /** The access token for requests to `origin`: cached for this session, a new one once it is about to expire. */
    async token(origin: string): Promise<string | undefined> {
      const api = byOrigin.get(origin);
      if (!api) return undefined;
      const session = renewal.signal();
      if (watched !== session) {
        // A new session: whatever an earlier one held is gone, and goes when this one ends.
        cache.clear();
        watched = session;
        session.addEventListener('abort', () => cache.clear(), { once: true });
      }
      let cached = cache.get(origin);
      if (!cached || (cached.value && now() >= cached.value.renewAt)) {
        const entry: Cached = { token: obtain(api) };
        entry.token.then(
          (value) => (entry.value = value),
          () => cache.get(origin) === entry && cache.delete(origin),
        );
        cache.set(origin, (cached = entry));
      }
      return (await cached.token).accessToken;
    },
    /** Forgets `accessToken` for `origin` after its API refused it (`invalid_token`): the next request gets another. */
    forget(origin: string, accessToken: string) {
      if (cache.get(origin)?.value?.accessToken === accessToken) cache.delete(origin);
    },
  };
}

export type ApiTokens = ReturnType<typeof createApiTokens>;
