// What people read when something fails: chosen by the error's code, never taken from a server.
import type { AuthErrorCode } from './auth';

export interface ErrorMessage {
  title: string;
  hint?: string;
  /** Label of the button that starts a fresh attempt, when not "Try again". */
  action?: string;
}

const SUPPORT = 'Try again; if it keeps failing, contact support.';

/** "5 minutes", or "30 seconds" below a minute. */
function duration(ms: number): string {
  const [amount, unit] = ms >= 60_000 ? [Math.round(ms / 60_000), 'minute'] : [Math.round(ms / 1000), 'second'];
  return `${amount} ${unit}${amount === 1 ? '' : 's'}`;
}

/**
 * Codes this app never shows (it sends no request to other origins and ignores aborts) get a general
 * message; `idleMs` is the idle sign-out's timeout, for its notice.
 */
export function describeError(
  code: AuthErrorCode,
  host = 'the identity service',
  status?: number,
  idleMs?: number,
): ErrorMessage {
  const messages: Partial<Record<AuthErrorCode, ErrorMessage>> = {
    cancelled: { title: 'Sign-in was cancelled.', hint: 'Nothing was shared with this app.' },
    authorization_failed: { title: 'The identity service could not sign you in.', hint: SUPPORT },
    login_required: { title: 'Please sign in again.' },
    // Any sign-in answer this tab is not waiting for: used, expired, another tab's, forged, or of a kind it never asks for.
    unknown_transaction: {
      title: 'That sign-in link was not used.',
      hint: 'It was already used, has expired, or was not started in this tab. Nothing was sent, and it is gone from the address bar.',
    },
    unknown_signout: {
      title: 'You are signed out here.',
      hint: 'The sign-out confirmation did not come from this app, so the identity service may still have you signed in.',
      action: 'Sign in',
    },
    invalid_grant: { title: 'The sign-in code was rejected or has expired.', hint: 'Codes are short-lived and work once.' },
    token_error: { title: 'The identity service refused to issue a token.', hint: SUPPORT },
    invalid_response: {
      title: `An answer from ${host} could not be accepted.`,
      hint: `For your safety nothing was used. ${SUPPORT}`,
    },
    unreachable: {
      title: `Could not reach ${host}.`,
      hint: 'Check your connection. The service may be down or may not allow this app (CORS).',
    },
    timeout: { title: `No answer from ${host} in time.`, hint: 'The service may be busy.' },
    session_expired: {
      title: 'Your session has expired.',
      hint: 'Sign in again to continue where you were.',
      action: 'Sign in again',
    },
    insufficient_scope: { title: 'Your sign-in does not include the permission this page needs.' },
    scope_not_allowed: {
      title: 'The API asked for a permission this app may not request.',
      hint: 'Nothing was asked of you or the identity service. Contact support if it keeps happening.',
    },
    interaction_required: { title: 'This API needs your consent at the identity service.' },
    insufficient_user_authentication: { title: 'This needs a more recent or stronger sign-in.' },
    step_up_failed: {
      title: 'The identity service did not grant what was asked for.',
      hint: 'Nothing was used. You can ask again, or contact support if it keeps failing.',
      action: 'Sign in',
    },
    // A step-up answered by another account than the session's: refused, the session kept as it was.
    account_changed: {
      title: 'The identity service signed you in as someone else.',
      hint: 'Nothing of that sign-in was used, and your session here is unchanged. Ask again with the account you are signed in with here.',
      action: 'Sign in',
    },
    param_not_allowed: {
      title: 'This sign-in asked for something this app may not send.',
      hint: 'Nothing was sent. Sign in without it, or contact support if it keeps happening.',
      action: 'Sign in',
    },
    discovery_failed: {
      title: `Could not read the sign-in settings of ${host}.`,
      hint: `Nothing was sent. ${SUPPORT}`,
    },
    http_error: { title: `The server answered with an error${status ? ` (HTTP ${status})` : ''}.` },
    idle_timeout: {
      title: `You were signed out after ${idleMs ? duration(idleMs) : 'some time'} without activity.`,
      hint: 'Nothing of your session is left in this browser.',
      action: 'Sign in',
    },
  };
  return messages[code] ?? { title: 'The request could not be completed.', hint: SUPPORT };
}
