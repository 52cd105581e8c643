// createAuth: one auth instance. The shared session policy (core.ts) plus what only a real browser
// does: the round trip to the identity service, silent restore, sign-out there, and the page's events.
// Making one touches no browser global, so it is safe during server rendering; start() begins the work.
import { DPoP, type Client } from 'oauth4webapi';
import type { ApiOptions } from './apis';
import { createCore } from './core';
import { createKeys } from './dpop';
import { toAuthErrorOrShow } from './errors';
import type { Network } from './http';
import { browserPort, type BrowserPort } from './port';
import type { Claims, Server, StandardClaims } from './protocol';
import type { Resource, ResourceOptions, ResourceUrl } from './resource.svelte';
import { stepUpRequest, type StepUpOptions } from './scope';
import type { ReactiveStore, SessionState } from './session';
import { beginSignIn, checkShape, completeSignIn, pendingFor, takeCallbackResponse, type CallbackResponse } from './signin';
import type { Tabs } from './tabs';
import { clearTab, forgetHint, lastRestore, noteRestore, readHint, takeSignOut, writeHint } from './storage';

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
  /** Where the identity service sends the person back: only this origin and path is taken as a callback. */
  redirectUri: string;
  /** Default `openid`. */
  scope?: string;
  /** Refuse authorization responses without `iss` (RFC 9207 §2.4). */
  requireIss?: boolean;
  /** Further origins that may receive the access token; the userinfo endpoint's origin always may. */
  apiOrigins?: string[];
  /**
   * APIs that get a token of their own (RFC 8707), keyed by origin: every sign-in asks for each `resource`
   * and `scope`, and requests to that origin carry a token for its resource, never the sign-in token.
   */
  apis?: Record<string, ApiOptions>;
  /** Per-request timeout over the whole exchange, default 15000 ms. */
  timeoutMs?: number;
  /** Refuse an API answer larger than this many bytes from `auth.fetch`; default none (the body streams). */
  maxResponseBytes?: number;
  /** Bind tokens to a key of this page (RFC 9449). */
  dpop?: boolean;
}

