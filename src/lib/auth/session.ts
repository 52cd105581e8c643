// The session a view reads: a store, and a reactive `current`, of a state that never holds a token.
// Its transitions are the only ways the state changes.
import { fromStore, writable, type Readable } from 'svelte/store';
import type { AuthError, AuthErrorCode, AuthErrorDetails } from './errors';
import type { UserProfile } from './protocol';

export type SessionStatus = 'loading' | 'signed-out' | 'redirecting' | 'signed-in' | 'expired' | 'error';

export interface SessionError extends AuthErrorDetails {
  code: AuthErrorCode;
  /** The app route a new attempt should come back to. */
  returnTo: string;
}

export interface SessionState {
  status: SessionStatus;
  user: UserProfile | null;
  /** When the access token expires, epoch milliseconds. */
  expiresAt: number | null;
  error: SessionError | null;
}

/** A Svelte store with a reactive `current` for runes code (`.svelte` and `.svelte.ts` files). */
export interface ReactiveStore<T> extends Readable<T> {
  readonly current: T;
}

/** A writable store whose readable side also has `current`. */
export function reactiveStore<T>(initial: T, start?: Parameters<typeof writable<T>>[1]) {
  const store = writable(initial, start);
  const reactive = fromStore(store);
  const readable: ReactiveStore<T> = {
    subscribe: store.subscribe,
    get current() {
      return reactive.current;
    },
  };
  return { ...store, readable };
}

const state = (status: SessionStatus, error: SessionError | null = null): SessionState => ({
  status,
  user: null,
  expiresAt: null,
  error,
});

export function createSession() {
  const { set, update, readable } = reactiveStore(state('loading'));
  return {
    session: readable,
    signedOut: () => set(state('signed-out')),
    redirecting: () => set(state('redirecting')),
    signedIn: (user: UserProfile, expiresAt: number) => set({ status: 'signed-in', user, expiresAt, error: null }),
    renewed: (expiresAt: number) => update((s) => ({ ...s, expiresAt })),
    /** Signed out, with an error that offers a new attempt returning to `returnTo`. */
    failed: (err: AuthError, returnTo: string) => set(state('error', { ...err.toJSON(), returnTo })),
    /** The session ended on its own; a new sign-in returns to `returnTo`. */
    expired: (returnTo: string, err?: AuthError) =>
      set(state('expired', { ...err?.toJSON(), code: 'session_expired', returnTo })),
    /** Signed out with a notice that is not a failure of the sign-in (a stale link). */
    notice: (code: AuthErrorCode) => set({ ...state('signed-out'), error: { code, returnTo: '/profile' } }),
  };
}
