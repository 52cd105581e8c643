// The page's events that keep the session right: timers stall while a laptop sleeps or the page is
// frozen (visibility, `resume`), the network comes back (online), and a page restored from the
// back/forward cache may show a redirect that never happened. Each is a moment for the engine to do
// what is due (renewal, the idle deadline), and the person's input moves the idle deadline.
import type { Browser } from './browser';

/** Input counts at most this often: a person typing sends one message a second, not one a key. */
export const ACTIVITY_EVERY_MS = 1000;
/** What counts as the person being there; not focus or visibility, which come back by themselves. */
const INPUT = ['pointerdown', 'keydown', 'wheel', 'touchstart', 'scroll'];

export interface LifecycleParts {
  port: Pick<Browser, 'listen' | 'now'>;
  /** Timers may have stalled, or the network is back: the engine does what is due. */
  wake(): void;
  /** Back from the identity service through the back/forward cache: the redirect did not happen here. */
  returned(): void;
  /** The person used the page (throttled); none without the idle sign-out. */
  active?(): void;
}

/** Listens to the page's events for the session; returns their removal. */
export function listenPage({ port, wake, returned, active }: LifecycleParts): () => void {
  let latest = -Infinity;
  const input = () => {
    if (port.now() - latest < ACTIVITY_EVERY_MS) return;
    latest = port.now();
    active!();
  };
  const removers = [
    port.listen('visibilitychange', (event) => {
      // Not as the page is hidden or closed: a renewal sent then may spend the refresh token with its answer lost.
      if ((event.target as Document | null)?.visibilityState !== 'hidden') wake();
    }),
    port.listen('online', wake),
    // Page Lifecycle: a frozen page (a background tab, a device's sleep) runs again.
    port.listen('resume', wake),
    port.listen('pageshow', (event) => {
      if ((event as PageTransitionEvent).persisted) returned();
      wake();
    }),
    ...(active ? INPUT.map((type) => port.listen(type, input, { passive: true })) : []),
  ];
  return () => removers.forEach((remove) => remove());
}
