// The one place where failures of oauth4webapi and the network become AuthErrors (errors.ts), with
// what a server said, bounded.
import * as oauth from 'oauth4webapi';
import { readChallenge } from './challenge';
import { AuthError, bounded, type AuthErrorCode, type AuthErrorDetails } from './errors';

const SILENT_LOGIN_ERRORS = ['login_required', 'interaction_required', 'consent_required', 'account_selection_required'];

function oauthDetails(error: string, description?: string, status?: number): AuthErrorDetails {
  return { oauthError: bounded(error, 64), description: description && bounded(description, 200), status };
}

/** The challenge `error` values of RFC 6750 §3.1 and RFC 9470 §3 this client acts on; any other is an `http_error`. */
const CHALLENGE_CODES = new Map<string, AuthErrorCode>([
  ['invalid_token', 'session_expired'],
  ['insufficient_scope', 'insufficient_scope'],
  ['insufficient_user_authentication', 'insufficient_user_authentication'],
]);

/** A 401/403 challenge as an AuthError with what the server asked for (challenge.ts), for the token's `scheme`. */
function challengeFailure(err: oauth.WWWAuthenticateChallengeError, scheme: 'bearer' | 'dpop'): AuthError {
  const { error, scope, acr_values, max_age } = readChallenge(err.cause, scheme);
  const details: AuthErrorDetails = {
    ...oauthDetails(error ?? 'unauthorized'),
    status: err.status,
    ...(scope && { scope }),
    ...(acr_values && { acr_values }),
    ...(max_age !== undefined && { max_age }),
  };
  return new AuthError((error && CHALLENGE_CODES.get(error)) || 'http_error', details, err);
}

/**
 * The one place where failures of oauth4webapi and the network become AuthErrors; a challenge is read
 * for the token's `scheme`. Only codes and bounded server text are copied out; the original stays as
 * `cause`. Anything else is a bug and is thrown as it is.
 */
export function toAuthError(err: unknown, scheme: 'bearer' | 'dpop' = 'bearer'): AuthError {
  if (err instanceof AuthError) return err;
  if (err instanceof oauth.WWWAuthenticateChallengeError) return challengeFailure(err, scheme);
  let code: AuthErrorCode = 'invalid_response';
  let details: AuthErrorDetails = {};
  if (err instanceof oauth.AuthorizationResponseError) {
    code =
      err.error === 'access_denied'
        ? 'cancelled'
        : SILENT_LOGIN_ERRORS.includes(err.error)
          ? 'login_required'
          : 'authorization_failed';
    details = oauthDetails(err.error, err.error_description);
  } else if (err instanceof oauth.ResponseBodyError) {
    code = err.error === 'invalid_grant' ? 'invalid_grant' : 'token_error';
    details = oauthDetails(err.error, err.error_description, err.status);
  } else if (err instanceof DOMException && err.name === 'AbortError') {
    code = 'aborted';
  } else if (err instanceof SyntaxError) {
    // Response JSON that does not parse: the server's answer, not our code, is at fault.
  } else if (!(err instanceof oauth.OperationProcessingError || err instanceof oauth.UnsupportedOperationError)) {
    throw err;
  }
  return new AuthError(code, details, err);
}
