// The test kit: an Auth with no identity service, no network and no DOM, for component tests of views
// that use auth. It runs production's session policy (core.ts): the same error conversion, challenges
// and transitions; only where requests go (`handler`) and how the session begins differ.
// Never imported by the app, so never in the production bundle.
import type { Auth, IdleState, SignInOptions } from './auth';
import { createCore } from './core';
import type { AuthError } from './protocol/errors';
import { hintParams } from './protocol/hints';
import type { Claims, StandardClaims } from './protocol/steps';
import { reactiveStore, sessionState, type SessionState, type SessionStatus } from './svelte/session';
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
  const core = createCore<C>({
    client: { client_id: 'test-client' },
    network: (request) => answer(request, handler),
    timeoutMs: 15_000,
    scope: 'openid',
    stepUpScopes,
    // No refresh: a refused test token ends the session, as a token without a refresh token does in production.
    allowed: () => apiOrigins,
    base: () => globalThis.location?.href ?? NO_PAGE,
    now: Date.now,
    initial: sessionState<C>(
      start === 'signed-in' ? 'loading' : start,
      START_ERRORS[start] ?? null,
      start === 'expired' || (start === 'error' && !!user),
    ),
  });
  const signIn = async () =>
    core.signedIn({ tokens: { accessToken: TEST_TOKEN, expiresAt: Date.now() + HOUR_MS }, scope: 'openid' }, profile);
  if (start === 'signed-in') void signIn();

  return {
    session: core.state.session,
    start: async () => ({}),
    settled: core.settled,
    // A step-up signs in at once too; its options are checked as production checks them (a bad one is a
    // TypeError), but for `resource`: the kit has no APIs of its own, so any one is taken. Hints are
    // checked as production checks them: a refused one is the session's `param_not_allowed`.
    signIn: async (options: SignInOptions = {}) => {
      stepUpRequest('openid', options, options.resource === undefined ? [] : [options.resource]);
      try {
        hintParams(options, extraParams, { prompt_values_supported: promptValuesSupported });
      } catch (refused) {
        // hintParams throws nothing but its AuthError.
        return core.state.failed(refused as AuthError);
      }
      return signIn();
    },
    signOut: () => void core.signOut('user'),
    idle: idleState.readable,
    stayActive: () => idleState.set({ warning: false }),
    fetch: core.fetch,
    resource: core.resource,
    on: core.events.on,
    destroy: core.destroy,
  };
}
