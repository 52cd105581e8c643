// The pending sign-in (RFC 7636 verifier, state, nonce) survives the trip to the identity service in
// per-tab storage: one at a time, single-use and short-lived (RFC 9700 §4.7, RFC 10017 §6.1).

export interface PendingSignIn {
  state: string;
  codeVerifier: string;
  /** Present when `openid` was requested (OIDC Core §3.1.2.1). */
  nonce?: string;
  /** The app route to show after sign-in. */
  returnTo: string;
  /** True for a silent `prompt=none` attempt, whose refusal means "signed out", not an error. */
  silent: boolean;
  createdAt: number;
}

const KEY = 'auth:tx';
export const PENDING_TTL_MS = 10 * 60 * 1000;

/** Stores a new pending sign-in; an abandoned earlier attempt of this tab can no longer be answered. */
export function savePending(storage: Storage, tx: PendingSignIn): void {
  storage.setItem(KEY, JSON.stringify(tx));
}

/** Removes the pending sign-in and returns it when it answers `state` and has not expired. */
export function takePending(storage: Storage, state: string | null, now: number): PendingSignIn | undefined {
  const raw = storage.getItem(KEY);
  clearPending(storage);
  try {
    const tx = JSON.parse(raw ?? 'null');
    // Written by this module; checked anyway, as storage is shared with every script of the origin.
    const valid = ['state', 'codeVerifier', 'returnTo'].every((key) => typeof tx?.[key] === 'string');
    const age = now - tx?.createdAt;
    return valid && state === tx.state && age >= 0 && age < PENDING_TTL_MS ? tx : undefined;
  } catch {
    return undefined;
  }
}

/** Forgets the pending sign-in of this tab. */
export function clearPending(storage: Storage): void {
  storage.removeItem(KEY);
}
