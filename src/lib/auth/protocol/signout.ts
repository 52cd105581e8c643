// Sign-out at the identity service, made by the session engine: revocation of what the session held
// (RFC 7009), and the request that ends the provider's session (RP-Initiated Logout 1.0), which the
// page that signed out navigates to.
import * as oauth from 'oauth4webapi';
import { requestOptions } from './http';
import { MAX_PROTOCOL_BYTES, type Server, type TokenSet } from './steps';

/** Revokes a token (RFC 7009 §2.1) with its type hint; best effort, so a short timeout. */
export async function revoke(server: Server, token: string, hint: 'refresh_token' | 'access_token'): Promise<void> {
  const { as, client } = server;
  // keepalive: in a page's engine (in-page.ts), the request outlives a sign-out that navigates away.
  const request = requestOptions(server.network, as.revocation_endpoint!, {
    timeoutMs: Math.min(server.timeoutMs, 5000),
    maxBytes: MAX_PROTOCOL_BYTES,
    keepalive: true,
  });
  const response = await oauth.revocationRequest(as, client, oauth.None(), token, {
    ...request,
    additionalParameters: { token_type_hint: hint },
  });
  await oauth.processRevocationResponse(response);
}

/**
 * The provider's end-session request (RP-Initiated Logout 1.0 §2) as the URL of a GET, the one method
 * every provider takes: `client_id` and `post_logout_redirect_uri` (§3) with a fresh `state`, and the
 * ID token as `id_token_hint` only when `withHint` asks for it (for providers that return only with the
 * hint): a URL sits in history and in the provider's logs. Undefined without an endpoint.
 */
export function endSessionRequest(
  server: Server,
  idToken: string | undefined,
  withHint = false,
): { url: string; state: string } | undefined {
  const endpoint = server.as.end_session_endpoint;
  if (!endpoint) return undefined;
  const state = oauth.generateRandomState();
  // The endpoint may carry a query of its own (?ui=1): ours is added to it.
  const url = new URL(endpoint);
  if (withHint && idToken) url.searchParams.set('id_token_hint', idToken);
  url.searchParams.set('client_id', server.client.client_id);
  url.searchParams.set('post_logout_redirect_uri', server.postLogoutRedirectUri ?? server.redirectUri);
  url.searchParams.set('state', state);
  return { url: url.href, state };
}

/** Revokes the access and refresh tokens, best effort and never waited for: the sign-out has already happened here (RFC 7009 §2.1). */
export function revokeAll(server: Server, tokens: TokenSet): void {
  if (!server.as.revocation_endpoint) return;
  const sent = [revoke(server, tokens.accessToken, 'access_token')];
  if (tokens.refreshToken) sent.push(revoke(server, tokens.refreshToken, 'refresh_token'));
  for (const request of sent) request.catch(() => {});
}
