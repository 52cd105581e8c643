// The authorization request (RFC 6749 §4.1.1) and the pending sign-in it answers to. Loaded after the
// first paint with the module's later part: a redirect waits for that part (the tabs) before it leaves,
// so building the request there waits for nothing more, and keeps it off the sign-in path.
import * as oauth from 'oauth4webapi';
import type { PendingSignIn, Server } from './protocol';
import type { StepUp } from './scope';

/**
 * Builds the authorization request (RFC 6749 §4.1.1, RFC 7636 §4.3, RFC 8707 §2.1) and the pending sign-in
 * it answers to; a step-up's scope, `acr_values` and `max_age` (OIDC Core §3.1.2.1) replace the defaults.
 */
export async function authorizationRequest(
  server: Server,
  { returnTo, prompt, now, stepUp }: { returnTo: string; prompt?: 'none' | 'login'; now: number; stepUp?: StepUp },
): Promise<{ url: string; pending: PendingSignIn }> {
  const codeVerifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const scope = stepUp?.scope ?? server.scope;
  const nonce = scope.split(' ').includes('openid') ? oauth.generateRandomNonce() : undefined;
  const params = new URLSearchParams({
    client_id: server.client.client_id,
    response_type: 'code',
    scope,
    redirect_uri: server.redirectUri,
    code_challenge: await oauth.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    state,
  });
  if (nonce) params.set('nonce', nonce);
  if (prompt) params.set('prompt', prompt);
  if (stepUp?.acr_values) params.set('acr_values', stepUp.acr_values);
  if (stepUp?.max_age !== undefined) params.set('max_age', `${stepUp.max_age}`);
  for (const resource of server.resources) params.append('resource', resource);
  return {
    url: `${server.as.authorization_endpoint}?${params}`,
    pending: { state, codeVerifier, nonce, returnTo, silent: prompt === 'none', createdAt: now, stepUp },
  };
}
