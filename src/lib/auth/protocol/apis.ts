// APIs with tokens of their own (RFC 8707): for an origin of `apis`, auth.fetch sends a token obtained
// for that API's resource with the session's refresh token (§2.2), never the sign-in token, so a token
// taken from one API is useless at another. The session engine's vault (session/tokens.ts) obtains and keeps them.
import type { ResourceParams } from './steps';
import { unionScope } from './scope';

/** An API of `apis`: the RFC 8707 resource indicator its tokens are for, and the scope they need. */
export interface ApiOptions {
  resource: string;
  scope?: string;
  /**
   * Further scope tokens, space-separated, this API may ask a step-up for (RFC 6750 §3.1
   * `insufficient_scope`): a challenge naming any token outside `scope` and these is `scope_not_allowed`.
   */
  stepUpScopes?: string;
}

/** `apis` keyed by bare origin, however each key was written (as with apiOrigins). */
export const apisByOrigin = (apis: Record<string, ApiOptions> = {}): Map<string, ApiOptions> =>
  new Map(Object.entries(apis).map(([key, api]) => [new URL(key).origin, api]));

/**
 * The token request for `api` (RFC 8707 §2.2): its resource, and its own scope plus what step-ups added
 * for it (`added`, by resource), never what they added for another API. `scope` is left out rather than empty.
 */
export function apiParams(api: ApiOptions, added: Record<string, string> = {}): ResourceParams {
  const scope = unionScope(api.scope, added[api.resource]);
  return scope ? { resource: api.resource, scope } : { resource: api.resource };
}
