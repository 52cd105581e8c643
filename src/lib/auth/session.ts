// The session: the only place tokens live (this closure), the store views read (never a token), and
// the rules that keep a session going: renewal before expiry, silent restore after a reload, sign-out
// across tabs (RFC 10017 §6.3 "browser-based OAuth client", tokens in memory only).
import * as oauth from 'oauth4webapi';
import type { Writable } from 'svelte/store';
import type { AppConfig } from '../../config';
import { AuthError, challengeError, toAuthError, type AuthErrorCode, type AuthErrorDetails } from './errors';
import { boundedFetch } from './http';
import {
  authorizationUrl,
  consumePending,
  exchangeCode,
  fetchUserInfo,
  readUserInfo,
  refreshTokens,
  type TokenSet,
  type UserProfile,
} from './protocol';
import { clearPending } from './transaction';

export type SessionStatus = 'loading' | 'signed-out' | 'redirecting' | 'signed-in' | 'expired' | 'error';

export interface SessionError extends AuthErrorDetails {
  code: AuthErrorCode;
  /** The app route a new attempt should come back to. */
  returnTo: string;
}

export interface SessionState {
  status: SessionStatus;
  user: UserProfile | null;
  /** When the access token expires, epoch milliseconds. */
  expiresAt: number | null;
  error: SessionError | null;
}

/** Body types that can be sent twice, so a request can be replayed once after a renewal. */
export type AuthFetchInit = Omit<RequestInit, 'body' | 'credentials' | 'redirect' | 'referrer' | 'referrerPolicy'> & {
  body?: string | URLSearchParams | ArrayBuffer | Uint8Array | null;
};

export const INITIAL_STATE: SessionState = { status: 'loading', user: null, expiresAt: null, error: null };
const SIGNED_OUT: SessionState = { status: 'signed-out', user: null, expiresAt: null, error: null };

/** "This browser had a session": no token and no personal data, only a reason to try prompt=none. */
const HINT_KEY = 'auth:hint';
/** When the last silent restore started; stops a restore loop (sessionStorage: per tab). */
const RESTORE_KEY = 'auth:restore-at';
const RESTORE_GUARD_MS = 60_000;
const CHANNEL = 'auth';
const MAX_RESOURCE_BYTES = 1024 * 1024;
/** setTimeout fires at once for delays above 2^31-1 ms. */
const MAX_TIMER_MS = 2 ** 31 - 1;
const RETRY_MS = 15_000;
/** However short the token's life, renewals are at least this far apart: no tight loop. */
const MIN_RENEW_DELAY_MS = 2_000;

/** An app route: one leading slash, nothing that could leave the origin. */
export function safeRoute(route: unknown): string | undefined {
  if (typeof route !== 'string' || route.length > 512 || !/^\/(?![/\\])/.test(route)) return undefined;
  const url = new URL(route, 'https://app.invalid');
  const normalized = url.pathname + url.search;
  // Dot segments can normalise '/..//host' into '//host': check the result too.
  return url.origin === 'https://app.invalid' && !/^\/[/\\]/.test(normalized) ? normalized : undefined;
}

const currentRoute = () => safeRoute(location.hash.slice(1)) ?? '/';

/** The authorization response taken from the URL at boot. */
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

/** Reads the authorization response from the URL and removes it, before any other network work. */
export function takeCallbackResponse(): CallbackResponse | undefined {
  const url = new URL(location.href);
  // App routes live in '#/…'; any other fragment with response parameters is a response too.
  const fragment = new URLSearchParams(url.hash.startsWith('#/') ? '' : url.hash.slice(1));
  const inFragment = isResponse(fragment);
  if (!inFragment && !isResponse(url.searchParams)) return undefined;
  const params = inFragment ? fragment : new URLSearchParams(url.search);
  url.search = '';
  if (inFragment || !url.hash.startsWith('#/')) url.hash = '';
  history.replaceState(history.state, '', url.href);
  return { params, inFragment };
}

