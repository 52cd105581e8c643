// Async data behind the access token as a store, in the shape of TanStack Query's: status, data, error.
import { writable, type Readable } from 'svelte/store';
import { AuthError, toAuthError } from './errors';
import type { AuthFetchInit, SessionState } from './session';

export type ResourceStatus = 'idle' | 'loading' | 'ok' | 'error' | 'unauthenticated';

export interface ResourceState<T> {
  status: ResourceStatus;
  data: T | null;
  error: AuthError | null;
}

export interface AuthResource<T> extends Readable<ResourceState<T>> {
  /** Loads again, aborting a load in progress. */
  reload(): void;
}

export interface AuthResourceOptions<T> {
  init?: Omit<AuthFetchInit, 'signal'>;
  /** Turns a successful response into data; the default parses JSON. */
  read?: (response: Response) => Promise<T>;
  /** Data already known for a newly signed-in user, shown instead of a first request. */
  initial?: () => T | null;
}

const IDLE = { status: 'idle', data: null, error: null } as const;

/**
 * A store that loads `url` with the token while someone subscribes and the session is signed in;
 * aborts when the last subscriber leaves or the user signs out, and clears data when the user changes.
 */
export function createResource<T>(
  session: Readable<SessionState>,
  authFetch: (url: string, init?: AuthFetchInit) => Promise<Response>,
  url: string,
  { init, read = (response) => response.json(), initial }: AuthResourceOptions<T> = {},
): AuthResource<T> {
  let controller: AbortController | undefined;
  let loadedFor: string | undefined;
  let signedIn = false;

  const store = writable<ResourceState<T>>(IDLE, () => {
    const unsubscribe = session.subscribe(({ status, user }) => {
      signedIn = status === 'signed-in';
      if (signedIn && user?.sub !== loadedFor) {
        loadedFor = user?.sub;
        const data = initial?.();
        if (data) store.set({ status: 'ok', data, error: null });
        else load(true);
      } else if (status === 'signed-out' || status === 'expired' || status === 'error') {
        abort();
        loadedFor = undefined;
        store.set({ status: 'unauthenticated', data: null, error: null });
      }
    });
    return () => {
      unsubscribe();
      abort();
      loadedFor = undefined;
      store.set(IDLE);
    };
  });

  function abort() {
    controller?.abort();
    controller = undefined;
  }

  async function load(newUser = false) {
    abort();
    const mine = (controller = new AbortController());
    store.update((s) => ({ status: 'loading', data: newUser ? null : s.data, error: null }));
    try {
      const response = await authFetch(url, { ...init, signal: mine.signal });
      if (!response.ok) throw new AuthError('http_error', { status: response.status });
      const data = await read(response);
      if (mine === controller) store.set({ status: 'ok', data, error: null });
    } catch (e) {
      // A late answer for an aborted load (sign-out, user switch, reload) must not reach the screen.
      if (mine !== controller || mine.signal.aborted) return;
      const error = toAuthError(e);
      const unauthenticated = error.code === 'session_expired' || error.code === 'unauthenticated';
      store.set({ status: unauthenticated ? 'unauthenticated' : 'error', data: null, error });
    }
  }

  return {
    subscribe: store.subscribe,
    reload: () => {
      if (signedIn) load();
    },
  };
}
