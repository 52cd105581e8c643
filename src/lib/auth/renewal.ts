// The tokens of the signed-in session, in this closure only, and their renewal: shortly before expiry
// when a refresh token allows it, else the session ends at expiry (RFC 10017 §6.3, tokens in memory).
import { toAuthError, type AuthError } from './errors';
import type { TokenSet } from './protocol';

/** setTimeout fires at once for delays above 2^31-1 ms. */
const MAX_TIMER_MS = 2 ** 31 - 1;
const RETRY_MS = 15_000;
/** However short the token's life, renewals are at least this far apart: no tight loop. */
const MIN_RENEW_DELAY_MS = 2_000;

export interface RenewalHooks {
  /** Exchanges the refresh token; the signal aborts it when the session ends. None: a session that cannot be renewed. */
  refresh?(current: TokenSet, signal: AbortSignal): Promise<TokenSet>;
  renewed(next: TokenSet): void;
  /** The session could not go on; `ended` is what it held, kept only to sign out with. */
  expired(err: AuthError | undefined, ended: TokenSet | undefined): void;
}

export function createRenewal(port: { now(): number }, hooks: RenewalHooks) {
  let tokens: TokenSet | undefined;
  let renewal: Promise<boolean> | undefined;
  // Renewals and exchanges run one after another: each uses, and may rotate, the one refresh token.
  let queue: Promise<unknown> | undefined;
  let dueAt = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  // Every request of the current session carries this signal; drop() aborts it so late answers die.
  let session = new AbortController();

  function schedule(at: number) {
    clearTimeout(timer);
    dueAt = at;
    timer = setTimeout(due, Math.min(Math.max(at - port.now(), 0), MAX_TIMER_MS));
  }

  function due() {
    if (!tokens) return;
    if (port.now() < dueAt) return schedule(dueAt);
    if (tokens.refreshToken) void renew(false);
    else expire();
  }

  function adopt(next: TokenSet) {
    tokens = next;
    const now = port.now();
    const renewAt = Math.max(now + MIN_RENEW_DELAY_MS, next.expiresAt - Math.min(60_000, (next.expiresAt - now) / 5));
    schedule(next.refreshToken ? renewAt : next.expiresAt);
  }

  function drop() {
    const had = tokens;
    tokens = undefined;
    clearTimeout(timer);
    session.abort();
    session = new AbortController();
    return had;
  }

  function expire(err?: AuthError) {
    hooks.expired(err, drop());
  }

  async function refresh(tokenRejected: boolean): Promise<boolean> {
    const current = tokens;
    if (!current?.refreshToken || !hooks.refresh) {
      expire();
      return false;
    }
    try {
      const next = await hooks.refresh(current, session.signal);
      if (tokens !== current) return false;
      adopt(next);
      hooks.renewed(next);
      return true;
    } catch (e) {
      if (tokens !== current) return false;
      const err = toAuthError(e);
      const retryAt = port.now() + RETRY_MS;
      const transient = err.code === 'timeout' || err.code === 'unreachable';
      if (transient && !tokenRejected && retryAt < current.expiresAt) schedule(retryAt);
      else expire(err);
      return false;
    }
  }

  /** Runs `task` once every earlier renewal and exchange has settled; at once when none is under way. */
  function serial<T>(task: () => Promise<T>): Promise<T> {
    const run = queue ? queue.then(task) : task();
    const settled = (queue = run.catch(() => {}));
    void settled.then(() => queue === settled && (queue = undefined));
    return run;
  }

  /** One renewal at a time, shared by every caller (single flight); true when new tokens arrived. */
  function renew(tokenRejected: boolean): Promise<boolean> {
    renewal ??= serial(() => refresh(tokenRejected)).finally(() => (renewal = undefined));
    return renewal;
  }

  return {
    current: () => tokens,
    /** Aborted when the session ends. */
    signal: () => session.signal,
    adopt,
    /** Forgets the tokens, stops the timer and aborts the session's requests; returns what it held. */
    drop,
    expire,
    renew,
    /** Runs `task` in turn with renewals (see exchange.ts): each may use, and rotate, the one refresh token. */
    serial,
    /** Timers stall while a laptop sleeps; call when the page comes back. */
    checkDue: () => tokens && port.now() >= dueAt && due(),
  };
}

export type Renewal = ReturnType<typeof createRenewal>;
