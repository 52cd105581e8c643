// The authorization-code round trip, end to end: the request and its pending record on the way out;
// on the way back, the response out of the URL first, checked against the pending record and
// exchanged at most once (RFC 6749 §4.1, RFC 7636, RFC 9700 §2.1.2, §4.7); and what a page load does
// before it shows anything: complete a callback, join another tab's session, or restore silently.
import type * as oauth from 'oauth4webapi';
import type { Later } from '../core';
import { createKeys } from '../protocol/dpop';
import { AuthError, toAuthErrorOrShow } from '../protocol/errors';
import type { BrowserPort } from '../browser/port';
import type { SignInHints } from '../protocol/hints';
import {
  exchangeCode,
  fetchUserInfo,
  type Claims,
  type PendingSignIn,
  type Proof,
  type Server,
  type TokenSet,
} from '../protocol/steps';
import type { StepUpOptions } from '../protocol/scope';
import type { Session } from '../svelte/session';
import type { AppStorage } from '../browser/storage';
import type { Relay } from '../tabs/tabs';
import type { Held, Vault } from '../session/tokens';

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
 * `scope`, `acr_values` and `max_age` make a step-up, checked after the callback (an AuthError's fields
 * fit); `login_hint`, `ui_locales`, `prompt` and `extraParams` are checked before anything is sent.
 */
export interface SignInOptions extends StepUpOptions, SignInHints {
  /** The app's own place to come back to: a same-origin path with its query; default the page's. */
  returnTo?: string;
}

export interface StartOptions {
  /** Where a silent restore comes back to; default the page's path and query. */
  returnTo?: string;
}

export interface StartResult {
  /** Set after a completed callback: the `returnTo` of its sign-in or restore. The app navigates there. */
  returnTo?: string;
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
/** A reload may always restore; other loads (Back, stale callbacks) at most once this often. */
const RESTORE_GUARD_MS = 60_000;
/** Answers of a prompt=none restore that mean "not without the person": signed out, quietly. */
const QUIET = ['cancelled', 'login_required', 'authorization_failed'];

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
 * whether or not it answers a sign-in of ours. Only the redirect URI's own origin and path can be a
 * callback: any other page of the app is left alone.
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
  for (const name of [...RESPONSE_PARAMS, ...WITH_RESPONSE]) url.searchParams.delete(name);
  if (inFragment) url.hash = '';
  browser.rewrite(url.href);
  return { params, inFragment };
}

/**
 * The provider's sign-out coming back to `uri` (`postLogoutRedirectUri`): that URL exactly, plus one
 * `state`, which leaves the URL. Undefined anywhere else.
 */
export function takeSignOutReturn(browser: Pick<BrowserPort, 'url' | 'rewrite'>, uri?: string): CallbackResponse | undefined {
  const url = new URL(browser.url());
  const state = url.searchParams.getAll('state');
  url.searchParams.delete('state');
  const page = (href: string) => href.split('#')[0];
  if (!uri || state.length != 1 || page(url.href) != page(new URL(uri).href)) return undefined;
  browser.rewrite(url.href);
  return { params: new URLSearchParams({ state: state[0] }), inFragment: false };
}

/** Refuses what no answer to our request looks like: a fragment response, or an oversized value. */
export function checkShape({ params, inFragment }: CallbackResponse): void {
  const oversized = ['code', 'state', 'iss'].some((name) => (params.get(name)?.length ?? 0) > MAX_PARAM_CHARS);
  if (inFragment || oversized) throw new AuthError('invalid_response');
}

/** Validates the response, exchanges the code (its answer passed to `check`) and reads the claims with the new access token. */
export async function completeSignIn<C extends Claims>(
  server: Server,
  dpop: Proof,
  { params }: CallbackResponse,
  pending: PendingSignIn,
  now: number,
  signal: AbortSignal,
  check?: (response: oauth.TokenEndpointResponse) => void,
): Promise<{ tokens: TokenSet; user: C }> {
  const tokens = await exchangeCode(server, dpop, params, pending, now, check);
  return { tokens, user: await fetchUserInfo<C>(server, dpop, tokens, signal) };
}

export interface SignInParts<C extends Claims> {
  server: Server;
  browser(): BrowserPort;
  storage(): AppStorage;
  state: Session<C>;
  vault: Vault;
  /** Makes `held` this tab's session (core.ts). */
  signedIn(held: Held, user: C): void;
  /** The other tabs of the app, loaded after the first paint; none for a lone instance. */
  tabs(): Promise<Relay | undefined>;
  /** The request (authorize.ts), the step-up's and completeSignIn with its checks (stepup.ts), loaded after the first paint. */
  later(): Promise<Pick<Later, 'beginSignIn' | 'stepUpRequest' | 'completeStepUp'>>;
  /** Bind tokens to a key of this page (RFC 9449). */
  dpop: boolean;
}

