// The session's tokens for APIs (RFC 8707): one per API origin, obtained through the vault's refresh-token
// grant for that API's resource and scope (§2.2), kept until shortly before they expire, forgotten when
// the API refuses one, and all of them when the session ends. A refused refresh token ends the session.
import { apiParams, apisByOrigin, type ApiOptions } from '../protocol/apis';
import { AuthError } from '../protocol/errors';
import { toAuthError } from '../protocol/failures';
import type { ResourceParams, TokenSet } from '../protocol/steps';
import { classify } from './renewal';

export interface ApiTokenParts {
  /** APIs with tokens of their own, keyed by origin in any URL form. */
  apis?: Record<string, ApiOptions>;
  now(): number;
  /** The vault's refresh-token grant for one API, in turn with the session's others. */
  grant(params: ResourceParams): Promise<TokenSet>;
  /** What step-ups added for each API, by its resource: that API's grants ask for it. */
  added(): Record<string, string> | undefined;
  /** Aborted when the session ends. */
  signal(): AbortSignal;
  /** The refresh token was refused: the session ends. */
  refused(error: AuthError): void;
}

/** A token for an API is taken as expired this long before its end, or a fifth of its life when that is shorter. */
const API_EARLY_MS = 30_000;

interface ApiToken {
  accessToken: string;
  /** Epoch ms after which the next request gets a new one. */
  renewAt: number;
}

/** The tokens for the session's APIs; see the file's head. */
export interface ApiTokens {
  /** The access token for `origin`'s API (undefined for an origin without one): kept until about to expire. */
  get(origin: string): Promise<string | undefined>;
  /** Forgets `accessToken` for `origin` after its API refused it (`invalid_token`): the next request gets another. */
  forget(origin: string, accessToken: string): void;
  /** The session ended: every API token with it. */
  clear(): void;
}

export function createApiTokens(parts: ApiTokenParts): ApiTokens {
  const apis = apisByOrigin(parts.apis);
  const cache = new Map<string, { token: Promise<ApiToken>; value?: ApiToken }>();

  /** Gets a token for `api`; a refusal of the refresh token ends the session. */
  async function obtain(api: ApiOptions): Promise<ApiToken> {
    const signal = parts.signal();
    const params = apiParams(api, parts.added());
    try {
      const next = await parts.grant(params);
      const start = parts.now();
      return { accessToken: next.accessToken, renewAt: next.expiresAt - Math.min(API_EARLY_MS, (next.expiresAt - start) / 5) };
    } catch (err) {
      const failure = classify(err);
      if (failure === 'interaction')
        throw new AuthError(
          'interaction_required',
          'scope' in params ? { scope: params.scope, resource: api.resource } : {},
          err,
        );
      if (failure !== 'refused') throw toAuthError(err);
      // The refresh token is refused: it cannot renew the sign-in token either.
      if (!signal.aborted) parts.refused(toAuthError(err));
      throw new AuthError('session_expired', {}, err);
    }
  }

  return {
    async get(origin) {
      const api = apis.get(origin);
      if (!api) return undefined;
      let cached = cache.get(origin);
      if (!cached || (cached.value && parts.now() >= cached.value.renewAt)) {
        const entry: { token: Promise<ApiToken>; value?: ApiToken } = { token: obtain(api) };
        entry.token.then(
          (value) => (entry.value = value),
          () => cache.get(origin) === entry && cache.delete(origin),
        );
        cache.set(origin, (cached = entry));
      }
      return (await cached.token).accessToken;
    },
    forget(origin, accessToken) {
      if (cache.get(origin)?.value?.accessToken === accessToken) cache.delete(origin);
    },
    clear: () => cache.clear(),
  };
}
