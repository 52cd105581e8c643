// Taking the authorization response: out of the URL before anything else, then checked against the
// pending sign-in and exchanged at most once (RFC 6749 §4.1.2, RFC 9700 §2.1.2, §4.7).
import { AuthError } from './errors';
import { exchangeCode, fetchUserInfo, type Server, type TokenSet, type UserProfile } from './protocol';
import type { BrowserPort } from './port';
import { takePending, type PendingSignIn } from './transaction';

/** The authorization response taken from the URL. */
export interface CallbackResponse {
  params: URLSearchParams;
  /**
   * Response parameters came in the fragment. This client only asks for query responses, so a
   * fragment response (implicit-style tokens, a smuggled code) is always refused (RFC 9700 §2.1.2).
   */
  inFragment: boolean;
}

const RESPONSE_PARAMS = ['code', 'state', 'error', 'access_token', 'id_token'];
const isResponse = (params: URLSearchParams) => RESPONSE_PARAMS.some((name) => params.has(name));

/** Reads the authorization response from the page's URL and removes it, without a new history entry. */
export function takeCallbackResponse(browser: Pick<BrowserPort, 'url' | 'rewrite'>): CallbackResponse | undefined {
  const url = new URL(browser.url());
  // App routes live in '#/…'; any other fragment with response parameters is a response too.
  const fragment = new URLSearchParams(url.hash.startsWith('#/') ? '' : url.hash.slice(1));
  const inFragment = isResponse(fragment);
  if (!inFragment && !isResponse(url.searchParams)) return undefined;
  const params = inFragment ? fragment : new URLSearchParams(url.search);
  url.search = '';
  if (inFragment || !url.hash.startsWith('#/')) url.hash = '';
  browser.rewrite(url.href);
  return { params, inFragment };
}

/** Consumes the pending sign-in the callback answers; none matching means no token request at all. */
export function pendingFor(
  { params }: CallbackResponse,
  browser: Pick<BrowserPort, 'session' | 'now'>,
): PendingSignIn | undefined {
  return takePending(browser.session, params.get('state'), browser.now());
}

/** A code, state or issuer over this is nothing a real server sends (error text is cut for display instead). */
const MAX_PARAM_CHARS = 8192;

/** Refuses what no answer to our request looks like: a fragment response, or an oversized value. */
export function checkShape({ params, inFragment }: CallbackResponse): void {
  const oversized = ['code', 'state', 'iss'].some((name) => (params.get(name)?.length ?? 0) > MAX_PARAM_CHARS);
  if (inFragment || oversized) throw new AuthError('invalid_response');
}

/** Validates the response, exchanges the code and reads the profile with the new access token. */
export async function completeSignIn(
  server: Server,
  { params }: CallbackResponse,
  pending: PendingSignIn,
  now: number,
  signal: AbortSignal,
): Promise<{ tokens: TokenSet; user: UserProfile }> {
  const tokens = await exchangeCode(server, params, pending, now);
  return { tokens, user: await fetchUserInfo(server, tokens, signal) };
}
