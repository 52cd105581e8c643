// The authorization-code round trip, end to end: the request and its pending record on the way out;
// on the way back, the response out of the URL first, checked against the pending record and
// exchanged at most once (RFC 6749 §4.1, RFC 7636, RFC 9700 §2.1.2, §4.7).
import { AuthError } from './errors';
import type { BrowserPort } from './port';
import type * as oauth from 'oauth4webapi';
import {
  authorizationRequest,
  exchangeCode,
  fetchUserInfo,
  type Claims,
  type PendingSignIn,
  type Server,
  type StepUp,
  type TokenSet,
} from './protocol';
import { savePending, takePending } from './storage';

/** The authorization response taken from the URL. */
export interface CallbackResponse {
  params: URLSearchParams;
  /**
   * Response parameters came in the fragment. This client only asks for query responses, so a
   * fragment response (implicit-style tokens, a smuggled code) is always refused (RFC 9700 §2.1.2).
   */
  inFragment: boolean;
}

/** What an authorization response (RFC 6749 §4.1.2, RFC 9207, OIDC Session) or a smuggled token may carry. */
const RESPONSE_PARAMS = ['code', 'state', 'iss', 'error', 'error_description', 'error_uri', 'session_state'];
const TOKEN_PARAMS = ['access_token', 'id_token', 'token_type', 'expires_in'];
const isResponse = (params: URLSearchParams) => ['code', 'state', 'error', ...TOKEN_PARAMS].some((name) => params.has(name));

/** A code, state or issuer over this is nothing a real server sends (error text is cut for display instead). */
const MAX_PARAM_CHARS = 8192;

/** Sends the person to the authorization endpoint; the pending record is the only way back in. */
export async function beginSignIn(
  server: Server,
  browser: BrowserPort,
  request: { returnTo: string; prompt?: 'none' | 'login'; stepUp?: StepUp },
): Promise<void> {
  const { url, pending } = await authorizationRequest(server, { ...request, now: browser.now() });
  savePending(browser, pending);
  // A silent attempt replaces this history entry: Back never lands on it again.
  browser.go(url, request.prompt === 'none');
}

/**
 * Reads the authorization response from the page's URL and removes it, without a new history entry.
 * Only the redirect URI's own origin and path can be a callback: any other page of the app is left alone.
 */
export function takeCallbackResponse(
  browser: Pick<BrowserPort, 'url' | 'rewrite'>,
  redirectUri: string,
): CallbackResponse | undefined {
  const url = new URL(browser.url());
  const target = new URL(redirectUri);
  if (url.origin !== target.origin || url.pathname !== target.pathname) return undefined;
  // A fragment that starts with '/' is a path (an app's hash router), never response parameters.
  const hash = url.hash.slice(1);
  const fragment = new URLSearchParams(hash.startsWith('/') ? '' : hash);
  const inFragment = isResponse(fragment);
  if (!inFragment && !isResponse(url.searchParams)) return undefined;
  const params = new URLSearchParams(inFragment ? fragment : url.search);
  // The redirect URI's own query stays; the response's parameters leave history and any later Referer.
  for (const name of [...RESPONSE_PARAMS, ...TOKEN_PARAMS]) url.searchParams.delete(name);
  if (inFragment) url.hash = '';
  browser.rewrite(url.href);
  return { params, inFragment };
}

/** Refuses what no answer to our request looks like: a fragment response, or an oversized value. */
export function checkShape({ params, inFragment }: CallbackResponse): void {
  const oversized = ['code', 'state', 'iss'].some((name) => (params.get(name)?.length ?? 0) > MAX_PARAM_CHARS);
  if (inFragment || oversized) throw new AuthError('invalid_response');
}

/** Consumes the pending sign-in the callback answers; none matching means no token request at all. */
export const pendingFor = ({ params }: CallbackResponse, browser: BrowserPort): PendingSignIn | undefined =>
  takePending(browser, params.get('state'), browser.now());

/** Validates the response, exchanges the code (its answer passed to `check`) and reads the claims with the new access token. */
export async function completeSignIn<C extends Claims>(
  server: Server,
  { params }: CallbackResponse,
  pending: PendingSignIn,
  now: number,
  signal: AbortSignal,
  check?: (response: oauth.TokenEndpointResponse) => void,
): Promise<{ tokens: TokenSet; user: C }> {
  const tokens = await exchangeCode(server, params, pending, now, check);
  return { tokens, user: await fetchUserInfo<C>(server, tokens, signal) };
}
