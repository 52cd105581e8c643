// createAuth: one auth instance, wired from parts that each do one job (callback, renewal, fetch,
// session transitions), over a browser port so tests pass fakes instead of stubbing globals.
import { toAuthErrorOrShow } from './errors';
import { createAuthFetch } from './fetch';
import { checkShape, completeSignIn, pendingFor, takeCallbackResponse, type CallbackResponse } from './callback';
import { browserPort, type BrowserPort } from './port';
import { authorizationRequest, endSessionUrl, refreshTokens, revoke, type Server } from './protocol';
import { createRenewal } from './renewal';
import { createDPoP } from './dpop';
import { createResource, type Resource, type ResourceOptions, type ResourceUrl } from './resource.svelte';
import { createSession, type ReactiveStore, type SessionState } from './session';
import { clearPending, savePending } from './transaction';

export interface AuthOptions {
  /**
   * The identity service, in RFC 8414 metadata names (a discovery document fits): `issuer` is checked
   * against `iss` (RFC 9207, OIDC Core §3.1.3.7); the end-session (RP-Initiated Logout 1.0) and
   * revocation (RFC 7009) endpoints are optional and make sign-out end the session and revoke there too.
   */
  server: {
    issuer: string;
    authorization_endpoint: string;
    token_endpoint: string;
    userinfo_endpoint: string;
    end_session_endpoint?: string;
    revocation_endpoint?: string;
  };
  /** The public client's id; there is no client secret. */
  clientId: string;
  redirectUri: string;
  /** Default `openid`. */
  scope?: string;
  /** Refuse authorization responses without `iss` (RFC 9207 §2.4). */
  requireIss?: boolean;
  /** Further origins that may receive the access token; the userinfo endpoint's origin always may. */
  apiOrigins?: string[];
  /** Per-request timeout, default 15000 ms. */
  timeoutMs?: number;
  /** Bind tokens to a key of this page (RFC 9449). */
  dpop?: boolean;
  /** The browser; default the real one. */
  browser?: BrowserPort;
}

export interface Auth {
  /** `{ status, user, expiresAt, error }`, as a store and as `current`. It never carries a token. */
  readonly session: ReactiveStore<SessionState>;
  /** Takes the callback from the URL (or the one given), or restores a session, or settles as signed out. */
  start(callback?: CallbackResponse): Promise<void>;
  /** Sends the person to the identity service; afterwards the app shows `returnTo` (default /profile). */
  signIn(options?: { returnTo?: string }): Promise<void>;
  /** Forgets the tokens here and in every other tab of the app, and shows the start page. */
  signOut(): void;
  /** `fetch` with the access token, for allowed origins only. */
  readonly fetch: typeof fetch;
  /** A store of `url` loaded with the token, following a function URL. */
  resource<T = unknown>(url: ResourceUrl, options?: ResourceOptions<T>): Resource<T>;
  /** Removes every listener, timer and channel this instance added. */
  destroy(): void;
}

/**
 * Non-secret: "1" when this browser had a session (a reason to try prompt=none), "out" when the person
 * signed out (the next interactive sign-in lets them choose an account: prompt=login).
 */
const HINT = 'auth:hint';
/** When the last silent restore started; stops a restore loop (per tab). */
const RESTORE_AT = 'auth:restore-at';
const RESTORE_GUARD_MS = 60_000;
/** Answers of a prompt=none restore that mean "not without the person": signed out, quietly. */
const QUIET = ['cancelled', 'login_required', 'authorization_failed'];

/** An app route: one leading slash, nothing that could leave the origin. */
export function safeRoute(route: unknown): string | undefined {
  if (typeof route !== 'string' || route.length > 512 || !/^\/(?![/\\])/.test(route)) return undefined;
  const url = new URL(route, 'https://app.invalid');
  const normalized = url.pathname + url.search;
  // Dot segments can normalise '/..//host' into '//host': check the result too.
  return url.origin === 'https://app.invalid' && !/^\/[/\\]/.test(normalized) ? normalized : undefined;
}

