// Test-only: fresh, isolated auth instances ("tabs") over the fake identity service, one world per test.
// Each tab gets a browser port of its own: happy-dom's location, history and storage (shared by the
// tabs of a test, like one browser), a fake broadcast channel, the browser's shared workers (one session
// engine per app, in this process, reached over fake ports), Web Locks, and spies where the page leaves.
// Requests go to the fake identity service as the network: the global fetch is not touched.
import { afterEach, beforeEach, vi } from 'vitest';
import type { Auth, AuthOptions, SessionState, StartResult } from '..';
import { assembleAuth } from '../auth';
import type { Browser, FrameEvent, WorkerLike } from '../browser/browser';
import { serveWorker } from '../host/worker-host';
// Loaded up front, as a browser has them cached: a tab joins the engine within promise turns.
import '../host/client';
import '../host/in-page';
import {
  APP_URL,
  FakeBroadcastChannel,
  FakeIdp,
  FakeLocks,
  FakeMessageChannel,
  setPageUrl,
  testOptions,
  type OptionsOverrides,
  type TestOptions,
} from './fake-idp';

export interface Tab {
  auth: Auth;
  /** What start() resolved to (after loadAt). */
  started?: StartResult;
  readonly state: SessionState;
}

export interface Harness {
  idp: FakeIdp;
  /** Top-level navigations the app started (to the identity service): the URL and whether it replaced the entry. */
  assign: ReturnType<typeof vi.fn<(url: string, replace?: boolean) => void>>;
  /** The options every tab gets unless a test hands it others (testOptions with the harness's overrides). */
  options: TestOptions;
  /** What the next tab's port says about how the page was loaded. */
  reloaded: boolean;
  /** The Web Locks the tabs of this test share, as the tabs of one browser do. */
  locks: FakeLocks;
  /** Whether the browser has shared workers (true by default); false makes every tab run its engine in-page. */
  sharedWorkers: boolean;
  /** The browser's shared workers by name, each with its scope and engine: ended by endWorkers(). */
  workers: Map<string, { scope: EventTarget; engine: ReturnType<typeof serveWorker> }>;
  /** Ends every shared worker, as a browser without extended lifetime does once the last page is gone. */
  endWorkers(): void;
  /**
   * How the provider answers a hidden frame the app opens (Browser.frame): approving silently (default:
   * the app's callback page then loads in the frame, and hands the response over), `blocked` (framing
   * refused), `none` (nothing comes back), or the response a function returns for the authorization URL.
   */
  frameAnswer: 'approve' | 'blocked' | 'none' | ((authorizeUrl: string) => URLSearchParams);
  /** The authorization URLs of the hidden frames the app opened, in order. */
  frames: string[];
  /** A browser port over happy-dom with a fake channel; `options` are the app's, for the pages of its hidden frames. */
  port(options?: AuthOptions): Browser;
  /** A new page load of the app (memory empty, storage shared with the other tabs of this test). */
  newTab(options?: AuthOptions): Tab;
  /** Closes a tab, as the browser does when the page is left: its memory, channel and locks are gone. */
  close(tab: Tab): Promise<void>;
  /** Closes every open tab (before a reload of the only one). */
  closeTabs(): Promise<void>;
  /** The URL of the last top-level navigation the app started. */
  lastNavigation(): string;
  /** Boots a tab that starts a sign-in and returns the authorization URL it navigated to. */
  startSignIn(options?: { returnTo?: string; hash?: string; options?: AuthOptions }): Promise<string>;
  /** Loads the app at the callback URL (query response) the way main.ts does and completes it. */
  completeCallback(callback: URLSearchParams, options?: AuthOptions): Promise<Tab>;
  /** Loads the app at any URL and starts it, as main.ts does. */
  loadAt(url: string, options?: AuthOptions): Promise<Tab>;
  /** The whole round trip with the fake identity service approving. */
  signIn(options?: {
    returnTo?: string;
    options?: AuthOptions;
  }): Promise<Tab & { authorizeUrl: string; callback: URLSearchParams }>;
}

/** The state a view reads while no one is signed in, for `toEqual`: every member written out. */
export const noSession = (status: 'loading' | 'signed-out') =>
  ({ status, user: null, expiresAt: null, error: null, known: false, offline: false, endsAt: null }) as const;

