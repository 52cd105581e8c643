// Test-only: the app's public auth API (src/lib/auth/index.ts) driven the way main.ts drives it, over
// the fake identity service, for component tests of the pages.
import { afterEach, vi } from 'vitest';
import { signIn, signOut, startAuth, takeCallbackResponse } from '../lib/auth';
import { useAuthHarness, type Harness } from './auth-harness';
import { APP_URL, setPageUrl } from './fake-idp';

export interface AppHarness extends Harness {
  navigate: ReturnType<typeof vi.fn<(route: string) => void>>;
  /** A page load at `url`: takes a callback from it, then starts the session like main.ts. */
  pageLoad(url?: string): Promise<void>;
  /** Signed out and settled, at `hash`. */
  signedOut(hash?: string): Promise<void>;
  /** A full sign-in through the app, ending on a fresh page load at the callback. */
  signedIn(returnTo?: string): Promise<void>;
  /** Completes the sign-in the app last started (the identity service approves). */
  approveLastSignIn(): Promise<void>;
}

export function useAppHarness(configOverrides: Record<string, unknown> = {}): AppHarness {
  const h = useAuthHarness(configOverrides) as AppHarness;
  let started = false;
  h.navigate = vi.fn<(route: string) => void>();

  afterEach(() => {
    // The module keeps one session per page; end this test's so the next starts clean.
    if (started) signOut();
    started = false;
    h.navigate.mockReset();
  });

  h.pageLoad = async (url = APP_URL) => {
    setPageUrl(url);
    const callback = takeCallbackResponse();
    started = true;
    await startAuth(h.config, h.navigate, callback);
  };
  h.signedOut = (hash = '') => h.pageLoad(APP_URL + hash);
  h.approveLastSignIn = () => h.pageLoad(`${APP_URL}?${h.idp.approve(h.lastNavigation())}`);
  h.signedIn = async (returnTo) => {
    await h.signedOut();
    await signIn({ returnTo });
    await h.approveLastSignIn();
  };
  return h;
}
