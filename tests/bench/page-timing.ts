// What each document of the app reports about itself: when it started (its time origin, and whether
// it is an authorization callback), when the signed-in user's claims were first painted, and when a
// stranger's **Sign in** button was.
import type { BrowserContext } from 'playwright-core';

export type PageReport =
  | { kind: 'document'; callback: boolean; timeOrigin: number }
  | { kind: 'painted'; timeOrigin: number; at: number }
  | { kind: 'signin'; timeOrigin: number; at: number };

export interface PageReports {
  /** Resolves with the first report (already received or still to come) after `since` that matches. */
  next<K extends PageReport['kind']>(
    kind: K,
    match: (r: Extract<PageReport, { kind: K }>) => boolean,
    since: number,
    timeoutMs: number,
  ): Promise<Extract<PageReport, { kind: K }>>;
  /** How many reports there are so far; pass it as `since` to wait only for later ones. */
  count(): number;
}

const BINDING = '__benchReport';

/**
 * Installs the reporter in every document of the app's origin. "Painted" is the first animation
 * frame after [data-claim="sub"] appears, the frame that shows it, in the document's own timeline;
 * "signin" likewise for the first rendered button whose text is "Sign in".
 * Only booleans and times leave the page: never the URL, which may carry a code.
 */
export async function watchPages(context: BrowserContext, appOrigin: string): Promise<PageReports> {
  const reports: PageReport[] = [];
  const waiters = new Set<() => void>();
  await context.exposeBinding(BINDING, (_source, report: PageReport) => {
    reports.push(report);
    for (const wake of waiters) wake();
  });
  await context.addInitScript(
    ({ origin, binding }) => {
      if (location.origin !== origin) return;
      const report = (data: object) => (window as unknown as Record<string, (d: object) => void>)[binding](data);
      const { timeOrigin } = performance;
      report({ kind: 'document', callback: /[?&]code=/.test(location.search), timeOrigin });
      // Attributes too for the button: a page may hold it hidden and show it by changing one.
      const shown = (kind: 'painted' | 'signin', appeared: () => boolean, attributes: boolean) => {
        const observer = new MutationObserver(() => {
          if (!appeared()) return;
          observer.disconnect();
          requestAnimationFrame(() => report({ kind, timeOrigin, at: performance.now() }));
        });
        observer.observe(document, { childList: true, subtree: true, attributes });
      };
      shown('painted', () => !!document.querySelector('[data-claim="sub"]'), false);
      shown(
        'signin',
        () => [...document.querySelectorAll('button')].some((b) => b.textContent?.trim() === 'Sign in' && b.checkVisibility()),
        true,
      );
    },
    { origin: appOrigin, binding: BINDING },
  );

  return {
    count: () => reports.length,
    next(kind, match, since, timeoutMs) {
      type R = Extract<PageReport, { kind: typeof kind }>;
      const find = () => reports.slice(since).find((r): r is R => r.kind === kind && match(r as R));
      return new Promise<R>((resolve, reject) => {
        const wake = () => {
          const found = find();
          if (!found) return;
          cleanup();
          resolve(found);
        };
        const timer = setTimeout(() => (cleanup(), reject(new Error(`no "${kind}" report within ${timeoutMs} ms`))), timeoutMs);
        const cleanup = () => (clearTimeout(timer), waiters.delete(wake));
        waiters.add(wake);
        wake();
      });
    },
  };
}
