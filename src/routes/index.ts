import { parse } from 'regexparam';
import { wrap } from 'svelte-spa-router/wrap';
import Home from './Home.svelte';

/**
 * The route table: the single source of the app's pages, for the router and for `returnTo`. The start
 * page is what a callback shows, so it comes with the app; every other page loads when visited.
 */
export const routes = {
  '/': Home,
  '/signin': wrap({ asyncComponent: () => import('./SignIn.svelte') }),
  '/profile': Home,
  '/api': wrap({ asyncComponent: () => import('./Api.svelte') }),
  '/notes': wrap({ asyncComponent: () => import('./Notes.svelte') }),
  '*': wrap({ asyncComponent: () => import('./NotFound.svelte') }),
};

/** Pages a sign-in may return to: every route of the table but the sign-in page and the catch-all. */
const returnRoutes = Object.keys(routes)
  .filter((path) => path !== '/signin' && path !== '*')
  .map((path) => parse(path).pattern);

/** `returnTo` when it names one of the app's pages (with its query), else undefined. */
export function appRoute(returnTo: string | null | undefined): string | undefined {
  if (typeof returnTo !== 'string' || !returnTo.startsWith('/') || returnTo.length > 512) return undefined;
  const [path] = returnTo.split('?');
  return returnRoutes.some((pattern) => pattern.test(path)) ? returnTo : undefined;
}

/** The router's page now, as a `returnTo`. */
export const routeOf = ({ location, querystring }: { location: string; querystring?: string }) =>
  querystring ? `${location}?${querystring}` : location;
