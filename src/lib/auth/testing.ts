// The test kit: an Auth with no identity service, no network and no DOM, for component tests of views
// that use auth. It runs production's page side: the same session store and transitions, auth.fetch
// with its allow-list, error conversion and challenges, and resources; only where requests go
// (`handler`) and where the token comes from (a test token, never renewed) differ.
// Never imported by the app, so never in the production bundle.
import type { Auth, IdleState, SignInOptions } from './auth';
import { createAuthFetch, type TokenSource } from './page/fetch';
import { createEvents } from './page/events';
import { AuthError } from './protocol/errors';
import { hintParams } from './protocol/hints';
import type { Claims, StandardClaims } from './protocol/steps';
import { createResource, type ResourceOptions, type ResourceUrl } from './svelte/resource.svelte';
import { createSession, reactiveStore, sessionState, settledOf, type SessionState, type SessionStatus } from './svelte/session';
import { stepUpRequest } from './protocol/stepup';

export interface TestAuthOptions<C extends Claims = StandardClaims> {
  /** The signed-in user (`sub` defaults to `test-user`), or null for signed out. */
  user?: Partial<NoInfer<C>> | null;
  /**
   * The state to start in; wins over `user` (which `signIn()` then signs in). The person is `known` as in
   * production: `expired` always, `error` when there is a `user` (a later failure) and not with `user: null`
   * (a first sign-in that failed).
   */
  status?: SessionStatus;
  /** Origins that may receive the test token, as with createAuth. */
  apiOrigins?: string[];
  /** Scope tokens those origins may ask a step-up for, as with createAuth: any other is `scope_not_allowed`. */
  stepUpScopes?: string;
  /** Names `signIn({ extraParams })` may send, as with createAuth: any other is `param_not_allowed`. */
  extraParams?: string[];
  /** The provider's `prompt_values_supported`: `signIn({ prompt: 'create' })` is refused unless it lists `create`. */
  promptValuesSupported?: string[];
  /**
   * Answers every request auth.fetch lets through, with `Authorization: Bearer <TEST_TOKEN>` set. What
   * it returns or throws is handled as production handles the network's answer: a thrown TypeError is
   * `unreachable`, a 401 with `WWW-Authenticate: Bearer error="invalid_token"` ends the session, and
   * `error="insufficient_scope", scope="…"` (RFC 6750 §3.1; `scope_not_allowed` beyond `stepUpScopes`) or
   * `error="insufficient_user_authentication", acr_values="…", max_age=…` (RFC 9470 §3) reject with those
   * AuthErrors and their fields.
   */
  handler?: (request: Request) => Response | Promise<Response>;
  /** What `auth.idle` shows, e.g. `{ warning: true, remainingMs: 30_000 }`; `stayActive()` ends a warning. Default none. */
  idle?: IdleState;
}

export const TEST_TOKEN = 'test-access-token';
const HOUR_MS = 60 * 60 * 1000;
/** Where relative URLs resolve without a DOM. */
const NO_PAGE = 'http://localhost/';

/**
 * The handler's answer as the network gives it: an abort rejects the request whatever the handler is
 * doing, and the response carries the URL it answers, as fetch's does.
 */
function answer(request: Request, handler: NonNullable<TestAuthOptions['handler']>): Promise<Response> {
  const { signal } = request;
  return new Promise<Response>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
    Promise.resolve()
      .then(() => handler(request))
      .then((response) => resolve(Object.defineProperty(response, 'url', { value: response.url || request.url })), reject);
  });
}

/** The error each failed start state shows. */
const START_ERRORS: Partial<Record<SessionStatus, SessionState['error']>> = {
  expired: { code: 'session_expired' },
  error: { code: 'authorization_failed' },
};

/**
 * An Auth whose session is `user` (or `status`), whose fetch hands requests to `handler`, and whose
 * sign-in/out act at once; `signIn()` takes production's options.
 */
export function createTestAuth<C extends Claims = StandardClaims>({
  user = {},
  status,
  apiOrigins = [],
  stepUpScopes,
  extraParams,
  promptValuesSupported,
  handler = () => new Response(null, { status: 404 }),
  idle = { warning: false },
}: TestAuthOptions<C> = {}): Auth<C> {
  const idleState = reactiveStore<IdleState>(idle);
  const profile = { sub: 'test-user', ...user } as C;
  const start = status ?? (user ? 'signed-in' : 'signed-out');
  const events = createEvents();
  const state = createSession<C>(
    events,
    sessionState<C>(
      start === 'signed-in' ? 'loading' : start,
      START_ERRORS[start] ?? null,
      start === 'expired' || (start === 'error' && !!user),
    ),
  );
  let life = new AbortController();
  const end = () => {
    life.abort();
    life = new AbortController();
  };
  // No refresh: a refused test token ends the session, as a token without a refresh token does in production.
  const tokens: TokenSource = {
    async token() {
      if (state.session.current.status !== 'signed-in') throw new AuthError('unauthenticated');
      return { accessToken: TEST_TOKEN, api: false, dpop: undefined };
    },
    renew: async () => false,
    forget: () => {},
    end() {
      if (state.session.current.status !== 'signed-in') return;
      end();
      state.expired();
    },
    offline: () => false,
    signal: () => life.signal,
  };
  const fetch = createAuthFetch({
    network: (request) => answer(request, handler),
    tokens,
    allowed: new Set(apiOrigins.map((origin) => new URL(origin).origin)),
    scope: 'openid',
    stepUpScopes,
    base: () => globalThis.location?.href ?? NO_PAGE,
    timeoutMs: 15_000,
  });
  const signIn = async () => state.signedIn(profile, Date.now() + HOUR_MS);
  if (start === 'signed-in') void signIn();

  return {
    session: state.session,
    start: async () => ({}),
    settled: () => settledOf(state.session),
    // A step-up signs in at once too; its options are checked as production checks them (a bad one is a
    // TypeError), but for `resource`: the kit has no APIs of its own, so any one is taken. Hints are
    // checked as production checks them: a refused one is the session's `param_not_allowed`.
    signIn: async (options: SignInOptions = {}) => {
      stepUpRequest('openid', options, options.resource === undefined ? [] : [options.resource]);
      try {
        hintParams(options, extraParams, { prompt_values_supported: promptValuesSupported });
      } catch (refused) {
        // hintParams throws nothing but its AuthError.
        return state.failed(refused as AuthError);
      }
      return signIn();
    },
    signOut() {
      end();
      state.signedOut('user');
    },
    idle: idleState.readable,
    stayActive: () => idleState.set({ warning: false }),
    fetch,
    resource: <T>(url: ResourceUrl, options?: ResourceOptions<T>) => createResource<T>(state.session, fetch, url, options),
    on: events.on,
    destroy() {
      end();
      events.clear();
    },
  };
}
