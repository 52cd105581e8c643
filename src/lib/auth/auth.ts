// createAuth: one auth instance, the composition root. The page's session store (svelte/session.ts)
// and sign-in flow (page/signin.ts) are here from the first paint; the page's client of the session
// engine (host/client.ts) loads when the page needs the session, never for a stranger's first paint,
// and the engine itself runs in the app's shared worker (host/worker.ts), or in this page where none
// can start (host/in-page.ts). Both import()s of the module are here.
// Making one touches no browser global, so it is safe during server rendering; start() begins the work.
import { realBrowser, type Browser } from './browser/browser';
import { appNames, appStorage, type AppStorage } from './browser/storage';
import type { PageClient } from './host/client';
import { openHost } from './host/open';
import { parseSignal } from './host/signal';
import { checkOptions, issuerOf, workerName, type AuthOptions } from './options';
import type { Network } from './protocol/http';
import type { Claims, StandardClaims } from './protocol/steps';
import { createEvents, type AuthEventType, type AuthListener } from './page/events';
import { createSignIn, type SignInOptions, type StartOptions, type StartResult } from './page/signin';
import type { IdleState } from './session/idle';
import { createResource, type Resource, type ResourceOptions, type ResourceUrl } from './svelte/resource.svelte';
import { createSession, reactiveStore, settledOf, type ReactiveStore, type SessionState } from './svelte/session';

export type { AuthOptions, ClientOptions, ServerEndpoints, ServerOptions } from './options';
export type { IdleOptions, IdleState } from './session/idle';
export type { SignInOptions, StartOptions, StartResult } from './page/signin';
export { safeReturnTo } from './protocol/callback';

export interface Auth<C extends Claims = StandardClaims> {
  /** `{ status, user, expiresAt, error }`, as a store and as `current`. It never carries a token. */
  readonly session: ReactiveStore<SessionState<C>>;
  /** Completes a callback in the URL, or restores a session, or settles as signed out; never navigates in the app. */
  start(options?: StartOptions): Promise<StartResult>;
  /**
   * The session once start() has settled it: `signed-in`, `signed-out`, `expired` or `error`, never
   * `loading` or `redirecting` (at once when it is settled already). A `load` awaits it before
   * `auth.fetch`. On a server, where start() never runs, it resolves at once with the session as it
   * is there (`loading`), so rendering never waits for it.
   */
  settled(): Promise<SessionState<C>>;
  /** Sends the person to the identity service; start() hands `returnTo` back after the callback. */
  signIn(options?: SignInOptions): Promise<void>;
  /** Forgets the tokens here and in every other tab, revokes them, and ends the provider's session when it can. */
  signOut(): void;
  /** The idle sign-out's countdown: `{ warning: true, remainingMs }` from `idle.warnMs` before it, else `{ warning: false }`. */
  readonly idle: ReactiveStore<IdleState>;
  /** The person is here (a "Stay signed in" button): the idle sign-out starts over in every tab. */
  stayActive(): void;
  /** `fetch` with the access token, for allowed origins only. */
  readonly fetch: typeof fetch;
  /** A store of `url` loaded with the token, following a function URL. */
  resource<T = unknown>(url: ResourceUrl, options?: ResourceOptions<T>): Resource<T>;
  /**
   * Calls `listener` with each event of `type` this instance emits (see `AuthEvents`), for telemetry and
   * logs; returns the unsubscribe, which may be called more than once.
   */
  on<K extends AuthEventType>(type: K, listener: AuthListener<K>): () => void;
  /** Removes every listener, timer and channel this instance added, `on` listeners included. */
  destroy(): void;
}

/** The browser and the network, passed in so tests need no globals. */
export interface Collaborators {
  browser: () => Browser;
  network: Network;
}

/** One auth instance over the real browser and network; makes nothing until start() is called. */
export function createAuth<C extends Claims = StandardClaims>(options: AuthOptions): Auth<C> {
  return assembleAuth<C>(options, { browser: realBrowser, network: (request) => fetch(request) });
}

