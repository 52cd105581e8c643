// The browser as the auth module sees it, passed in (as oidc-client-ts passes its navigator and
// stores) so tests hand in fakes instead of stubbing globals.

export interface BrowserPort {
  /** The page's URL now. */
  url(): string;
  /** Top-level navigation; `replace` swaps the current history entry instead of adding one. */
  go(url: string, replace?: boolean): void;
  /** Rewrites the current history entry's URL without loading anything. */
  rewrite(url: string): void;
  /** Shows an app route (`/profile`) in place, as the router's replace() does. */
  navigate(route: string): void;
  /** Per tab: the pending sign-in. */
  session: Storage;
  /** Per browser: the non-secret "had a session" hints. */
  local: Storage;
  /** The channel that tells the app's other tabs about a sign-out; undefined where there is none. */
  channel?: Pick<BroadcastChannel, 'postMessage' | 'addEventListener' | 'removeEventListener' | 'close'>;
  now(): number;
  /** This page load is a reload (the person asked for it), not Back, a link or a redirect. */
  reloaded(): boolean;
  /** Adds a listener to window ('online', 'pageshow') or document ('visibilitychange'); returns its removal. */
  listen(type: string, listener: (event: Event) => void): () => void;
}

/** The real browser. */
export function browserPort(): BrowserPort {
  const on = (type: string, listener: (event: Event) => void) => {
    const target = type === 'visibilitychange' ? document : window;
    target.addEventListener(type, listener);
    return () => target.removeEventListener(type, listener);
  };
  return {
    url: () => location.href,
    go: (url, replace) => (replace ? location.replace(url) : location.assign(url)),
    rewrite: (url) => history.replaceState(history.state, '', url),
    // A fragment navigation that replaces the entry: no reload, and the hashchange a hash router follows.
    navigate: (route) => location.replace(`#${route}`),
    session: sessionStorage,
    local: localStorage,
    channel: typeof BroadcastChannel === 'function' ? new BroadcastChannel('auth') : undefined,
    now: Date.now,
    reloaded: () => (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined)?.type === 'reload',
    listen: on,
  };
}
