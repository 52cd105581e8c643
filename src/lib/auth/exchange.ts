// Refresh-token grants other than the session's renewal (RFC 6749 §6, e.g. a token for one API, RFC 8707
// §2.2): in turn with renewals, as each may use and rotate the one refresh token. Lazy code only calls it.
import { AuthError } from './errors';
import type { TokenSet } from './protocol';
import type { Renewal } from './renewal';

/**
 * Runs `run` with the session's tokens once every earlier renewal and grant has settled; a rotated
 * refresh token it returns becomes the session's. A session that ended meanwhile: `aborted`.
 */
export function exchange<T>(
  renewal: Renewal,
  run: (current: TokenSet, signal: AbortSignal) => Promise<{ result: T; refreshToken?: string }>,
): Promise<T> {
  return renewal.serial(async () => {
    const current = renewal.current();
    if (!current) throw new AuthError('unauthenticated');
    const { result, refreshToken } = await run(current, renewal.signal());
    if (renewal.current() !== current) throw new AuthError('aborted');
    // In place: the access token is unchanged, so requests holding this session see no renewal.
    if (refreshToken) current.refreshToken = refreshToken;
    return result;
  });
}
