// The app's one auth instance, and how a load function reaches it: the root layout's load returns it,
// so a page's load takes it from `await parent()` (src/routes/orders/+page.ts).
import { browser } from '$app/environment';
import { createAuth, type Auth, type StartResult } from '@pkce-spa/auth';
import { PRERENDER_OPTIONS, loadConfig, type Claims } from './config';

export interface AppAuth {
  auth: Auth<Claims>;
  /** What start() resolves to: after a completed sign-in, where the app navigates (the root layout does). */
  started: Promise<StartResult>;
  /** The API the orders page calls with auth.fetch, from /config.json. */
  apiUrl: string | null;
}

let app: Promise<AppAuth> | undefined;

/**
 * In the browser, one instance for the page's life, made from /config.json and started at once: start()
 * is at work before any page's load awaits auth.settled(). (Started in the layout's onMount instead, it
 * would never settle for such a load: components mount only after their loads have finished.)
 * Prerendering (Node) gets an instance per page that is never started: its session stays loading, so
 * auth.settled() resolves at once there and each page is rendered in its loading state.
 */
export function appAuth(fetch: typeof globalThis.fetch): Promise<AppAuth> {
  if (!browser)
    return Promise.resolve({ auth: createAuth<Claims>(PRERENDER_OPTIONS), started: Promise.resolve({}), apiUrl: null });
  // Kept across loads: a layout load that runs again (invalidateAll) gets the same instance and session.
  app ??= loadConfig(fetch, location.origin).then(({ authOptions, apiUrl }) => {
    const auth = createAuth<Claims>(authOptions);
    return { auth, started: auth.start(), apiUrl };
  });
  // A config.json that could not be read is asked for again by the next load.
  app.catch(() => (app = undefined));
  return app;
}
