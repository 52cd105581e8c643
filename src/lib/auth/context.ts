// One auth instance for a component tree, handed down through Svelte context (as TanStack Query's
// client is): setAuth in the root component, getAuth in any view.
import { getContext, setContext } from 'svelte';
import type { Auth } from './auth';

const KEY = Symbol('auth');

/** Makes `auth` the instance of this component and its children; call in the root component. */
export const setAuth = (auth: Auth): Auth => setContext(KEY, auth);

/** The instance a parent set with setAuth (or `authContext` in mount/render). */
export function getAuth(): Auth {
  const auth = getContext<Auth | undefined>(KEY);
  if (!auth) throw new Error('getAuth() needs setAuth(auth) in the root component');
  return auth;
}

/** The `context` option of Svelte's mount() and @testing-library's render() for `auth`. */
export const authContext = (auth: Auth): Map<symbol, Auth> => new Map([[KEY, auth]]);
