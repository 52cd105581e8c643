// The browser as the auth module sees it, passed in (as oidc-client-ts passes its navigator and
// stores) so tests hand in fakes instead of stubbing globals. It names no route: navigation within
// the app belongs to the app; the module only leaves for the identity service.
import type { Stores } from './storage';

export interface BrowserPort extends Stores {
  /** The page's URL now. */
  url(): string;
  /** Top-level navigation to the identity service (sign-in, sign-out); `replace` swaps the current history entry. */
  go(url: string, replace?: boolean): void;
  /** Rewrites the current history entry's URL without loading anything. */
  rewrite(url: string): void;
  /** Opens the channel the app's tabs share the session over (tabs.ts); undefined where there is none. */
  channel(name: string): Pick<BroadcastChannel, 'postMessage' | 'addEventListener' | 'removeEventListener' | 'close'> | undefined;
  /** Web Locks: one tab at a time renews the shared session; undefined where there are none. */
  locks?: Locks;
  now(): number;
  /** This page load is a reload (the person asked for it), not Back, a link or a redirect. */
  reloaded(): boolean;
  /**
   * Adds a listener for events at window ('online', 'pageshow') or document ('visibilitychange', 'resume'):
   * it listens at window in the capture phase, which document's events pass too; returns its removal.
   * `passive` for input the listener only notes (the idle watch).
   */
  listen(type: string, listener: (event: Event) => void, options?: { passive?: boolean }): () => void;
}

/** The part of the Web Locks API (navigator.locks) the tabs use. */
export interface Locks {
  request(name: string, options: { signal?: AbortSignal }, granted: () => Promise<void>): Promise<void>;
  query(): Promise<{ held?: { name?: string }[] }>;
}

/** The real browser; call it only in a browser (createAuth calls it from start()). */
export function browserPort(): BrowserPort {
  return {
    url: () => location.href,
    go: (url, replace) => (replace ? location.replace(url) : location.assign(url)),
    rewrite: (url) => history.replaceState(history.state, '', url),
    perTab: sessionStorage,
    perBrowser: localStorage,
    channel: (name) => (typeof BroadcastChannel === 'function' ? new BroadcastChannel(name) : undefined),
    locks: navigator.locks,
    now: Date.now,
    reloaded: () => (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined)?.type === 'reload',
    listen(type, listener, options) {
      addEventListener(type, listener, { ...options, capture: true });
      return () => removeEventListener(type, listener, true);
    },
  };
}
