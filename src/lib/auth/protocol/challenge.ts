// A resource server's challenge (RFC 6750 §3, RFC 9449 §7.1, RFC 9470 §3), as oauth4webapi parsed it:
// the one reading of what a server asked for, for userinfo and auth.fetch alike (errors.ts makes it an
// AuthError), bounded and validated.
import type * as oauth from 'oauth4webapi';
import { maxAge, tokenList } from './scope';

/**
 * Parsing cost grows with the header (oauth4webapi re-matches what remains after each parameter), and no
 * real challenge comes near this.
 */
export const MAX_CHALLENGE_CHARS = 4096;

/**
 * The challenge for this client's token among those of one header: the first Bearer or DPoP challenge
 * that carries an `error`, one of the token's own scheme first (a DPoP server may offer both, RFC 9449 §7.1).
 */
export function pickChallenge(
  challenges: oauth.WWWAuthenticateChallenge[],
  scheme: 'bearer' | 'dpop',
): oauth.WWWAuthenticateChallenge | undefined {
  const candidates = challenges.filter((c) => (c.scheme === 'bearer' || c.scheme === 'dpop') && c.parameters.error);
  return candidates.find((c) => c.scheme === scheme) ?? candidates[0];
}

/** What a challenge asks for, validated: a value that fails validation is left out, never passed on. */
export interface ChallengeRequest {
  /** The challenge's `error` (RFC 6750 §3.1, RFC 9470 §3), if any. */
  error?: string;
  scope?: string;
  acr_values?: string;
  max_age?: number;
}

/**
 * What the challenge for this client's token asks for: `scope` with `insufficient_scope`, `acr_values`
 * and `max_age` with `insufficient_user_authentication`.
 */
export function readChallenge(challenges: oauth.WWWAuthenticateChallenge[], scheme: 'bearer' | 'dpop'): ChallengeRequest {
  const parameters = pickChallenge(challenges, scheme)?.parameters ?? {};
  const { error } = parameters;
  if (error === 'insufficient_scope') return { error, scope: tokenList(parameters.scope) };
  if (error !== 'insufficient_user_authentication') return { error };
  return { error, acr_values: tokenList(parameters.acr_values), max_age: maxAge(parameters.max_age) };
}

/**
 * The response without a `WWW-Authenticate` header over MAX_CHALLENGE_CHARS, so oauth4webapi never parses
 * it: the caller gets the answer as fetch would give it, like any other challenge it cannot read.
 */
export function withoutOversizedChallenge(response: Response): Response {
  if ((response.headers.get('www-authenticate')?.length ?? 0) <= MAX_CHALLENGE_CHARS) return response;
  const headers = new Headers(response.headers);
  headers.delete('www-authenticate');
  const copy = new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  return Object.defineProperty(copy, 'url', { value: response.url });
}
