// The authorization response at the redirect URI, stateless: taken out of the page's URL (and out of
// history) whether or not it answers a sign-in of ours, its shape checked, and the code exchanged with
// the claims read (steps.ts completeSignIn); the provider's sign-out coming back; and the app's own
// place to return to, checked. On the sign-in path: nothing here loads oauth4webapi.
import type { Browser } from '../browser/browser';
import { AuthError, bounded } from './errors';

/** The authorization response taken from the URL. */
export interface CallbackResponse {
  params: URLSearchParams;
  /**
   * Response parameters came in the fragment. This client only asks for query responses, so a
   * fragment response (implicit-style tokens, a smuggled code) is always refused (RFC 9700 §2.1.2).
   */
  inFragment: boolean;
}

/**
 * Every name an authorization response, or a token answer put in a URL, may carry: at the redirect URI
 * they are this module's, never the app's, and any one of them makes the URL a callback that leaves the
 * address bar and history, ours or not. RFC 6749 §4.1.2 and §4.2.2.1: `code`, `state` and the `error`
 * trio; RFC 9207: `iss`; OIDC Session Management: `session_state`; RFC 6749 §4.2.2 and §5.1 and OIDC
 * implicit or hybrid answers: the tokens with `token_type` and `expires_in`, which no app link would use
 * for itself; JARM: `response`, the whole answer as a JWT (never ours: this client asks for none);
 * `token`: what non-standard servers name theirs. An app link with a `token` of its own can be taken
 * for a callback here, so it belongs on another path: a token in the address bar is what must not stay.
 */
const RESPONSE_PARAMS = [
  'code',
  'state',
  'error',
  'error_description',
  'error_uri',
  'iss',
  'session_state',
  'access_token',
  'id_token',
  'refresh_token',
  'token_type',
  'expires_in',
  'response',
  'token',
];
/**
 * `scope` (RFC 6749 §4.2.2, §5.1; some servers add it to a code response) goes with a response, but is
 * none by itself: it holds nothing secret, and it is a word an app's own query may well use.
 */
const WITH_RESPONSE = ['scope'];
const isResponse = (params: URLSearchParams) => RESPONSE_PARAMS.some((name) => params.has(name));

/** A code, state or issuer over this is nothing a real server sends (error text is cut for display instead). */
const MAX_PARAM_CHARS = 8192;
/** A same-origin path with its query: one leading slash, nothing that could leave the origin. */
export function safeReturnTo(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length > 512 || !/^\/(?![/\\])/.test(value)) return undefined;
  const url = new URL(value, 'https://app.invalid');
  const normalized = url.pathname + url.search;
  // Dot segments can normalise '/..//host' into '//host': check the result too.
  return url.origin === 'https://app.invalid' && !/^\/[/\\]/.test(normalized) ? normalized : undefined;
}

/**
 * Reads the authorization response from the page's URL and removes it, without a new history entry,
 * whether or not it answers a sign-in of ours, unless `another(state)` says another instance on the
 * page waits for it: it is that instance's to take. Only the redirect URI's own origin and path can be
 * a callback: any other page of the app is left alone.
 */
export function takeCallbackResponse(
  browser: Pick<Browser, 'url' | 'rewrite'>,
  redirectUri: string,
  another: (state: string | null) => boolean = () => false,
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
  if (another(params.get('state'))) return undefined;
  // The redirect URI's own query stays; the response's parameters leave history and any later Referer.
  for (const name of [...RESPONSE_PARAMS, ...WITH_RESPONSE]) url.searchParams.delete(name);
  if (inFragment) url.hash = '';
  browser.rewrite(url.href);
  return { params, inFragment };
}

/**
 * The provider's sign-out coming back to `uri` (`postLogoutRedirectUri`): that URL exactly, plus one
 * `state`, which leaves the URL, unless `another(state)` says another instance on the page signed out
 * with it. Undefined anywhere else.
 */
export function takeSignOutReturn(
  browser: Pick<Browser, 'url' | 'rewrite'>,
  uri?: string,
  another: (state: string) => boolean = () => false,
): CallbackResponse | undefined {
  const url = new URL(browser.url());
  const state = url.searchParams.getAll('state');
  url.searchParams.delete('state');
  const page = (href: string) => href.split('#')[0];
  if (!uri || state.length != 1 || page(url.href) != page(new URL(uri).href) || another(state[0])) return undefined;
  browser.rewrite(url.href);
  return { params: new URLSearchParams({ state: state[0] }), inFragment: false };
}

/** The provider's free text, which only ever shows cut (failures.ts). */
const FREE_TEXT = ['error_description', 'error_uri'];

/** The response as a page hands it to the session engine: its free text cut, so the engine's size check takes it. */
export const forEngine = ({ params }: CallbackResponse): string =>
  new URLSearchParams(
    [...params].map(([name, value]) => [name, FREE_TEXT.includes(name) ? bounded(value, 2048) : value]),
  ).toString();

/** Refuses what no answer to our request looks like: a fragment response, or an oversized value. */
export function checkShape({ params, inFragment }: CallbackResponse): void {
  const oversized = ['code', 'state', 'iss'].some((name) => (params.get(name)?.length ?? 0) > MAX_PARAM_CHARS);
  if (inFragment || oversized) throw new AuthError('invalid_response');
}