export function createAuth(options: AuthOptions): Auth {
  const browser = options.browser ?? browserPort();
  const local = browser.session;
  const shared = browser.local;
  const client = { client_id: options.clientId };
  const server: Server = {
    // Makes validateAuthResponse refuse a response without `iss` (RFC 9207 §2.4).
    as: { ...options.server, authorization_response_iss_parameter_supported: options.requireIss },
    client,
    redirectUri: options.redirectUri,
    scope: options.scope ?? 'openid',
    timeoutMs: options.timeoutMs ?? 15_000,
  };
  const dpop = options.dpop ? createDPoP(client) : undefined;
  const state = createSession();
  const currentRoute = () => safeRoute(new URL(browser.url()).hash.slice(1)) ?? '/';
  const renewal = createRenewal(browser, {
    refresh: (current, signal) => refreshTokens(server, current, browser.now(), signal),
    renewed: (next) => state.renewed(next.expiresAt),
    expired: (err) => state.expired(currentRoute(), err),
  });
  const allowed = new Set([new URL(options.server.userinfo_endpoint).origin, ...(options.apiOrigins ?? [])]);
  const authFetch = createAuthFetch({ server, renewal, allowed, base: browser.url });

  async function redirect(returnTo: string, prompt?: 'none' | 'login') {
    state.redirecting();
    try {
      const { url, pending } = await authorizationRequest(server, { returnTo, prompt, now: browser.now() });
      savePending(local, pending);
      // A silent attempt replaces this history entry: Back never lands on it again.
      browser.go(url, prompt === 'none');
    } catch (err) {
      state.failed(
        toAuthErrorOrShow(err, (bug) => state.failed(bug, returnTo)),
        returnTo,
      );
    }
  }

  function restore(returnTo: string) {
    local.setItem(RESTORE_AT, String(browser.now()));
    return redirect(returnTo, 'none');
  }

  /** A reload may always restore; other loads (Back, stale callbacks) at most once a minute. */
  function mayRestore() {
    const recent = browser.now() - Number(local.getItem(RESTORE_AT)) < RESTORE_GUARD_MS;
    return shared.getItem(HINT) === '1' && (browser.reloaded() || !recent);
  }

  async function handleCallback(callback: CallbackResponse) {
    const pending = pendingFor(callback, browser);
    const returnTo = pending?.returnTo ?? '/profile';
    const signal = renewal.signal();
    try {
      checkShape(callback);
      if (!pending) {
        // Reload, Back, another tab or a forged link: never a token request.
        if (mayRestore()) return await restore('/');
        state.notice('unknown_transaction');
        return browser.navigate('/');
      }
      const { tokens, user } = await completeSignIn(server, callback, pending, browser.now(), signal);
      if (signal.aborted) return;
      renewal.adopt(tokens);
      shared.setItem(HINT, '1');
      state.signedIn(user, tokens.expiresAt);
      browser.navigate(returnTo);
    } catch (e) {
      // Signed out meanwhile: the sign-out decides what shows.
      if (signal.aborted) return;
      const err = toAuthErrorOrShow(e, (bug) => state.failed(bug, returnTo));
      if (!pending?.silent || !QUIET.includes(err.code)) return state.failed(err, returnTo);
      shared.removeItem(HINT);
      state.signedOut();
      browser.navigate(returnTo);
    }
  }

  function signOut(here: boolean) {
    const tokens = renewal.drop();
    clearPending(local);
    local.removeItem(RESTORE_AT);
    shared.setItem(HINT, 'out');
    state.signedOut();
    browser.navigate('/');
    if (!here) return;
    browser.channel?.postMessage({ type: 'signed-out' });
    if (tokens?.refreshToken && options.server.revocation_endpoint) revoke(server, tokens.refreshToken).catch(() => {});
    const end = endSessionUrl(server, tokens);
    if (end) browser.go(end);
  }

  const onMessage = (event: MessageEvent) => event.data?.type === 'signed-out' && signOut(false);
  const checkDue = () => void renewal.checkDue();
  const removers = [
    browser.listen('visibilitychange', checkDue),
    browser.listen('online', checkDue),
    browser.listen('pageshow', (event) => {
      // Restored from the back/forward cache after another tab signed out: show nothing of the user.
      if ((event as PageTransitionEvent).persisted && renewal.current() && shared.getItem(HINT) !== '1') signOut(false);
      else checkDue();
    }),
  ];
  browser.channel?.addEventListener('message', onMessage);

  return {
    session: state.session,
    async start(callback = takeCallbackResponse(browser)) {
      // Awaited only when there is a key to wait for: without DPoP the code exchange starts at once.
      if (dpop) server.dpop = await dpop;
      // A response with only `state` is the provider's sign-out coming back, never a sign-in: whatever
      // it carries, forged or stale, the page starts as any other load (signed out after our sign-out).
      if (callback && [...callback.params.keys()].join() !== 'state') return handleCallback(callback);
      if (mayRestore()) return restore(currentRoute());
      state.signedOut();
    },
    signIn: ({ returnTo } = {}) =>
      redirect(safeRoute(returnTo) ?? '/profile', shared.getItem(HINT) === 'out' ? 'login' : undefined),
    signOut: () => signOut(true),
    fetch: authFetch,
    resource: (url, resourceOptions) => createResource(state.session, authFetch, url, resourceOptions),
    destroy() {
      renewal.drop();
      for (const remove of removers) remove();
      browser.channel?.removeEventListener('message', onMessage);
      browser.channel?.close();
    },
  };
}
