// The page's events that keep the session right: timers stall while a laptop sleeps or the page is frozen
// (visibility, `resume`), the network comes back (online), and a page restored from the back/forward
// cache may show a redirect that never happened or a person another tab signed out. Each is a moment to
// renew what is due, or what the network stopped (vault.ts `checkDue`). Loaded after the first paint.
import type { BrowserPort } from './port';
import type { Claims } from '../protocol/steps';
import type { Session } from '../svelte/session';
import type { AppStorage } from './storage';
import type { Vault } from '../session/tokens';

export interface PageParts<C extends Claims> {
  port: Pick<BrowserPort, 'listen'>;
  vault: Vault;
  state: Session<C>;
  storage: Pick<AppStorage, 'readHint'>;
  /** Signs this tab out after another did while the page was in the cache, revoking what it holds. */
  signOut(): void;
}

/** Listens to the page's events for the session; returns their removal. */
export function listenPage<C extends Claims>({ port, vault, state, storage, signOut }: PageParts<C>): () => void {
  const checkDue = () => void vault.checkDue();
  const removers = [
    port.listen('visibilitychange', (event) => {
      // Not as the page is hidden or closed: a renewal sent then may spend the refresh token with its answer lost.
      if ((event.target as Document | null)?.visibilityState !== 'hidden') checkDue();
    }),
    port.listen('online', checkDue),
    // Page Lifecycle: a frozen page (a background tab, a device's sleep) runs again.
    port.listen('resume', checkDue),
    port.listen('pageshow', (event) => {
      if (!(event as PageTransitionEvent).persisted) return checkDue();
      // Back from the identity service: the redirect did not happen here.
      state.redirectAbandoned();
      // Restored after another tab signed out: show nothing of the person.
      if (vault.tokens() && storage.readHint() !== 'had-session') signOut();
      else checkDue();
    }),
  ];
  return () => removers.forEach((remove) => remove());
}