/** createAuth over the browser and network given: tests pass fakes instead of stubbing globals. */
export function assembleAuth<C extends Claims>(options: AuthOptions, { browser: makeBrowser, network }: Collaborators): Auth<C> {
  checkOptions(options);
  const names = appNames(issuerOf(options), options.clientId);
  let port: Browser | undefined;
  let records: AppStorage | undefined;
  const browser = () => (port ??= makeBrowser());
  const storage = () => (records ??= appStorage(browser(), names));
  const events = createEvents();
  const state = createSession<C>(events);
  const idle = reactiveStore<IdleState>({ warning: false });

  /** The page's client of the engine, connected once; after a failure (the alert's Try again), anew. */
  let client: Promise<PageClient> | undefined;
  let attached: PageClient | undefined;
  // The module's two import()s: the page's client, and the engine in this page where no shared worker starts.
  const inPage = () => import('./host/in-page');
  /**
   * The worker is joined while the client's code loads: the session is on its way before the code that
   * shows it. Where no worker starts, the in-page engine's code loads beside the client's, not after it.
   */
  async function attach(completing?: boolean) {
    const opening = openHost(browser(), names, workerName(options));
    void opening
      .then((opened) => {
        if (!opened.worker) return inPage();
      })
      // Failing to open is the connection's to report (connect.ts), and a failed import is tried again there.
      .catch(() => {});
    const module = await import('./host/client').catch(async (err: unknown) => {
      (await opening).close();
      throw err;
    });
    return module.attachClient<C>({
      options,
      names,
      browser: browser(),
      network,
      storage: storage(),
      state,
      events,
      showIdle: idle.set,
      inPage,
      opening,
      completing,
    });
  }
  const connect = (completing?: boolean) =>
    (client ??= attach(completing).then(
      (connected) => (attached = connected),
      (err: unknown) => {
        client = undefined;
        throw err;
      },
    ));

  /** A stranger's page joins when someone signs in elsewhere: the signal says so, token-free. */
  let unwatch: (() => void) | undefined;
  function watch() {
    const channel = unwatch || attached ? undefined : browser().channel(names.channel);
    if (!channel) return;
    const heard = ({ data }: MessageEvent) => {
      if (parseSignal(data, names.app)?.type !== 'signed-in') return;
      unwatch?.();
      void connect().catch(() => {});
    };
    channel.addEventListener('message', heard);
    unwatch = () => {
      channel.close();
      unwatch = undefined;
    };
  }

  const signIn = createSignIn<C>({ ...options, names, browser, storage, state, client: connect, watch });

  /** Signs out here at once; the engine ends the session in every page, revokes it, and hands back the provider's sign-out. */
  function signOut() {
    state.signedOut('user');
    storage().clearTab();
    storage().writeHint('signed-out');
    attached?.signedOut();
    void connect()
      .then((connected) => connected.request('signOut', { reason: 'user' }))
      .then(({ endSession }) => {
        if (!endSession) return;
        storage().saveSignOut(endSession.state);
        // Replaces the entry: Back never lands on the signed-in page it left.
        browser().go(endSession.url, true);
      })
      .catch(() => {});
  }

  const authFetch: typeof fetch = async (input, init) => (await connect()).fetch(input, init);

  return {
    session: state.session,
    start: signIn.start,
    // No window: a server, where start() never runs.
    settled: () => (typeof window == 'undefined' ? Promise.resolve(state.session.current) : settledOf(state.session)),
    signIn: signIn.signIn,
    signOut,
    idle: idle.readable,
    stayActive: () => void attached?.request('active', {}).catch(() => {}),
    fetch: authFetch,
    resource: <T>(url: ResourceUrl, resourceOptions?: ResourceOptions<T>) =>
      createResource<T>(state.session, authFetch, url, resourceOptions),
    on: events.on,
    destroy() {
      events.clear();
      unwatch?.();
      void client?.then((connected) => connected.destroy()).catch(() => {});
    },
  };
}
