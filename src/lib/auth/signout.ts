// Sign-out at the identity service: revocation of what the tab held (RFC 7009) and the end of the
// provider's session (RP-Initiated Logout 1.0). Loaded when the person signs out, not with the page.
import * as oauth from 'oauth4webapi';
import { requestOptions } from './http';
import type { BrowserPort } from './port';
import { MAX_PROTOCOL_BYTES, type Server, type TokenSet } from './protocol';
import type { AppStorage } from './storage';

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
 * The provider's end-session request (RP-Initiated Logout 1.0 §2) as form fields, for a POST: the ID
 * token never sits in a URL or in history. Undefined without an endpoint.
 */
export function endSessionRequest(
  server: Server,
  idToken: string | undefined,
): { url: string; fields: Record<string, string>; state: string } | undefined {
  const url = server.as.end_session_endpoint;
  if (!url) return undefined;
  const state = oauth.generateRandomState();
  const fields = {
    ...(idToken && { id_token_hint: idToken }),
    client_id: server.client.client_id,
    post_logout_redirect_uri: server.redirectUri,
    state,
  };
  return { url, fields, state };
}

/** Revokes the access and refresh tokens, best effort and never waited for: the sign-out has already happened here (RFC 7009 §2.1). */
export function revokeAll(server: Server, tokens: TokenSet): void {
  if (!server.as.revocation_endpoint) return;
  const sent = [revoke(server, tokens.accessToken, 'access_token')];
  if (tokens.refreshToken) sent.push(revoke(server, tokens.refreshToken, 'refresh_token'));
  for (const request of sent) request.catch(() => {});
}

/** Ends the provider's session with a form POST when it has an end-session endpoint; its `state` is kept to match the return once. */
export function endSession(
  server: Server,
  browser: BrowserPort,
  idToken: string | undefined,
  storage: Pick<AppStorage, 'saveSignOut'>,
): void {
  const end = endSessionRequest(server, idToken);
  if (!end) return;
  storage.saveSignOut(end.state);
  browser.post(end.url, end.fields);
}
