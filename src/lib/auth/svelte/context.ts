// One auth instance for a component tree, handed down through Svelte context (as TanStack Query's
// client is): setAuth in the root component, or authContext in mount()/render(); getAuth in any view.
import { getContext, setContext } from 'svelte';
import type { Auth } from '../auth';
import type { Claims, StandardClaims } from '../protocol/steps';

const KEY = Symbol('auth');

/** Makes `auth` the instance of this component and its children; call in the root component. */
export const setAuth = <C extends Claims>(auth: Auth<C>): Auth<C> => setContext(KEY, auth);

/** The instance a parent provided with `setAuth(auth)` or `authContext(auth)`. */
export function getAuth<C extends Claims = StandardClaims>(): Auth<C> {
  const auth = getContext<Auth<C> | undefined>(KEY);
  if (!auth) {
    throw new Error(
      'getAuth() found no auth instance: pass context: authContext(auth) to mount(), or call setAuth(auth) in the root component',
    );
  }
  return auth;
}

/** The `context` option of Svelte's mount() and @testing-library's render() for `auth`. */
export const authContext = <C extends Claims>(auth: Auth<C>): Map<symbol, Auth<C>> => new Map([[KEY, auth]]);
