// What happens to the session, told to the app as it happens: for telemetry and logs, never to decide
// what a view shows (the session store does that). The session's transitions (session.ts) and the
// engine's transitions (host/client.ts) emit, so events cannot drift from the state. Payloads carry no token and
// no claim beyond `sub`; errors are AuthErrors without their cause. On the sign-in path: kept tiny.
import type { AuthError } from '../protocol/errors';

/**
 * Why this tab signed out: `user` (auth.signOut() here), `other-tab` (another tab of the session signed
 * out), `idle` (nobody used any tab of the session for the idle timeout), `provider` (the provider's
 * sign-out returned to this page, or a silent restore found the provider's session gone).
 */
export type SignOutReason = 'user' | 'other-tab' | 'idle' | 'provider';

/** Every event an instance emits, by type, with its payload. */
export interface AuthEvents {
  /** A session began in this tab: a sign-in or step-up, a restore, or one adopted from another tab. */
  'signed-in': { sub: string };
  /** The access token was renewed (here, or by the tab that renews for all); `expiresAt` is epoch ms. */
  renewed: { expiresAt: number };
  /** A renewal failed and the session goes on, to be tried again (the network, a timeout). */
  'renew-failed': { error: AuthError };
  /** The session ended on its own: expiry without renewal, or a refused refresh token (`error`). */
  expired: { error?: AuthError };
  'signed-out': { reason: SignOutReason };
  /** The session cannot reach the provider; it is kept. */
  offline: Record<string, never>;
  /** The provider can be reached again. */
  online: Record<string, never>;
  /** A sign-in, callback, restore or step-up failed (the session shows it as `error`). */
  error: { error: AuthError };
}

export type AuthEventType = keyof AuthEvents;
export type AuthListener<K extends AuthEventType> = (event: AuthEvents[K]) => void;

/**
 * A listener's own failure, reported as the browser reports an uncaught error (window `error`, the
 * console); where there is no reportError (Node, happy-dom), on the console.
 */
const report = (error: unknown) => (globalThis.reportError ?? console.error)(error);

/** The listeners of one instance (auth.ts), for the session's transitions to tell. */
export interface Events {
  /** Calls `listener` for every event of `type`; returns its unsubscribe, idempotent. */
  on<K extends AuthEventType>(type: K, listener: AuthListener<K>): () => void;
  /**
   * Tells the listeners of `type` in the order they came, at once. One that throws is reported and
   * stops neither the others nor the transition that emitted.
   */
  emit<K extends AuthEventType>(type: K, event: AuthEvents[K]): void;
  /** Drops every listener: destroy(). */
  clear(): void;
}

export function createEvents(): Events {
  // One entry per registration: the same function registered twice is called twice, and each `on` removes its own.
  const listeners = new Set<[AuthEventType, AuthListener<never>]>();
  return {
    on(type, listener) {
      const entry: [AuthEventType, AuthListener<never>] = [type, listener];
      listeners.add(entry);
      return () => void listeners.delete(entry);
    },
    emit<K extends AuthEventType>(type: K, event: AuthEvents[K]) {
      for (const [to, listener] of listeners)
        if (to === type)
          try {
            (listener as AuthListener<K>)(event);
          } catch (error) {
            report(error);
          }
    },
    clear: () => listeners.clear(),
  };
}
