// The session a view reads: a store, and a reactive `current`, of a state that never holds a token.
// Its transitions are the only ways the state changes.
import type { Readable } from 'svelte/store';
import { createSubscriber } from 'svelte/reactivity';
import { publicError, type AuthError, type AuthErrorCode, type AuthErrorDetails } from '../protocol/errors';
import type { Events, SignOutReason } from '../page/events';
import type { Claims, StandardClaims } from '../protocol/steps';

export type SessionStatus = 'loading' | 'signed-out' | 'redirecting' | 'signed-in' | 'expired' | 'error';

export interface SessionError extends AuthErrorDetails {
  code: AuthErrorCode;
  /** Where a new attempt should come back to: the app's own string, when the failed attempt had one. */
  returnTo?: string;
}

export interface SessionState<C extends Claims = StandardClaims> {
  status: SessionStatus;
  /** Every claim userinfo returned, while signed in. */
  user: C | null;
  /** When the access token expires, epoch milliseconds. */
  expiresAt: number | null;
  error: SessionError | null;
  /**
   * A person is known here: signed in, or was and has not signed out (the session expired, or failed
   * later, e.g. a step-up or a restore of this browser's session). False for a visitor and for a first
   * sign-in that failed. Offer sign-out exactly when it is true.
   */
  known: boolean;
  /**
   * Signed in, but the last renewal could not reach the identity service (offline, a timeout): the person
   * and the tokens are kept, past the access token's expiry too; meanwhile requests that need a new token
   * fail `unreachable`. Renewal retries by itself (the network back, the page shown or resumed, and with
   * backoff); false again once it succeeds, and in every other state.
   */
  offline: boolean;
  /**
   * Signed in, but the session cannot be renewed without the person (no refresh token, and the hidden
   * frame cannot work here): it ends at this time, epoch milliseconds. Show a warning with a way to stay:
   * `signIn()` comes back to this page. Null while it renews by itself, and in every other state.
   */
  endsAt: number | null;
}

/** A Svelte store with a reactive `current` for runes code (`.svelte` and `.svelte.ts` files). */
export interface ReactiveStore<T> extends Readable<T> {
  readonly current: T;
}

/**
 * A store (Svelte's store contract) whose readable side also has `current`, reactive through
 * createSubscriber: reading it in an effect subscribes, so a resource loads while it is shown.
 */
export function reactiveStore<T>(initial: T, start?: () => () => void) {
  let value = initial;
  let stop: (() => void) | undefined;
  const runs = new Set<(value: T) => void>();
  const set = (next: T) => {
    value = next;
    for (const run of runs) run(next);
  };
  const subscribe = (run: (value: T) => void) => {
    if (!runs.size) stop = start?.();
    runs.add(run);
    run(value);
    return () => {
      runs.delete(run);
      if (!runs.size) stop?.();
    };
  };
  const track = createSubscriber((update) => {
    let ready = false;
    const unsubscribe = subscribe(() => ready && update());
    ready = true;
    return unsubscribe;
  });
  const readable: ReactiveStore<T> = {
    subscribe,
    get current() {
      track();
      return value;
    },
  };
  return { set, update: (fn: (value: T) => T) => set(fn(value)), readable };
}

export const sessionState = <C extends Claims>(
  status: SessionStatus,
  error: SessionError | null = null,
  known = false,
): SessionState<C> => ({ status, user: null, expiresAt: null, error, known, offline: false, endsAt: null });

/** The session's transitions: the only ways its state changes, and what emits the session's events. */
export interface Session<C extends Claims> {
  /** What views read: never a token. */
  session: ReactiveStore<SessionState<C>>;
  /** Signed out; `reason` when a session ended here, none when a page load settles without one. */
  signedOut(reason?: SignOutReason): void;
  /** The person stays known while the page leaves (a step-up), and as the page comes back. */
  redirecting(): void;
  /** The page came back without the redirect having happened. */
  redirectAbandoned(): void;
  signedIn(user: C, expiresAt: number): void;
  /** Renewed: online again when it was offline, and told in that order. */
  renewed(expiresAt: number): void;
  /** The session cannot renew without the person: it ends at `endsAt`. */
  ending(endsAt: number): void;
  /** A renewal could not reach the identity service: the session goes on, offline, until one does. */
  offline(): void;
  /**
   * Signed out, with an error that offers a new attempt returning to `returnTo`. A known person stays
   * known; `had`: this browser had a session the person did not end (a page load knows no one yet).
   */
  failed(err: AuthError, returnTo?: string, had?: boolean): void;
  /** The session ended on its own; a new sign-in returns to `returnTo`. Its person stays known. */
  expired(err?: AuthError, returnTo?: string): void;
  /** Signed out with a notice that is not a failure of the sign-in (a stale link). */
  notice(code: AuthErrorCode): void;
}

export function createSession<C extends Claims>(
  { emit }: Pick<Events, 'emit'>,
  initial: SessionState<C> = sessionState('loading'),
): Session<C> {
  const { set, update, readable } = reactiveStore(initial);
  // What showed before a redirect began: Back from the identity service may bring this page back from
  // the back/forward cache, where it must not stay "redirecting" for ever.
  let beforeRedirect = initial;
  return {
    session: readable,
    signedOut(reason) {
      set(sessionState('signed-out'));
      if (reason) emit('signed-out', { reason });
    },
    redirecting: () => {
      beforeRedirect = readable.current;
      set(sessionState('redirecting', null, beforeRedirect.known));
    },
    redirectAbandoned: () => readable.current.status === 'redirecting' && set(beforeRedirect),
    signedIn(user, expiresAt) {
      set({ status: 'signed-in', user, expiresAt, error: null, known: true, offline: false, endsAt: null });
      emit('signed-in', { sub: user.sub });
    },
    renewed(expiresAt) {
      const wasOffline = readable.current.offline;
      update((s) => ({ ...s, expiresAt, offline: false }));
      if (wasOffline) emit('online', {});
      emit('renewed', { expiresAt });
    },
    ending: (endsAt) => readable.current.status === 'signed-in' && update((s) => ({ ...s, endsAt })),
    offline() {
      if (readable.current.offline) return;
      update((s) => ({ ...s, offline: true }));
      emit('offline', {});
    },
    failed(err, returnTo, had = false) {
      set(sessionState('error', { ...err.toJSON(), returnTo }, had || readable.current.known));
      emit('error', { error: publicError(err) });
    },
    expired(err, returnTo) {
      set(sessionState('expired', { ...err?.toJSON(), code: 'session_expired', returnTo }, true));
      emit('expired', { error: err && publicError(err) });
    },
    notice: (code) => set({ ...sessionState<C>('signed-out'), error: { code } }),
  };
}

/** The session once it is neither loading nor redirecting: at once when it is settled already. */
export function settledOf<C extends Claims>(session: ReactiveStore<SessionState<C>>): Promise<SessionState<C>> {
  return new Promise((resolve) => {
    const stop = session.subscribe((s) => {
      if (s.status != 'loading' && s.status != 'redirecting') {
        resolve(s);
        // Later: `stop` exists once subscribe() returns, and it runs this at once when already settled.
        queueMicrotask(() => stop());
      }
    });
  });
}
