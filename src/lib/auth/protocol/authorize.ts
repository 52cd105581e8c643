// The way out of a sign-in: the authorization request (RFC 6749 §4.1.1, RFC 7636 §4.3, RFC 8707 §2.1,
// OIDC Core §3.1.2.1) with the app's hints (hints.ts), and the pending record that is the only way back
// in. Built by the session engine; the page keeps the record and navigates (page/signin.ts).
import * as oauth from 'oauth4webapi';
import { hintParams, type SignInHints } from './hints';
import type { PendingSignIn, Server } from './steps';
import type { StepUp } from './scope';

/** What a sign-in asks: `prompt` is the module's own (a silent restore, an account choice after sign-out); `hints.prompt` wins. */
export interface SignInRequest {
  returnTo: string;
  prompt?: 'none' | 'login';
  stepUp?: StepUp;
  hints?: SignInHints;
}

/**
 * Builds the authorization request and the pending sign-in it answers to; a step-up's scope,
 * `acr_values` and `max_age` replace the defaults, and the hints are checked (AuthError
 * `param_not_allowed`) before anything is made.
 */
export async function authorizationRequest(
  server: Server,
  { returnTo, prompt, now, stepUp, hints = {} }: SignInRequest & { now: number },
): Promise<{ url: string; pending: PendingSignIn }> {
  const added = hintParams(hints, server.extraParams, server.as);
  const codeVerifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const scope = stepUp?.scope ?? server.scope;
  const nonce = scope.split(' ').includes('openid') ? oauth.generateRandomNonce() : undefined;
  const params = new URLSearchParams({
    ...added,
    client_id: server.client.client_id,
    response_type: 'code',
    scope,
    redirect_uri: server.redirectUri,
    code_challenge: await oauth.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    state,
  });
  if (nonce) params.set('nonce', nonce);
  if (prompt && !added.prompt) params.set('prompt', prompt);
  if (stepUp?.acr_values) params.set('acr_values', stepUp.acr_values);
  if (stepUp?.max_age !== undefined) params.set('max_age', `${stepUp.max_age}`);
  for (const resource of server.resources) params.append('resource', resource);
  return {
    url: `${server.as.authorization_endpoint}?${params}`,
    pending: { state, codeVerifier, nonce, returnTo, silent: params.get('prompt') === 'none', createdAt: now, stepUp },
  };
}