/** `scope`, `acr_values` and `max_age` make a step-up, checked after the callback (an AuthError's fields fit). */
export interface SignInOptions extends StepUpOptions {
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

export interface Auth<C extends Claims = StandardClaims> {
  /** `{ status, user, expiresAt, error }`, as a store and as `current`. It never carries a token. */
  readonly session: ReactiveStore<SessionState<C>>;
  /** Completes a callback in the URL, or restores a session, or settles as signed out; never navigates in the app. */
  start(options?: StartOptions): Promise<StartResult>;
  /** Sends the person to the identity service; start() hands `returnTo` back after the callback. */
  signIn(options?: SignInOptions): Promise<void>;
  /** Forgets the tokens here and in every other tab, revokes them, and ends the provider's session when it can. */
  signOut(): void;
  /** `fetch` with the access token, for allowed origins only. */
  readonly fetch: typeof fetch;
  /** A store of `url` loaded with the token, following a function URL. */
  resource<T = unknown>(url: ResourceUrl, options?: ResourceOptions<T>): Resource<T>;
  /** Removes every listener, timer and channel this instance added. */
  destroy(): void;
}

/** The browser and the network, passed in so tests need no globals. */
export interface Collaborators {
  browser: () => BrowserPort;
  network: Network;
}

const RESTORE_GUARD_MS = 60_000;
/** The step-up code: loaded only by a sign-in that asks for one and by the callback that answers it. */
const stepUpModule = () => import('./stepup');
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

/** One auth instance over the real browser and network; makes nothing until start() is called. */
export function createAuth<C extends Claims = StandardClaims>(options: AuthOptions): Auth<C> {
  return assembleAuth<C>(options, { browser: browserPort, network: (request) => fetch(request) });
}

/** createAuth over the browser and network given: tests pass fakes instead of stubbing globals. */
export function assembleAuth<C extends Claims>(options: AuthOptions, { browser: makeBrowser, network }: Collaborators): Auth<C> {
  const client: Client = { client_id: options.clientId };
  const apis = Object.values(options.apis ?? {});
  // The sign-in's scope and every API's: a token repeated in the list asks for nothing more.
  const scope = [options.scope ?? 'openid', ...apis.map((api) => api.scope)].filter(Boolean).join(' ');
  let server: Server = {
    // Makes validateAuthResponse refuse a response without `iss` (RFC 9207 §2.4).
    as: { ...options.server, authorization_response_iss_parameter_supported: options.requireIss },
    client,
    redirectUri: options.redirectUri,
    scope,
    resources: apis.map((api) => api.resource),
    timeoutMs: options.timeoutMs ?? 15_000,
    network,
  };
  let port: BrowserPort | undefined;
  const browser = () => (port ??= makeBrowser());
  const useKeys = (keys: CryptoKeyPair) => (server = { ...server, dpop: DPoP(client, keys), keys });
  // The other tabs and the page's events (tabs.ts), loaded when this tab has settled: a sign-in never waits for it.
  let tabs: Promise<Tabs> | undefined;
  let joined: Tabs | undefined;
  const shared = (): Promise<Tabs> =>
    (tabs ??= import('./tabs').then(
      (module) =>
        (joined = module.connectTabs<C>({
          port: browser(),
          dpop: !!options.dpop,
          server: () => server,
          core,
          useKeys,
          signedOut: (revoke) => signOut(false, revoke),
        })),
    ));
  const core = createCore<C>({
    server: () => server,
    network,
    // Every refresh-token grant goes through the tab holding the session's lock (tabs.ts).
    refresh: async (current, signal, extra) => (await shared()).refresh(current, signal, extra),
    allowed: [options.server.userinfo_endpoint, ...(options.apiOrigins ?? []), ...Object.keys(options.apis ?? {})],
    apis: options.apis,
    scope,
    base: () => port?.url() ?? options.redirectUri,
    now: () => browser().now(),
    maxBytes: options.maxResponseBytes,
  });
  const { state, renewal } = core;
  const here = () => {
    const { pathname, search } = new URL(browser().url());
    return pathname + search;
  };

  async function redirect(returnTo: string, prompt?: 'none' | 'login', ask: StepUpOptions = {}) {
    state.redirecting();
    try {
      // The page's listeners are on before it leaves: Back may bring it back from the back/forward cache.
      await shared();
      const stepUp = Object.keys(ask).length ? stepUpRequest(server.scope, ask) : undefined;
      await beginSignIn(server, browser(), { returnTo, prompt, stepUp });
    } catch (err) {
      state.failed(
        toAuthErrorOrShow(err, (bug) => state.failed(bug, returnTo)),
        returnTo,
      );
    }
  }

  function restore(returnTo: string) {
    noteRestore(browser(), browser().now());
    return redirect(returnTo, 'none');
  }

  /** A reload may always restore; other loads (Back, stale callbacks) at most once a minute. */
  function mayRestore() {
    const b = browser();
    return readHint(b) === 'had-session' && (b.reloaded() || b.now() - lastRestore(b) >= RESTORE_GUARD_MS);
  }

  async function handleCallback(callback: CallbackResponse): Promise<StartResult> {
    const b = browser();
    const pending = pendingFor(callback, b);
    const signal = renewal.signal();
    try {
      checkShape(callback);
      if (!pending) {
        // Reload, Back, another tab or a forged link: never a token request.
        if (mayRestore()) await restore(here());
        else state.notice('unknown_transaction');
        return {};
      }
      const { stepUp } = pending;
      const complete = stepUp ? (await stepUpModule()).completeStepUp : completeSignIn;
      const { tokens, user } = await complete<C>(server, callback, pending, b.now(), signal);
      // Signed out meanwhile: the sign-out decides what shows.
      if (signal.aborted) return {};
      // What the step-up added stays asked for by this instance's later sign-ins (and so its API tokens).
      if (stepUp) server = { ...server, scope: stepUp.scope };
      writeHint(b, 'had-session');
      core.signedIn(tokens, user);
      // After the claims show: the waiting tabs sign in with this session.
      void shared().then((t) => t.signedIn());
      return { returnTo: pending.returnTo };
    } catch (e) {
      if (signal.aborted) return {};
      const err = toAuthErrorOrShow(e, (bug) => state.failed(bug, pending?.returnTo));
      if (!pending?.silent || !QUIET.includes(err.code)) {
        state.failed(err, pending?.returnTo);
        return {};
      }
      forgetHint(b);
      state.signedOut();
      return { returnTo: pending.returnTo };
    }
  }

  /** The provider's sign-out coming back: only the `state` this tab sent confirms it (once). */
  function signOutReturned(sent: string | null) {
    if (takeSignOut(browser(), sent)) state.signedOut();
    else state.notice('unknown_signout');
  }

  /** `revoke` unless the tab that signed out shared this session's tokens, and revoked them once. */
  function signOut(everywhere: boolean, revoke = true) {
    const b = browser();
    const tokens = core.signOut();
    clearTab(b);
    writeHint(b, 'signed-out');
    if (everywhere) {
      if (joined) joined.signedOut();
      else b.channel?.postMessage({ type: 'signed-out' });
    }
    // The provider's part follows with its module: the sign-out has happened here already.
    void import('./signout').then((provider) => {
      if (tokens && revoke) provider.revokeAll(server, tokens);
      if (everywhere) provider.endSession(server, b, tokens?.idToken);
    });
  }

  return {
    session: state.session,
    async start({ returnTo } = {}) {
      const b = browser();
      // The key is made while the URL is read; only a DPoP client waits for it.
      const key = options.dpop ? createKeys() : undefined;
      const callback = takeCallbackResponse(b, options.redirectUri);
      if (key) useKeys(await key);
      // A response with only `state` is the provider's sign-out coming back, never a sign-in.
      if (callback && [...callback.params.keys()].join() === 'state') signOutReturned(callback.params.get('state'));
      else if (callback) return handleCallback(callback).finally(() => void shared());
      // Another tab's session, when one answers: no round trip to the identity service.
      else if (readHint(b) === 'had-session' && (await (await shared()).ask())) return {};
      else if (mayRestore()) await restore(safeReturnTo(returnTo) ?? here());
      else state.signedOut();
      void shared();
      return {};
    },
    signIn: ({ returnTo, ...ask } = {}) =>
      redirect(safeReturnTo(returnTo) ?? here(), readHint(browser()) === 'signed-out' ? 'login' : undefined, ask),
    signOut: () => signOut(true),
    fetch: core.fetch,
    resource: core.resource,
    destroy() {
      renewal.drop();
      if (joined) joined.destroy();
      else void tabs?.then((t) => t.destroy());
      port?.channel?.close();
    },
  };
}
