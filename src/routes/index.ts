import { safeRoute } from '../lib/auth';
import Home from './Home.svelte';
import SignIn from './SignIn.svelte';
import Profile from './Profile.svelte';
import Api from './Api.svelte';
import NotFound from './NotFound.svelte';

export const routes = {
  '/': Home,
  '/signin': SignIn,
  '/profile': Profile,
  '/api': Api,
  '*': NotFound,
};

/** Pages a sign-in may return to: the app's own routes, never /signin itself. */
const RETURN_ROUTES = new Set(['/', '/profile', '/api']);

/** `returnTo` when it names one of the app's pages (with its query), else undefined. */
export function appRoute(returnTo: string | null | undefined): string | undefined {
  const route = safeRoute(returnTo);
  return route && RETURN_ROUTES.has(route.split('?')[0]) ? route : undefined;
}
