// Every name the auth module shares with the rest of its origin: storage keys, the tabs' channel and
// their locks, each carrying the app's issuer and client id, so two apps (or two instances) on one
// origin never read each other's records or join each other's session. Nothing secret is stored. Per
// tab: the pending sign-in (RFC 7636 verifier, state, nonce), single-use and short-lived (RFC 9700 §4.7,
// RFC 10017 §6.1), the pending sign-out's `state`, and when the last silent restore began. Per
// browser: one non-secret hint.
import type { PendingSignIn } from '../protocol/steps';

/** The two stores, as the browser port has them. */
export interface Stores {
  /** Per tab: sessionStorage in a browser. */
  perTab: Storage;
  /** Per browser: localStorage in a browser. */
  perBrowser: Storage;
}

export const PENDING_TTL_MS = 10 * 60 * 1000;

/**
 * "had-session" when this browser had a session (a reason to try prompt=none), "signed-out" when the
 * person signed out (the next interactive sign-in lets them choose an account: prompt=login).
 */
export type Hint = 'had-session' | 'signed-out' | undefined;

/** The names of one app (issuer and client id) on its origin. */
export interface AppNames {
  /** Carried by every message on the channel, and checked. */
  app: string;
  /** The BroadcastChannel of the app's token-free signal (host/signal.ts). */
  channel: string;
  /** Prefix of the Web Locks the app's pages hold while they live: the engine's worker waits on them. */
  lock: string;
  /** The app's hidden frame (page/frame.ts): its window name, and the Web Lock that keeps it one at a time. */
  frame: string;
  /** A storage key of this app. */
  key(name: string): string;
}

/** How every app's hidden frame is named (AppNames.frame): a page in any of them is no page of its own. */
export const FRAME_PREFIX = 'auth frame ';

/** The shared names of the app with this issuer and client id. */
export function appNames(issuer: string, clientId: string): AppNames {
  // JSON keeps the two apart whatever characters they hold.
  const app = JSON.stringify([issuer, clientId]);
  return {
    app,
    channel: `auth ${app}`,
    lock: `auth page ${app} `,
    frame: FRAME_PREFIX + app,
    key: (name) => `auth:${name} ${app}`,
  };
}

/** Reads and removes `key`: whatever it held can be answered once at most. */
function take(storage: Storage, key: string): string | null {
  const raw = storage.getItem(key);
  storage.removeItem(key);
  return raw;
}

/** The app's records in the browser's stores. */
export interface AppStorage {
  /** Stores a new pending sign-in; an abandoned earlier attempt of this tab can no longer be answered. */
  savePending(tx: PendingSignIn): void;
  /** Removes the pending sign-in and returns it when it answers `state` and has not expired. */
  takePending(state: string | null, now: number): PendingSignIn | undefined;
  /**
   * Whether another instance on this page (another app, or another provider) is waiting for the
   * response with `state`: that callback is its to take, and this instance leaves it in the URL.
   */
  answersOther(state: string | null): boolean;
  /** Remembers the `state` sent with the end-session request, to match the provider's return once. */
  saveSignOut(state: string): void;
  /**
   * Whether another instance on this page signed out with `state`: instances may share a post-logout
   * URI, and the provider's return is that instance's to take, left in the URL by this one.
   */
  signedOutOther(state: string | null): boolean;
  /** True once for the `state` of this tab's pending sign-out; the record is gone either way. */
  takeSignOut(state: string | null): boolean;
  /** Notes that this tab's silent restore began at `now`, epoch ms. */
  noteRestore(now: number): void;
  /** When this tab's last silent restore began, epoch ms (0 if never). */
  lastRestore(): number;
  readHint(): Hint;
  /** A storage that refuses (full, or blocked) loses only the hint: the session shows all the same. */
  writeHint(hint: Exclude<Hint, undefined>): void;
  /** The browser's session is gone (a silent restore was refused): no reason to try again. */
  forgetHint(): void;
  /** Forgets whatever this tab had under way: a sign-in, a sign-out and the restore guard. */
  clearTab(): void;
}

export function appStorage({ perTab, perBrowser }: Stores, names: AppNames): AppStorage {
  const SIGN_IN = names.key('tx');
  const SIGN_OUT = names.key('logout');
  const RESTORE_AT = names.key('restore-at');
  const HINT = names.key('hint');
  return {
    savePending: (tx) => perTab.setItem(SIGN_IN, JSON.stringify(tx)),
    takePending(state, now) {
      try {
        const tx = JSON.parse(take(perTab, SIGN_IN) ?? 'null');
        // Written by this module; checked anyway, as storage is shared with every script of the origin.
        const valid = ['state', 'codeVerifier', 'returnTo'].every((key) => typeof tx?.[key] === 'string');
        const age = now - tx?.createdAt;
        return valid && state === tx.state && age >= 0 && age < PENDING_TTL_MS ? tx : undefined;
      } catch {
        return undefined;
      }
    },
    answersOther(state) {
      for (let i = 0; state !== null && i < perTab.length; i++) {
        const key = perTab.key(i)!;
        if (key === SIGN_IN || !key.startsWith('auth:tx ')) continue;
        try {
          if (JSON.parse(perTab.getItem(key)!)?.state === state) return true;
        } catch {
          // Not a record of this module: not a sign-in waiting.
        }
      }
      return false;
    },
    saveSignOut: (state) => perTab.setItem(SIGN_OUT, state),
    signedOutOther(state) {
      for (let i = 0; state !== null && i < perTab.length; i++) {
        const key = perTab.key(i)!;
        if (key !== SIGN_OUT && key.startsWith('auth:logout ') && perTab.getItem(key) === state) return true;
      }
      return false;
    },
    takeSignOut(state) {
      const sent = take(perTab, SIGN_OUT);
      return sent !== null && sent === state;
    },
    noteRestore: (now) => perTab.setItem(RESTORE_AT, String(now)),
    lastRestore: () => Number(perTab.getItem(RESTORE_AT)) || 0,
    readHint() {
      const raw = perBrowser.getItem(HINT);
      return raw === '1' ? 'had-session' : raw === 'out' ? 'signed-out' : undefined;
    },
    writeHint(hint) {
      try {
        perBrowser.setItem(HINT, hint === 'had-session' ? '1' : 'out');
      } catch {
        // Without the hint, a reload of a lone page finds no reason to restore: the person signs in again.
      }
    },
    forgetHint: () => perBrowser.removeItem(HINT),
    clearTab() {
      for (const key of [SIGN_IN, SIGN_OUT, RESTORE_AT]) perTab.removeItem(key);
    },
  };
}
