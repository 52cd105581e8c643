// Test-only: fresh, isolated auth instances ("tabs") over the fake identity service, one world per test.
import { afterEach, beforeEach, vi, type MockInstance } from 'vitest';
import { get, writable, type Writable } from 'svelte/store';
import type { AppConfig } from '../config';
import { createAuth, INITIAL_STATE, takeCallbackResponse, type Auth, type SessionState } from '../lib/auth/session';
import { APP_URL, FakeBroadcastChannel, FakeIdp, setPageUrl, testConfig } from './fake-idp';

export interface Tab {
  auth: Auth;
  store: Writable<SessionState>;
  navigate: ReturnType<typeof vi.fn<(route: string) => void>>;
  readonly state: SessionState;
}

export interface Harness {
  idp: FakeIdp;
  /** location.assign, where the app sends the browser to the identity service. */
  assign: MockInstance<(url: string | URL) => void>;
  config: AppConfig;
  /** A new page load of the app (memory empty, storage shared with the other tabs of this test). */
  newTab(config?: AppConfig): Tab;
  /** The URL of the last top-level navigation the app started. */
  lastNavigation(): string;
  /** Boots a tab that starts a sign-in and returns the authorization URL it navigated to. */
  startSignIn(options?: { returnTo?: string; hash?: string; config?: AppConfig }): Promise<string>;
  /** Loads the app at the callback URL (query response) the way main.ts does and completes it. */
  completeCallback(callback: URLSearchParams, config?: AppConfig): Promise<Tab>;
  /** Loads the app at any URL the way main.ts does: the callback is taken from the URL first. */
  loadAt(url: string, config?: AppConfig): Promise<Tab>;
  /** The whole round trip with the fake identity service approving. */
  signIn(options?: { returnTo?: string; config?: AppConfig }): Promise<Tab & { authorizeUrl: string; callback: URLSearchParams }>;
}

export function useAuthHarness(configOverrides: Record<string, unknown> = {}): Harness {
  let tabs: Tab[] = [];
  const h = {} as Harness;

  beforeEach(() => {
    setPageUrl(APP_URL);
    localStorage.clear();
    sessionStorage.clear();
    FakeBroadcastChannel.reset();
    vi.stubGlobal('BroadcastChannel', FakeBroadcastChannel);
    h.idp = new FakeIdp().install();
    h.assign = vi.spyOn(location, 'assign').mockImplementation(() => {}) as Harness['assign'];
    h.config = testConfig(configOverrides);
  });

  afterEach(() => {
    // Drop every tab's tokens and timers so nothing of this test acts during the next one.
    for (const tab of tabs) tab.auth.signOut();
    tabs = [];
    FakeBroadcastChannel.reset();
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  h.newTab = (config = h.config) => {
    const store = writable<SessionState>(INITIAL_STATE);
    const navigate = vi.fn<(route: string) => void>();
    const tab: Tab = {
      auth: createAuth(config, store, navigate),
      store,
      navigate,
      get state() {
        return get(store);
      },
    };
    tabs.push(tab);
    return tab;
  };

  h.lastNavigation = () => {
    const call = h.assign.mock.lastCall;
    if (!call) throw new Error('the app did not navigate');
    return String(call[0]);
  };

  h.startSignIn = async ({ returnTo, hash = '', config } = {}) => {
    setPageUrl(APP_URL + hash);
    const tab = h.newTab(config);
    await tab.auth.start();
    const navigations = h.assign.mock.calls.length;
    await tab.auth.signIn({ returnTo });
    if (h.assign.mock.calls.length !== navigations + 1) throw new Error('signIn() did not navigate');
    return h.lastNavigation();
  };

  h.loadAt = async (url, config) => {
    setPageUrl(url);
    const response = takeCallbackResponse();
    const tab = h.newTab(config);
    await tab.auth.start(response);
    return tab;
  };

  h.completeCallback = (callback, config) => h.loadAt(`${APP_URL}?${callback}`, config);

  h.signIn = async ({ returnTo, config } = {}) => {
    const authorizeUrl = await h.startSignIn({ returnTo, config });
    const callback = h.idp.approve(authorizeUrl);
    const tab = await h.completeCallback(callback, config);
    if (tab.state.status !== 'signed-in') throw new Error(`sign-in failed: ${JSON.stringify(tab.state)}`);
    return Object.assign(tab, { authorizeUrl, callback });
  };

  return h;
}
