// Sign-out at the identity service: revocation of what the tab held (RFC 7009) and the end of the
// provider's session (RP-Initiated Logout 1.0). Loaded when the person signs out, not with the page.
import * as oauth from 'oauth4webapi';
import { requestOptions } from './http';
import type { BrowserPort } from '../browser/port';
import { MAX_PROTOCOL_BYTES, type Server, type TokenSet } from './steps';
import type { AppStorage } from '../browser/storage';

/** Revokes a token (RFC 7009 §2.1) with its type hint; best effort, so a short timeout. */
export async function revoke(server: Server, token: string, hint: 'refresh_token' | 'access_token'): Promise<void> {
  const { as, client } = server;
  // keepalive: the request outlives a sign-out that navigates away to end the provider's session.
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

/**
 * Ends the provider's session when it has an end-session endpoint; its `state` is kept to match the
 * return once. The navigation replaces the page's history entry: Back from the app's signed-out page
 * never lands on the signed-in page it left, and a provider that answers at once leaves no entry of its own.
 */
export function endSession(
  server: Server,
  browser: BrowserPort,
  idToken: string | undefined,
  storage: Pick<AppStorage, 'saveSignOut'>,
  withHint = false,
): void {
  const end = endSessionRequest(server, idToken, withHint);
  if (!end) return;
  storage.saveSignOut(end.state);
  browser.go(end.url, true);
}
