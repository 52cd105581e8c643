// What a refresh-token grant's outcome means for the session, decided in one place for this tab's grants
// and those of the tab that renews for it (tabs.ts): whether its tokens renew the session's, and what
// its failure means.
import { toAuthError } from '../protocol/failures';
import type { TokenSet } from '../protocol/steps';

/** What a failed grant means for the session. */
export type Failure =
  /** The network, a timeout or an abort: nothing is lost, a later grant may work. */
  | 'transient'
  /** Only the person can give what was asked, at the identity service (RFC 6749 §5.2 `invalid_scope`). */
  | 'interaction'
  /** The refresh token is refused (RFC 6749 §5.2 `invalid_grant`): the session cannot go on, in any tab. */
  | 'refused'
  /** Any other failure of this one grant. */
  | 'failed';

/** Whether `next` renews `current`: other tokens, of the same person, expiring no sooner. */
export const isRenewal = (current: TokenSet, next: TokenSet): boolean =>
  next.accessToken !== current.accessToken && next.expiresAt >= current.expiresAt && next.subject === current.subject;

/** What a failed grant means: the one place this is decided, for this tab's grants and those of the lock holder. */
export function classify(err: unknown): Failure {
  const { code, oauthError } = toAuthError(err);
  if (code === 'timeout' || code === 'unreachable' || code === 'aborted') return 'transient';
  if (code === 'interaction_required' || oauthError === 'invalid_scope') return 'interaction';
  return code === 'invalid_grant' ? 'refused' : 'failed';
}
