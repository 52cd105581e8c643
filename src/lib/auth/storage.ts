// Every storage key of the auth module, and nothing secret in any of them. Per tab: the pending sign-in
// (RFC 7636 verifier, state, nonce), single-use and short-lived (RFC 9700 §4.7, RFC 10017 §6.1), the
// pending sign-out's `state`, and when the last silent restore began. Per browser: one non-secret hint.
import type { PendingSignIn } from './protocol';

/** The two stores, as the browser port has them. */
export interface Stores {
  /** Per tab: sessionStorage in a browser. */
  perTab: Storage;
  /** Per browser: localStorage in a browser. */
  perBrowser: Storage;
}

const SIGN_IN = 'auth:tx';
const SIGN_OUT = 'auth:logout';
const RESTORE_AT = 'auth:restore-at';
/**
 * "1" when this browser had a session (a reason to try prompt=none), "out" when the person signed out
 * (the next interactive sign-in lets them choose an account: prompt=login).
 */
const HINT = 'auth:hint';
export const PENDING_TTL_MS = 10 * 60 * 1000;

export type Hint = 'had-session' | 'signed-out' | undefined;

/** Reads and removes `key`: whatever it held can be answered once at most. */
function take(storage: Storage, key: string): string | null {
  const raw = storage.getItem(key);
  storage.removeItem(key);
  return raw;
}

/** Stores a new pending sign-in; an abandoned earlier attempt of this tab can no longer be answered. */
export function savePending({ perTab }: Stores, tx: PendingSignIn): void {
  perTab.setItem(SIGN_IN, JSON.stringify(tx));
}

/** Removes the pending sign-in and returns it when it answers `state` and has not expired. */
export function takePending({ perTab }: Stores, state: string | null, now: number): PendingSignIn | undefined {
  try {
    const tx = JSON.parse(take(perTab, SIGN_IN) ?? 'null');
    // Written by this module; checked anyway, as storage is shared with every script of the origin.
    const valid = ['state', 'codeVerifier', 'returnTo'].every((key) => typeof tx?.[key] === 'string');
    const age = now - tx?.createdAt;
    return valid && state === tx.state && age >= 0 && age < PENDING_TTL_MS ? tx : undefined;
  } catch {
    return undefined;
  }
}

/** Remembers the `state` sent with the end-session request, to match the provider's return once. */
export const saveSignOut = ({ perTab }: Stores, state: string): void => perTab.setItem(SIGN_OUT, state);

/** True once for the `state` of this tab's pending sign-out; the record is gone either way. */
export const takeSignOut = ({ perTab }: Stores, state: string | null): boolean => {
  const sent = take(perTab, SIGN_OUT);
  return sent !== null && sent === state;
};

export const noteRestore = ({ perTab }: Stores, now: number): void => perTab.setItem(RESTORE_AT, String(now));

/** When this tab's last silent restore began, epoch ms (0 if never). */
export const lastRestore = ({ perTab }: Stores): number => Number(perTab.getItem(RESTORE_AT)) || 0;

export function readHint({ perBrowser }: Stores): Hint {
  const raw = perBrowser.getItem(HINT);
  return raw === '1' ? 'had-session' : raw === 'out' ? 'signed-out' : undefined;
}

export const writeHint = ({ perBrowser }: Stores, hint: Exclude<Hint, undefined>): void =>
  perBrowser.setItem(HINT, hint === 'had-session' ? '1' : 'out');

/** The browser's session is gone (a silent restore was refused): no reason to try again. */
export const forgetHint = ({ perBrowser }: Stores): void => perBrowser.removeItem(HINT);

/** Forgets whatever this tab had under way: a sign-in, a sign-out and the restore guard. */
export function clearTab({ perTab }: Stores): void {
  for (const key of [SIGN_IN, SIGN_OUT, RESTORE_AT]) perTab.removeItem(key);
}