export interface Auth {
  start(callback?: CallbackResponse): Promise<void>;
  signIn(options?: { returnTo?: string }): Promise<void>;
  signOut(): void;
  authFetch(input: string | URL, init?: AuthFetchInit): Promise<Response>;
  /** Reads a userinfo response against the signed-in subject. */
  readProfile(response: Response): Promise<UserProfile>;
}

export function createAuth(config: AppConfig, state: Writable<SessionState>, navigate: (route: string) => void): Auth {
  let tokens: TokenSet | undefined;
  let renewal: Promise<boolean> | undefined;
  let dueAt = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  // Every request of the current session carries this signal; sign-out aborts it so late answers die.
  let inFlight = new AbortController();
  const channel = typeof BroadcastChannel === 'function' ? new BroadcastChannel(CHANNEL) : undefined;
  const allowedOrigins = new Set(config.apiOrigins);

  function fail(err: unknown, returnTo: string) {
    dropTokens();
    state.set({ ...SIGNED_OUT, status: 'error', error: { ...toAuthError(err).toJSON(), returnTo } });
  }

  function dropTokens() {
    tokens = undefined;
    clearTimeout(timer);
    inFlight.abort();
    inFlight = new AbortController();
  }

  function schedule(at: number) {
    clearTimeout(timer);
    dueAt = at;
    timer = setTimeout(onDue, Math.min(Math.max(at - Date.now(), 0), MAX_TIMER_MS));
  }

  /** Renews shortly before expiry when a refresh token allows it, else ends the session at expiry. */
  function adopt(next: TokenSet) {
    tokens = next;
    const now = Date.now();
    const renewAt = Math.max(now + MIN_RENEW_DELAY_MS, next.expiresAt - Math.min(60_000, (next.expiresAt - now) / 5));
    schedule(next.refreshToken ? renewAt : next.expiresAt);
  }

  function onDue() {
    if (!tokens) return;
    if (Date.now() < dueAt) return schedule(dueAt);
    if (tokens.refreshToken) void renew(false);
    else expire();
  }

  /** Timers stall while a laptop sleeps; re-check when the page comes back. */
  function checkDue() {
    if (tokens && Date.now() >= dueAt) onDue();
  }

  function expire(err?: AuthError) {
    dropTokens();
    const details = err?.toJSON();
    state.set({ ...SIGNED_OUT, status: 'expired', error: { ...details, code: 'session_expired', returnTo: currentRoute() } });
  }

  /** One renewal at a time, shared by every caller (single flight). */
  function renew(tokenRejected: boolean): Promise<boolean> {
    renewal ??= refresh(tokenRejected).finally(() => (renewal = undefined));
    return renewal;
  }

  async function refresh(tokenRejected: boolean): Promise<boolean> {
    const current = tokens;
    if (!current?.refreshToken) {
      expire();
      return false;
    }
    const signal = inFlight.signal;
    try {
      const next = await refreshTokens(config, current, signal);
      if (tokens !== current) return false;
      adopt(next);
      state.update((s) => ({ ...s, expiresAt: next.expiresAt }));
      return true;
    } catch (e) {
      if (tokens !== current) return false;
      const err = toAuthError(e);
      const transient = err.code === 'timeout' || err.code === 'unreachable';
      const retryAt = Date.now() + RETRY_MS;
      if (transient && !tokenRejected && retryAt < current.expiresAt) schedule(retryAt);
      else expire(err);
      return false;
    }
  }

  async function redirect(returnTo: string, silent: boolean) {
    state.set({ ...SIGNED_OUT, status: 'redirecting' });
    try {
      location.assign(await authorizationUrl(config, { returnTo, silent }));
    } catch (err) {
      fail(err, returnTo);
    }
  }

  function restore(returnTo: string) {
    sessionStorage.setItem(RESTORE_KEY, String(Date.now()));
    return redirect(returnTo, true);
  }

  function mayRestore() {
    const last = Number(sessionStorage.getItem(RESTORE_KEY));
    return localStorage.getItem(HINT_KEY) === '1' && !(Date.now() - last < RESTORE_GUARD_MS);
  }

  async function handleCallback({ params, inFragment }: CallbackResponse) {
    let pending;
    try {
      pending = consumePending(params);
    } catch {
      // Reload, back button, another tab or a forged link: never a token request.
      if (mayRestore()) return restore('/');
      state.set({ ...SIGNED_OUT, error: { code: 'unknown_transaction', returnTo: '/profile' } });
      return navigate('/');
    }
    const signal = inFlight.signal;
    try {
      if (inFragment) throw new AuthError('invalid_response');
      const next = await exchangeCode(config, params, pending);
      const user = await fetchUserInfo(config, next, signal);
      if (signal.aborted) return;
      adopt(next);
      localStorage.setItem(HINT_KEY, '1');
      sessionStorage.removeItem(RESTORE_KEY);
      state.set({ status: 'signed-in', user, expiresAt: next.expiresAt, error: null });
      navigate(pending.returnTo);
    } catch (e) {
      const err = toAuthError(e);
      if (pending.silent && err.code === 'login_required') {
        localStorage.removeItem(HINT_KEY);
        state.set(SIGNED_OUT);
        return navigate(pending.returnTo);
      }
      fail(err, pending.returnTo);
    }
  }

  function signOut(broadcast = true) {
    dropTokens();
    clearPending();
    localStorage.removeItem(HINT_KEY);
    sessionStorage.removeItem(RESTORE_KEY);
    state.set(SIGNED_OUT);
    if (broadcast) channel?.postMessage({ type: 'signed-out' });
    navigate('/');
  }

  function listen() {
    channel?.addEventListener('message', (event) => {
      if (event.data?.type === 'signed-out') signOut(false);
    });
    document.addEventListener('visibilitychange', () => document.visibilityState === 'visible' && checkDue());
    addEventListener('online', checkDue);
    addEventListener('pageshow', (event) => {
      // Restored from the back/forward cache after another tab signed out: show nothing of the user.
      if (event.persisted && tokens && localStorage.getItem(HINT_KEY) !== '1') signOut(false);
      else checkDue();
    });
  }

  async function authFetch(input: string | URL, init: AuthFetchInit = {}): Promise<Response> {
    const url = new URL(input, location.href);
    const allowed = (url.protocol === 'https:' || url.protocol === 'http:') && !url.username && !url.password;
    if (!allowed || !allowedOrigins.has(url.origin)) throw new AuthError('forbidden_origin');
    for (let attempt = 0; ; attempt++) {
      const current = tokens;
      if (!current) throw new AuthError('unauthenticated');
      const signal = init.signal ? AbortSignal.any([init.signal, inFlight.signal]) : inFlight.signal;
      try {
        return await oauth.protectedResourceRequest(
          current.accessToken,
          init.method ?? 'GET',
          url,
          new Headers(init.headers),
          init.body,
          {
            [oauth.customFetch]: boundedFetch({ timeoutMs: config.timeoutMs, maxBytes: MAX_RESOURCE_BYTES, signal }),
            [oauth.allowInsecureRequests]: url.protocol === 'http:',
          },
        );
      } catch (err) {
        if (!(err instanceof oauth.WWWAuthenticateChallengeError)) throw toAuthError(err);
        if (err.status < 400) return err.response;
        if (err.status !== 401 || challengeError(err) !== 'invalid_token') throw toAuthError(err);
        // Replay once: with the token another request already renewed, or after one shared renewal.
        if (attempt === 0 && (tokens !== current || (await renew(true)))) continue;
        if (tokens === current) expire();
        throw new AuthError('session_expired');
      }
    }
  }

  return {
    async start(callback) {
      listen();
      if (callback) return handleCallback(callback);
      if (mayRestore()) return restore(currentRoute());
      state.set(SIGNED_OUT);
    },
    signIn: ({ returnTo } = {}) => redirect(safeRoute(returnTo) ?? '/profile', false),
    signOut: () => signOut(),
    authFetch,
    readProfile(response) {
      if (!tokens) return Promise.reject(new AuthError('unauthenticated'));
      return readUserInfo(config, tokens, response);
    },
  };
}
