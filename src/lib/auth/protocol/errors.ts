// AuthError and its codes: what every failure becomes, on the sign-in path without oauth4webapi (failures.ts
// converts oauth4webapi's errors).
import type { StepUpOptions } from './scope';

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
  /** A return from the provider's sign-out that this tab did not send (forged or stale `state`); signed out here anyway. */
  | 'unknown_signout'
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
  /** The token lacks a scope the resource needs (RFC 6750 §3.1): `scope` says which; never retried. */
  | 'insufficient_scope'
  /**
   * The resource asked for scope beyond what the configuration lets it ask (an `apis` entry's `scope` and
   * `stepUpScopes`, else the instance's `scope` and `stepUpScopes`): no sign-in is offered for it; never retried.
   */
  | 'scope_not_allowed'
  /** The resource wants a stronger or fresher sign-in (RFC 9470 §3): `acr_values` and `max_age` say how. */
  | 'insufficient_user_authentication'
  /** A step-up sign-in came back with less than it asked (OIDC Core §3.1.2.1): the field that fell short is set. */
  | 'step_up_failed'
  /** A step-up came back signed in as another person: the session stays the one it was, with nothing added. */
  | 'account_changed'
  /** A token for this API needs the person at the identity service (no refresh token): `scope` is what to ask. */
  | 'interaction_required'
  /**
   * The hidden frame could not renew or restore the session without the person: the provider forbids
   * framing its authorization endpoint, or gave no answer in time. The session ends at expiry instead.
   */
  | 'frame_refused'
  /** auth.fetch refused to send the token to a URL outside the allow-list. */
  | 'forbidden_origin'
  /** No signed-in session to make the request with. */
  | 'unauthenticated'
  /** A resource answered with an HTTP error status. */
  | 'http_error'
  /** The request was aborted because the person signed out or navigated on. */
  | 'aborted'
  /**
   * A sign-in parameter the instance may not send (an `extraParams` name its options do not allow, a
   * value out of bounds, `prompt=create` the provider does not advertise): `parameter` names it; nothing was sent.
   */
  | 'param_not_allowed'
  /** The provider's metadata could not be read or was refused (OIDC Discovery 1.0 §4): `reason` says why. */
  | 'discovery_failed'
  /** A notice, not a failure: signed out after `idle.timeoutMs` without activity in any tab. */
  | 'idle_timeout';

export interface AuthErrorDetails {
  /** OAuth `error` value from a server, bounded: render it as text. */
  oauthError?: string;
  /** OAuth `error_description` from a server, bounded: render it as text. */
  description?: string;
  /** The host a request went to, for "could not reach …" messages. */
  host?: string;
  status?: number;
  /** The start of an `http_error` response's text, bounded: render it as text. */
  text?: string;
  /** Scope tokens a resource asked for (RFC 6750 §3), validated (RFC 6749 §3.3): pass to `signIn({ scope })`. */
  scope?: string;
  /** The resource (RFC 8707) of the `apis` entry `scope` is for: pass to `signIn({ scope, resource })`. */
  resource?: string;
  /** Authentication context classes a resource asked for (RFC 9470 §3), validated like `scope`. */
  acr_values?: string;
  /** The most seconds since the person last signed in that a resource accepts (RFC 9470 §3). */
  max_age?: number;
  /** The sign-in parameter a `param_not_allowed` refused. */
  parameter?: string;
  /**
   * Why discovery failed: the code of the request's failure (`unreachable`, `timeout`, `invalid_response`),
   * or `issuer_mismatch`, `insecure_endpoint`, `missing_endpoint` for a document that was refused.
   */
  reason?: string;
}

/** An error about auth or transport. `cause` keeps the original for developers; stores get `toJSON()`. */
export class AuthError extends Error implements AuthErrorDetails {
  declare readonly oauthError?: string;
  declare readonly description?: string;
  declare readonly host?: string;
  declare readonly status?: number;
  declare readonly text?: string;
  declare readonly scope?: string;
  declare readonly resource?: string;
  declare readonly acr_values?: string;
  declare readonly max_age?: number;
  declare readonly parameter?: string;
  declare readonly reason?: string;

  constructor(
    readonly code: AuthErrorCode,
    details: AuthErrorDetails = {},
    cause?: unknown,
  ) {
    super(code, { cause });
    this.name = 'AuthError';
    Object.assign(this, details);
  }

  /** The code and details as a plain object, for a store: never the cause (own but not enumerable). */
  toJSON(): AuthErrorDetails & { code: AuthErrorCode } {
    const { name: _name, ...json } = this;
    return json;
  }
}

/** The same error without its cause, for a store a view reads. */
export const publicError = (err: AuthError) => new AuthError(err.code, err.toJSON());

/** Server text is kept short; cleaning it for display (bidi, zero-width) is the rendering view's job. */
export const bounded = (text: string, max: number) => text.slice(0, max);

/** An AuthError as it is; anything else is a bug: first shown through `show` as `invalid_response`, then thrown on. */
export function authErrorOrShow(err: unknown, show: (error: AuthError) => void): AuthError {
  if (err instanceof AuthError) return err;
  show(new AuthError('invalid_response'));
  throw err;
}

/**
 * The sign-in an error asks for, to hand to `signIn()` with the app's `returnTo`: the scope a resource named
 * (`insufficient_scope`, RFC 6750 §3.1; `interaction_required`) with the API's `resource` it is for, or a
 * stronger or fresher sign-in (`insufficient_user_authentication`, RFC 9470 §4). Undefined for an error no
 * sign-in can mend (`scope_not_allowed` among them).
 */
export function stepUpFor(
  error: Pick<AuthErrorDetails, 'scope' | 'resource' | 'acr_values' | 'max_age'> & { code: AuthErrorCode },
): StepUpOptions | undefined {
  const { code, scope, resource, acr_values, max_age } = error;
  const asked = scope && { scope, resource };
  if (code === 'insufficient_scope') return asked || undefined;
  if (code === 'interaction_required') return asked || {};
  if (code !== 'insufficient_user_authentication') return undefined;
  // Without a hint from the resource, a fresh sign-in is the stronger one it can mean.
  const seconds = max_age ?? (acr_values ? undefined : 0);
  return { ...(acr_values && { acr_values }), ...(seconds !== undefined && { max_age: seconds }) };
}
