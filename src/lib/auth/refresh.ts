// The refresh-token grant: renewal (RFC 6749 §6) and tokens for one API (RFC 8707 §2.2). Only the tab
// holding the session's lock makes it (tabs.ts), so it loads with the tabs, after the first paint.
import * as oauth from 'oauth4webapi';
import { options, tokenSet, withNonce, type ResourceParams, type Server, type TokenSet } from './protocol';

/**
 * Renews the tokens with a refresh token (RFC 6749 §6), or gets a token for one API with `resource` and
 * `scope` (RFC 8707 §2.2); the caller must drop `previous.refreshToken`.
 */
export async function refreshTokens(
  server: Server,
  previous: TokenSet,
  now: number,
  signal?: AbortSignal,
  extra?: ResourceParams,
): Promise<TokenSet> {
  const { as, client } = server;
  const response = await withNonce(server, async () =>
    oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, oauth.None(), previous.refreshToken!, {
        ...options(server, as.token_endpoint, signal),
        additionalParameters: extra,
      }),
    ),
  );
  return tokenSet(server, response, now, previous);
}
