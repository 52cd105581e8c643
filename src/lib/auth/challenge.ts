// A resource server's challenge (RFC 6750 §3, RFC 9449 §7.1, RFC 9470 §3), as oauth4webapi parsed it,
// turned into an AuthError that carries what the server asked for, bounded and validated: a view shows
// it and hands it to signIn(). Loaded with auth.fetch, never on the sign-in path.
import type * as oauth from 'oauth4webapi';
import { AuthError, bounded, type AuthErrorCode, type AuthErrorDetails } from './errors';
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

/** The `error` values of RFC 6750 §3.1 and RFC 9470 §3 this client acts on; any other is an `http_error`. */
const CODES = new Map<string, AuthErrorCode>([
  ['invalid_token', 'session_expired'],
  ['insufficient_scope', 'insufficient_scope'],
  ['insufficient_user_authentication', 'insufficient_user_authentication'],
]);

/**
 * The AuthError for a 401/403 challenge: `insufficient_scope` with the `scope` asked for,
 * `insufficient_user_authentication` with `acr_values` and `max_age`; a value that fails validation is
 * left out, never passed on.
 */
export function challengeToError(err: oauth.WWWAuthenticateChallengeError, scheme: 'bearer' | 'dpop'): AuthError {
  const parameters = pickChallenge(err.cause, scheme)?.parameters ?? {};
  const error = parameters.error;
  const code = (error && CODES.get(error)) || 'http_error';
  const details: AuthErrorDetails = { oauthError: bounded(error ?? 'unauthorized', 64), status: err.status };
  const scope = code === 'insufficient_scope' && tokenList(parameters.scope);
  const acrValues = code === 'insufficient_user_authentication' && tokenList(parameters.acr_values);
  const seconds = code === 'insufficient_user_authentication' ? maxAge(parameters.max_age) : undefined;
  if (scope) details.scope = scope;
  if (acrValues) details.acr_values = acrValues;
  if (seconds !== undefined) details.max_age = seconds;
  return new AuthError(code, details, err);
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