export function useAuthHarness(overrides: OptionsOverrides = {}): Harness {
  let tabs: Tab[] = [];
  const h = {} as Harness;

  beforeEach(() => {
    setPageUrl(APP_URL);
    localStorage.clear();
    sessionStorage.clear();
    FakeBroadcastChannel.reset();
    h.idp = new FakeIdp();
    h.assign = vi.fn<(url: string, replace?: boolean) => void>();
    h.options = testOptions(overrides);
    h.reloaded = false;
    h.locks = new FakeLocks();
    h.sharedWorkers = true;
    h.workers = new Map();
    h.frameAnswer = 'approve';
    h.frames = [];
    vi.stubGlobal('MessageChannel', FakeMessageChannel);
  });

  afterEach(() => {
    // Drop every tab's tokens, timers and listeners so nothing of this test acts during the next one.
    for (const tab of tabs) tab.auth.destroy();
    tabs = [];
    h.endWorkers();
    FakeBroadcastChannel.reset();
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  h.endWorkers = () => {
    for (const { engine } of h.workers.values()) engine.destroy();
    h.workers.clear();
  };

  /** The shared worker `name`, started by the first page that asks for it, as a browser does. */
  function sharedWorker(name: string): WorkerLike | undefined {
    if (!h.sharedWorkers) return undefined;
    if (!h.workers.has(name)) {
      const scope = Object.assign(new EventTarget(), { name });
      const engine = serveWorker({
        scope: scope as never,
        locks: h.locks,
        network: (request) => h.idp.fetch(request),
        now: () => Date.now(),
        channel: (channel) => new FakeBroadcastChannel(channel),
      });
      h.workers.set(name, { scope, engine });
    }
    const { port1, port2 } = new FakeMessageChannel();
    h.workers.get(name)!.scope.dispatchEvent(Object.assign(new Event('connect'), { ports: [port1] }));
    return Object.assign(new EventTarget(), { port: port2 as unknown as MessagePort });
  }

  /** A hidden frame of the page with `options`: the provider answers as frameAnswer says. */
  function frame(options: AuthOptions, url: string, name: string, listener: (event: FrameEvent) => void) {
    h.frames.push(url);
    const answer = h.frameAnswer;
    let open = true;
    void Promise.resolve().then(() => {
      if (!open || answer === 'none') return;
      if (answer === 'blocked') return listener({ type: 'blocked' });
      const callback = answer === 'approve' ? h.idp.approve(url) : answer(url);
      // The app's callback page, loading in the frame: its own URL, named by the page that framed it.
      const page: Browser = {
        ...h.port(options),
        url: () => `${options.redirectUri}?${callback}`,
        rewrite: () => {},
        frameName: () => name,
        toParent: (data) => void Promise.resolve().then(() => open && listener({ type: 'message', data })),
      };
      void assembleAuth(options, { browser: () => page, network: (request) => h.idp.fetch(request) }).start();
    });
    return () => void (open = false);
  }

  h.port = (options = h.options) => {
    const reloaded = h.reloaded;
    return {
      url: () => location.href,
      go: (url, replace) => h.assign(url, replace),
      rewrite: (url) => history.replaceState(history.state, '', url),
      perTab: sessionStorage,
      perBrowser: localStorage,
      channel: (name) => new FakeBroadcastChannel(name),
      sharedWorker,
      locks: h.locks,
      frame: (url, name, listener) => frame(options, url, name, listener),
      frameName: () => undefined,
      toParent: () => {},
      now: () => Date.now(),
      reloaded: () => reloaded,
      // As the browser's port: at window in the capture phase, which document's events pass too.
      listen(type, listener) {
        addEventListener(type, listener, true);
        return () => removeEventListener(type, listener, true);
      },
    };
  };

  h.newTab = (options = h.options) => {
    const port = h.port(options);
    const auth = assembleAuth(options, { browser: () => port, network: (request) => h.idp.fetch(request) });
    const tab: Tab = {
      auth,
      get state() {
        return auth.session.current;
      },
    };
    tabs.push(tab);
    return tab;
  };

  h.close = async (tab) => {
    tabs = tabs.filter((open) => open !== tab);
    tab.auth.destroy();
    // The lock goes a few promise turns after destroy(), as a closed tab's goes in a browser.
    for (let turn = 0; turn < 10; turn++) await Promise.resolve();
  };

  h.closeTabs = async () => {
    for (const tab of [...tabs]) await h.close(tab);
  };

  h.lastNavigation = () => {
    const call = h.assign.mock.lastCall;
    if (!call) throw new Error('the app did not navigate');
    return String(call[0]);
  };

  h.startSignIn = async ({ returnTo, hash = '', options } = {}) => {
    setPageUrl(APP_URL + hash);
    const tab = h.newTab(options);
    await tab.auth.start();
    const navigations = h.assign.mock.calls.length;
    await tab.auth.signIn({ returnTo });
    if (h.assign.mock.calls.length !== navigations + 1) throw new Error('signIn() did not navigate');
    // The page left for the identity service: nothing of it lives on.
    await h.close(tab);
    return h.lastNavigation();
  };

  h.loadAt = async (url, options) => {
    setPageUrl(url);
    const tab = h.newTab(options);
    tab.started = await tab.auth.start();
    return tab;
  };

  h.completeCallback = (callback, options) => h.loadAt(`${APP_URL}?${callback}`, options);

  h.signIn = async ({ returnTo, options } = {}) => {
    const authorizeUrl = await h.startSignIn({ returnTo, options });
    const callback = h.idp.approve(authorizeUrl);
    const tab = await h.completeCallback(callback, options);
    if (tab.state.status !== 'signed-in') throw new Error(`sign-in failed: ${JSON.stringify(tab.state)}`);
    return Object.assign(tab, { authorizeUrl, callback });
  };

  return h;
}
