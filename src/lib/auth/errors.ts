import * as oauth from 'oauth4webapi';
import { safeText } from '../text';

/** What went wrong, as a code the UI branches on; never prose from a server. */
export type AuthErrorCode =
  /** The person cancelled at the identity service (`access_denied`). */
  | 'cancelled'
  /** Any other `error` in the authorization response (RFC 6749 §4.1.2.1). */
  | 'authorization_failed'
  /** `prompt=none` could not be answered without the person (OIDC Core §3.1.2.6). */
  | 'login_required'
  /** A callback with no matching sign-in in progress: reload, back button, another tab or a forged link. */
  | 'unknown_transaction'
  /** The code or refresh token was rejected or has expired (RFC 6749 §5.2). */
  | 'invalid_grant'
  /** Any other error from the token endpoint. */
  | 'token_error'
  /** A server's answer failed validation. */
  | 'invalid_response'
  | 'unreachable'
  | 'timeout'
  /** The token was refused by a resource server and could not be renewed (RFC 6750 §3.1). */
  | 'session_expired'
  /** The token lacks a scope the resource needs (RFC 6750 §3.1); never retried. */
  | 'insufficient_scope'
  /** authFetch refused to send the token to a URL outside the allow-list. */
  | 'forbidden_origin'
  /** No signed-in session to make the request with. */
  | 'unauthenticated'
  /** A resource answered with an HTTP error status. */
  | 'http_error'
  /** The request was aborted because the person signed out or navigated on. */
  | 'aborted';

export interface AuthErrorDetails {
  /** OAuth `error` value, cleaned and bounded. */
  oauthError?: string;
  /** OAuth `error_description`, cleaned and bounded. */
  description?: string;
  /** The host a request went to, for "could not reach …" messages. */
  host?: string;
  status?: number;
}

export class AuthError extends Error implements AuthErrorDetails {
  declare readonly oauthError?: string;
  declare readonly description?: string;
  declare readonly host?: string;
  declare readonly status?: number;

  constructor(
    readonly code: AuthErrorCode,
    details: AuthErrorDetails = {},
  ) {
    super(code);
    this.name = 'AuthError';
    Object.assign(this, details);
  }

  /** The code and details as a plain object, for a store. */
  toJSON(): AuthErrorDetails & { code: AuthErrorCode } {
    const { code, oauthError, description, host, status } = this;
    return { code, oauthError, description, host, status };
  }
}

const SILENT_LOGIN_ERRORS = new Set(['login_required', 'interaction_required', 'consent_required', 'account_selection_required']);

function oauthDetails(error: string, description: string | undefined, status?: number): AuthErrorDetails {
  return {
    oauthError: safeText(error, 64),
    description: description === undefined ? undefined : safeText(description),
    status,
  };
}

/** The Bearer challenge's `error` from a WWW-Authenticate header, parsed by oauth4webapi (RFC 6750 §3). */
export function challengeError(err: oauth.WWWAuthenticateChallengeError): string | undefined {
  return err.cause.find((challenge) => challenge.scheme === 'bearer')?.parameters.error;
}

/**
 * Maps anything thrown while talking to a server to an AuthError. Only codes and cleaned, bounded
 * server text survive: never a token, a code or a response body.
 */
export function toAuthError(err: unknown): AuthError {
  if (err instanceof AuthError) return err;
  if (err instanceof oauth.AuthorizationResponseError) {
    const code =
      err.error === 'access_denied'
        ? 'cancelled'
        : SILENT_LOGIN_ERRORS.has(err.error)
          ? 'login_required'
          : 'authorization_failed';
    return new AuthError(code, oauthDetails(err.error, err.error_description));
  }
  if (err instanceof oauth.ResponseBodyError) {
    const code = err.error === 'invalid_grant' ? 'invalid_grant' : 'token_error';
    return new AuthError(code, oauthDetails(err.error, err.error_description, err.status));
  }
  if (err instanceof oauth.WWWAuthenticateChallengeError) {
    const error = challengeError(err);
    const code =
      error === 'insufficient_scope' ? 'insufficient_scope' : error === 'invalid_token' ? 'session_expired' : 'http_error';
    return new AuthError(code, { ...oauthDetails(error ?? 'unauthorized', undefined), status: err.status });
  }
  if (err instanceof DOMException && err.name === 'AbortError') return new AuthError('aborted');
  return new AuthError('invalid_response');
}
