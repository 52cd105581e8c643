// A resource server's challenge (RFC 6750 §3, RFC 9449 §7.1, RFC 9470 §3), as oauth4webapi parsed it,
// turned into an AuthError that carries what the server asked for, bounded and validated: a view shows
// it and hands it to signIn(). Loaded with auth.fetch, never on the sign-in path.
import type * as oauth from 'oauth4webapi';
import { AuthError, bounded, type AuthErrorCode, type AuthErrorDetails } from './errors';

/** A scope (or acr_values) list longer than this is no real server's: it is dropped, not cut. */
const MAX_LIST_CHARS = 512;
/** A `max_age` above a year asks for nothing a session does not already meet: dropped as nonsense. */
export const MAX_AGE_LIMIT_S = 366 * 24 * 60 * 60;
/**
 * Parsing cost grows with the header (oauth4webapi re-matches what remains after each parameter), and no
 * real challenge comes near this.
 */
export const MAX_CHALLENGE_CHARS = 4096;

const NQCHAR_LIST = /^[\x21\x23-\x5b\x5d-\x7e]+(?: [\x21\x23-\x5b\x5d-\x7e]+)*$/;

/** `value` when it is space-separated tokens of NQCHAR (RFC 6749 §3.3) within 512 characters, else undefined. */
export const tokenList = (value: unknown): string | undefined =>
  typeof value === 'string' && value.length <= MAX_LIST_CHARS && NQCHAR_LIST.test(value) ? value : undefined;

/** `max_age` (RFC 9470 §3, OIDC Core §3.1.2.1): a whole number of seconds from 0 to a year, else undefined. */
export function maxAge(value: unknown): number | undefined {
  const seconds = typeof value === 'string' && /^\d{1,9}$/.test(value) ? Number(value) : value;
  return Number.isInteger(seconds) && (seconds as number) >= 0 && (seconds as number) <= MAX_AGE_LIMIT_S
    ? (seconds as number)
    : undefined;
}

/** Each scope token of the lists once, in order of appearance. */
export const unionScope = (...lists: (string | undefined)[]): string =>
  [...new Set(lists.join(' ').split(' '))].filter(Boolean).join(' ');

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
