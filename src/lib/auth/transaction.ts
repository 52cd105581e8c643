// The pending sign-in (RFC 7636 verifier, state, nonce) survives the trip to the identity service in
// per-tab storage: keyed by state, single-use and short-lived (RFC 9700 §4.7, RFC 10017 §6.1).

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

const PREFIX = 'auth:tx:';
export const PENDING_TTL_MS = 10 * 60 * 1000;

const keys = (storage: Storage) => Object.keys(storage).filter((key) => key.startsWith(PREFIX));

function parse(raw: string | null): PendingSignIn | undefined {
  try {
    const tx = JSON.parse(raw ?? 'null');
    // Written by this module; checked anyway, as storage is shared with every script of the origin.
    const valid = ['state', 'codeVerifier', 'returnTo'].every((key) => typeof tx?.[key] === 'string') && tx.createdAt > 0;
    return valid ? tx : undefined;
  } catch {
    return undefined;
  }
}

const expired = (tx: PendingSignIn, now: number) => !(now - tx.createdAt >= 0 && now - tx.createdAt < PENDING_TTL_MS);

/** Stores a new pending sign-in; one per tab, so an abandoned earlier attempt can no longer be answered. */
export function savePending(storage: Storage, tx: PendingSignIn): void {
  clearPending(storage);
  storage.setItem(PREFIX + tx.state, JSON.stringify(tx));
}

/**
 * Removes and returns the unexpired pending sign-in for `state`, and forgets every other one of this
 * tab, so no other attempt can be answered later.
 */
export function takePending(storage: Storage, state: string | null, now: number): PendingSignIn | undefined {
  const tx = state ? parse(storage.getItem(PREFIX + state)) : undefined;
  clearPending(storage);
  return tx && tx.state === state && !expired(tx, now) ? tx : undefined;
}

/** Forgets every pending sign-in of this tab. */
export function clearPending(storage: Storage): void {
  for (const key of keys(storage)) storage.removeItem(key);
}
