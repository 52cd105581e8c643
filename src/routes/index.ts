import { parse } from 'regexparam';
import { safeRoute } from '../lib/auth';
import Home from './Home.svelte';
import SignIn from './SignIn.svelte';
import Api from './Api.svelte';

import NotFound from './NotFound.svelte';

/** The route table: the single source of the app's pages, for the router and for `returnTo`. */
export const routes = {
  '/': Home,
  '/signin': SignIn,
  '/profile': Home,
  '/api': Api,

  '*': NotFound,
};

/** Pages a sign-in may return to: every route of the table but the sign-in page and the catch-all. */
const returnRoutes = Object.keys(routes)
  .filter((path) => path !== '/signin' && path !== '*')
  .map((path) => parse(path).pattern);

/** `returnTo` when it names one of the app's pages (with its query), else undefined. */
export function appRoute(returnTo: string | null | undefined): string | undefined {
  const route = safeRoute(returnTo);
  return route && returnRoutes.some((pattern) => pattern.test(route.split('?')[0])) ? route : undefined;
}