/** What a page load and a sign-in do: start() and signIn() of an auth instance. */
export function createSignIn<C extends Claims>(parts: SignInParts<C>) {
  const { server, browser, storage, state, vault, tabs } = parts;
  const here = () => {
    const { pathname, search } = new URL(browser().url());
    return pathname + search;
  };
  /** A failure keeps the person known where this browser had a session they did not end (a step-up, a restore). */
  const fail = (err: AuthError, returnTo?: string) => state.failed(err, returnTo, storage().readHint() === 'had-session');

  async function redirect(returnTo: string, prompt?: 'none' | 'login', ask: StepUpOptions & SignInHints = {}) {
    state.redirecting();
    try {
      // The page's listeners are on before it leaves: Back may bring it back from the back/forward cache.
      const [, { stepUpRequest, beginSignIn }] = await Promise.all([tabs(), parts.later()]);
      // What a step-up added to the session, and for which API, stays asked for by this instance's later sign-ins.
      const scope = vault.scope();
      const apis = vault.held()?.added;
      const stepUp =
        stepUpRequest(scope, ask, server.resources, apis) ?? (scope === server.scope && !apis ? undefined : { scope, apis });
      await beginSignIn(server, browser(), storage(), { returnTo, prompt, stepUp, hints: ask });
    } catch (err) {
      fail(
        toAuthErrorOrShow(err, (bug) => fail(bug, returnTo)),
        returnTo,
      );
    }
  }

  function restore(returnTo: string) {
    storage().noteRestore(browser().now());
    return redirect(returnTo, 'none');
  }

  /** A reload may always restore; other loads (Back, stale callbacks) at most once a minute. */
  function mayRestore() {
    const b = browser();
    const s = storage();
    return s.readHint() === 'had-session' && (b.reloaded() || b.now() - s.lastRestore() >= RESTORE_GUARD_MS);
  }

  async function complete(callback: CallbackResponse): Promise<StartResult> {
    const b = browser();
    const pending = storage().takePending(callback.params.get('state'), b.now());
    const signal = vault.signal();
    try {
      checkShape(callback);
      if (!pending) {
        // Reload, Back, another tab or a forged link: never a token request.
        if (mayRestore()) await restore(here());
        else state.notice('unknown_transaction');
        return {};
      }
      const { stepUp } = pending;
      const finish = stepUp ? (await parts.later()).completeStepUp : completeSignIn;
      const { tokens, user } = await finish<C>(server, vault.dpop(), callback, pending, b.now(), signal);
      // Signed out meanwhile: the sign-out decides what shows.
      if (signal.aborted) return {};
      storage().writeHint('had-session');
      // A step-up's added scope stays the session's: the later grants of the API it was for ask for it.
      parts.signedIn({ tokens, scope: stepUp?.scope ?? server.scope, added: stepUp?.apis, keys: vault.keys() }, user);
      // After the claims show: the waiting tabs sign in with this session.
      void tabs().then((relay) => relay?.signedIn());
      return { returnTo: pending.returnTo };
    } catch (e) {
      if (signal.aborted) return {};
      const err = toAuthErrorOrShow(e, (bug) => fail(bug, pending?.returnTo));
      if (!pending?.silent || !QUIET.includes(err.code)) {
        fail(err, pending?.returnTo);
        return {};
      }
      // The provider no longer has the person's session: this browser's ends too.
      storage().forgetHint();
      state.signedOut('provider');
      return { returnTo: pending.returnTo };
    }
  }

  /** The provider's sign-out coming back: only the `state` this tab sent confirms it (once). */
  function signOutReturned(sent: string | null) {
    if (storage().takeSignOut(sent)) state.signedOut('provider');
    else state.notice('unknown_signout');
  }

  return {
    async start({ returnTo }: StartOptions = {}): Promise<StartResult> {
      const b = browser();
      // The key is made while the URL is read; only a DPoP client waits for it.
      const key = parts.dpop ? createKeys() : undefined;
      const callback = takeCallbackResponse(b, server.redirectUri) ?? takeSignOutReturn(b, server.postLogoutRedirectUri);
      if (key) vault.bind(await key);
      // A response with only `state` is the provider's sign-out coming back, never a sign-in.
      if (callback && [...callback.params.keys()].join() === 'state') signOutReturned(callback.params.get('state'));
      else if (callback) return complete(callback).finally(() => void tabs());
      // Another tab's session, when one answers: no round trip to the identity service.
      else if (storage().readHint() === 'had-session' && (await (await tabs())?.ask())) return {};
      else if (mayRestore()) await restore(safeReturnTo(returnTo) ?? here());
      else state.signedOut();
      void tabs();
      return {};
    },
    signIn: ({ returnTo, ...ask }: SignInOptions = {}) =>
      redirect(safeReturnTo(returnTo) ?? here(), storage().readHint() === 'signed-out' ? 'login' : undefined, ask),
  };
}
