// The pending sign-in (RFC 7636 verifier, state, nonce) survives the trip to the identity service in
// sessionStorage: per tab, keyed by state, single-use and short-lived (RFC 9700 §4.7, RFC 10017 §6.1).

export interface PendingSignIn {
  state: string;
  codeVerifier: string;
  /** Present when `openid` was requested (OIDC Core §3.1.2.1). */
  nonce?: string;
  /** The app route to show after sign-in. */
  returnTo: string;
  /** True for a silent `prompt=none` attempt, whose failure means "signed out", not an error. */
  silent: boolean;
  createdAt: number;
}

const PREFIX = 'auth:tx:';
export const PENDING_TTL_MS = 10 * 60 * 1000;

function keys(): string[] {
  return Object.keys(sessionStorage).filter((key) => key.startsWith(PREFIX));
}

function parse(raw: string | null): PendingSignIn | undefined {
  try {
    const tx = JSON.parse(raw ?? 'null');
    const valid =
      typeof tx?.state === 'string' &&
      typeof tx.codeVerifier === 'string' &&
      (tx.nonce === undefined || typeof tx.nonce === 'string') &&
      typeof tx.returnTo === 'string' &&
      typeof tx.silent === 'boolean' &&
      typeof tx.createdAt === 'number';
    return valid ? tx : undefined;
  } catch {
    return undefined;
  }
}

const expired = (tx: PendingSignIn, now: number) => !(now - tx.createdAt >= 0 && now - tx.createdAt < PENDING_TTL_MS);

/** Stores a new pending sign-in, dropping expired ones left by abandoned attempts. */
export function savePending(tx: PendingSignIn, now = Date.now()): void {
  for (const key of keys()) {
    const old = parse(sessionStorage.getItem(key));
    if (!old || expired(old, now)) sessionStorage.removeItem(key);
  }
  sessionStorage.setItem(PREFIX + tx.state, JSON.stringify(tx));
}

/** Removes and returns the pending sign-in for `state`, if there is an unexpired one. */
export function takePending(state: string | null, now = Date.now()): PendingSignIn | undefined {
  if (!state) return undefined;
  const key = PREFIX + state;
  const tx = parse(sessionStorage.getItem(key));
  sessionStorage.removeItem(key);
  return tx && tx.state === state && !expired(tx, now) ? tx : undefined;
}

/** Forgets every pending sign-in of this tab. */
export function clearPending(): void {
  for (const key of keys()) sessionStorage.removeItem(key);
}
