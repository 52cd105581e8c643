// The browser as the auth module sees it, passed in (as oidc-client-ts passes its navigator and
// stores) so tests hand in fakes instead of stubbing globals. It names no route: navigation within
// the app belongs to the app; the module only leaves for the identity service.
import type { Stores } from './storage';

export interface Browser extends Stores {
  /** The page's URL now. */
  url(): string;
  /** Top-level navigation to the identity service (sign-in, sign-out); `replace` swaps the current history entry. */
  go(url: string, replace?: boolean): void;
  /** Rewrites the current history entry's URL without loading anything. */
  rewrite(url: string): void;
  /** Opens the app's token-free signal channel (host/signal.ts); undefined where there is none. */
  channel(name: string): Pick<BroadcastChannel, 'postMessage' | 'addEventListener' | 'removeEventListener' | 'close'> | undefined;
  /**
   * Starts, or reaches, the app's shared worker named `name` (host/worker.ts), kept alive after the last
   * page where the browser can; undefined where there is no SharedWorker. May throw (a CSP refusing it).
   */
  sharedWorker(name: string): WorkerLike | undefined;
  /** Web Locks: each page holds one while it lives, so the worker knows when it is gone; undefined where there are none. */
  locks?: Locks;
  /**
   * Opens `url` in a hidden frame named `name` (page/frame.ts) and tells `listener` what it brings: a
   * message its page posts from this origin, or `blocked` when it shows a page of another origin (the
   * provider forbids framing, or asks for the person). Returns the frame's removal.
   */
  frame(url: string, name: string, listener: (event: FrameEvent) => void): () => void;
  /** The name of this page's frame when a page of this origin framed it; undefined for a top-level page. */
  frameName(): string | undefined;
  /** Posts `message` to the page that framed this one, at this origin only. */
  toParent(message: unknown): void;
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

/** What a hidden frame brings back (Browser.frame). */
export type FrameEvent = { type: 'message'; data: unknown } | { type: 'blocked' };

/** The part of the Web Locks API (navigator.locks) a page uses. */
export interface Locks {
  request(name: string, granted: () => Promise<void>): Promise<void>;
}

/** The part of a SharedWorker a page uses: its port, and the error it reports when it cannot start. */
export interface WorkerLike {
  port: MessagePort;
  addEventListener(type: 'error', listener: () => void): void;
}

/** Chromium's option, not yet in TypeScript's DOM types. */
interface SharedWorkerOptions extends WorkerOptions {
  extendedLifetime?: boolean;
}

/**
 * The app's shared worker. `extendedLifetime` (Chromium) keeps it alive after its last page unloads, so
 * a reload finds the session; other browsers ignore it, and their worker ends with the last page.
 */
function openSharedWorker(name: string): WorkerLike | undefined {
  if (typeof SharedWorker !== 'function') return undefined;
  // Written out here, `type` last and literal: a bundler builds the worker's script from this call.
  return new SharedWorker(new URL('../host/worker.ts', import.meta.url), {
    ...({ name, extendedLifetime: true } satisfies SharedWorkerOptions),
    type: 'module',
  });
}

/**
 * A hidden frame of `url`. Sandboxed: the provider's page in it can neither navigate this page nor open
 * windows; only this origin's page in it (the callback) may run scripts as itself and post back.
 */
function openFrame(url: string, name: string, listener: (event: FrameEvent) => void): () => void {
  const frame = document.createElement('iframe');
  frame.name = name;
  frame.hidden = true;
  frame.tabIndex = -1;
  frame.setAttribute('aria-hidden', 'true');
  frame.sandbox.add('allow-scripts', 'allow-same-origin');
  const message = (event: MessageEvent) => {
    if (event.source === frame.contentWindow && event.origin === location.origin) listener({ type: 'message', data: event.data });
  };
  // A document of another origin finished loading in it: the answer is a page, not a redirect back here.
  const load = () => {
    let origin: string | undefined;
    try {
      origin = frame.contentWindow?.location.origin;
    } catch {
      // Another origin's document (the provider's page, the browser's page for a refused frame).
    }
    if (origin !== location.origin) listener({ type: 'blocked' });
  };
  addEventListener('message', message);
  frame.addEventListener('load', load);
  frame.src = url;
  document.body.append(frame);
  return () => {
    removeEventListener('message', message);
    frame.removeEventListener('load', load);
    frame.remove();
  };
}

/** The real browser; call it only in a browser (createAuth calls it from start()). */
export function realBrowser(): Browser {
  return {
    url: () => location.href,
    go: (url, replace) => (replace ? location.replace(url) : location.assign(url)),
    rewrite: (url) => history.replaceState(history.state, '', url),
    perTab: sessionStorage,
    perBrowser: localStorage,
    channel: (name) => (typeof BroadcastChannel === 'function' ? new BroadcastChannel(name) : undefined),
    sharedWorker: openSharedWorker,
    locks: navigator.locks,
    frame: openFrame,
    frameName: () => (parent !== window ? window.name : undefined),
    toParent: (message) => parent.postMessage(message, location.origin),
    now: Date.now,
    reloaded: () => (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined)?.type === 'reload',
    listen(type, listener, options) {
      addEventListener(type, listener, { ...options, capture: true });
      return () => removeEventListener(type, listener, true);
    },
  };
}
