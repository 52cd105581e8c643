// Renewal of the session's tokens, a service of its own beside the vault (as oidc-client-ts keeps its
// silent renew beside the user manager): when (shortly before expiry; a hidden frame's earlier, as it
// loads a page), how (the refresh token, else a hidden frame, else not at all: the end at expiry), once
// for every caller, and what a failure means (classify): the network leaves the session offline with
// backoff, a frame that cannot work announces the end, anything else ends the session.
import type { AuthError } from '../protocol/errors';
import { toAuthError } from '../protocol/failures';
import type { TokenSet } from '../protocol/steps';

/** What a failed grant means for the session. */
export type Failure =
  /** The network, a timeout or an abort: nothing is lost, a later grant may work. */
  | 'transient'
  /** Only the person can give what was asked, at the identity service (RFC 6749 §5.2 `invalid_scope`). */
  | 'interaction'
  /** The refresh token is refused (RFC 6749 §5.2 `invalid_grant`): the session cannot go on. */
  | 'refused'
  /** Any other failure of this one grant. */
  | 'failed';

/** What a failed grant means: the one place this is decided. */
export function classify(err: unknown): Failure {
  const { code, oauthError } = toAuthError(err);
  if (code === 'timeout' || code === 'unreachable' || code === 'aborted') return 'transient';
  if (code === 'interaction_required' || oauthError === 'invalid_scope') return 'interaction';
  return code === 'invalid_grant' ? 'refused' : 'failed';
}

export interface RenewalParts {
  now(): number;
  /** The session's tokens now; undefined when there is no session. */
  tokens(): TokenSet | undefined;
  /** Aborted when the session ends: a renewal's late answer is dropped. */
  signal(): AbortSignal;
  /** Whether a refresh-token grant can be made (one is loaded); none: sessions end at expiry (the test kit). */
  canGrant: boolean;
  /** The refresh-token grant (the vault's, in turn with the others), which keeps what it returns. */
  refresh(): Promise<TokenSet>;
  /** A renewal in a hidden frame, for the same person; none (the `hiddenFrame` option off). */
  frame?(signal: AbortSignal): Promise<TokenSet>;
  /** The frame's tokens become the session's. */
  keep(tokens: TokenSet): void;
  /** The session ends without a sign-out; `error` is the failure that ended it, when one did. */
  end(error?: AuthError): void;
  /** A renewal could not reach the provider: the session goes on offline, its tokens kept, until one does. */
  offline(): void;
  /** A renewal failed for now (the network, a timeout): the session goes on, and the renewal is tried again. */
  retrying(error: AuthError): void;
  /** The hidden frame cannot renew this session (`error` says why): it ends at `endsAt` unless the person signs in. */
  ending(endsAt: number, error: AuthError): void;
}

/** setTimeout fires at once for delays above 2^31-1 ms. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** A renewal that could not reach the provider is tried again after this, doubling up to RETRY_MAX_MS. */
const RETRY_MS = 2_000;
const RETRY_MAX_MS = 60_000;
/** However short the token's life, renewals are at least this far apart: no tight loop. */
const MIN_RENEW_DELAY_MS = 2_000;
/** A refresh-token renewal comes this long before expiry, or at four fifths of the token's life when that is shorter. */
const GRANT_EARLY_MS = 60_000;
/**
 * A hidden frame loads a page of the app, and its failure leaves the person a warning to act on: it begins
 * this long before expiry, or at half the token's life when that is shorter.
 */
const FRAME_EARLY_MS = 5 * 60_000;
/** frames.ts's `reason` when no page of the app is open to hold a frame. */
export const NO_PAGE = 'no page';

/** The renewal of one vault's sessions; see the file's head. */
export interface Renewal {
  /** A new session's tokens (`fresh`: a sign-in, where the frame may be tried again), or renewed ones: planned anew. */
  planned(tokens: TokenSet, fresh?: boolean): void;
  /** Renews now, once for every caller (single flight). True when new tokens arrived. */
  renew(): Promise<boolean>;
  /** The renewal under way, if any: a request waits for it rather than start another while offline. */
  renewing(): Promise<boolean> | undefined;
  /** The last renewal could not reach the provider: the tokens are kept, and may have expired. */
  offline(): boolean;
  /**
   * Timers stall while a laptop sleeps or a page is frozen, and the network returns unannounced: call when
   * a page comes back or the browser is online. Offline, it tries at once.
   */
  checkDue(): void;
  /** The session ended: nothing more is planned. */
  stop(): void;
}

export function createRenewal(parts: RenewalParts): Renewal {
  const { now } = parts;
  let dueAt = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let renewing: Promise<boolean> | undefined;
  /** Renewals in a row that could not reach the provider: while there are any, the session is offline. */
  let misses = 0;
  /** The hidden frame failed for this session: it is not tried again, and the session ends at expiry. */
  let frameFailed = false;
  /** A frame was due with no page open to hold it: the next page that comes back tries it. */
  let waitingForPage = false;

  /** How `tokens` renew: with the refresh token, in a hidden frame, or not at all (they end at expiry). */
  const renewsBy = ({ refreshToken }: TokenSet) =>
    refreshToken && parts.canGrant ? 'grant' : parts.frame && !frameFailed ? 'frame' : undefined;

  function schedule(at: number) {
    clearTimeout(timer);
    dueAt = at;
    timer = setTimeout(due, Math.min(Math.max(at - now(), 0), MAX_TIMER_MS));
  }

  /** Renewal before expiry, else the end at expiry. */
  function plan(tokens: TokenSet) {
    const { expiresAt } = tokens;
    const start = now();
    const how = renewsBy(tokens);
    const life = expiresAt - start;
    const early = how === 'frame' ? Math.min(FRAME_EARLY_MS, life / 2) : Math.min(GRANT_EARLY_MS, life / 5);
    schedule(how ? Math.max(start + MIN_RENEW_DELAY_MS, expiresAt - early) : expiresAt);
  }

  /** The timer fired, or a page asks (checkDue): renews when due, or, with no way to renew left, ends. */
  function due() {
    // A timer that fired early waits again; offline, the backoff's timer or the pages' events say when.
    if (now() < dueAt && !misses) return schedule(dueAt);
    // A frame that found no page waits for one until expiry; then the session ends (no frame tried again
    // and again on a timer at zero while no page comes).
    if (waitingForPage) return parts.end();
    void renew();
  }

  /** The network, not the provider: the tokens and the person stay, past expiry too, and it is tried again with backoff. */
  function retryLater(error: AuthError) {
    if (!misses++) parts.offline();
    schedule(now() + Math.min(RETRY_MS * 2 ** (misses - 1), RETRY_MAX_MS));
    parts.retrying(error);
  }

  /**
   * A renewal in a hidden frame. No page open to hold it (the worker keeps the session after the last):
   * it ends at expiry unless a page comes back first (checkDue). The network: offline, tried again. The
   * session's own end aside, any other failure stops the frames for this session and announces the end.
   */
  async function inFrame(current: TokenSet): Promise<boolean> {
    const signal = parts.signal();
    try {
      const tokens = await parts.frame!(signal);
      if (signal.aborted) return false;
      parts.keep(tokens);
      return true;
    } catch (err) {
      if (signal.aborted) return false;
      const error = toAuthError(err);
      if (error.code === 'account_changed') parts.end(error);
      else if (error.reason === NO_PAGE) {
        waitingForPage = true;
        schedule(current.expiresAt);
      } else if (classify(error) === 'transient') retryLater(error);
      else {
        frameFailed = true;
        plan(current);
        parts.ending(current.expiresAt, error);
      }
      return false;
    }
  }

  /** A refresh-token renewal; the network's failure keeps the session, offline, and tries again with backoff. */
  async function withRefreshToken(current: TokenSet): Promise<boolean> {
    const signal = parts.signal();
    try {
      await parts.refresh();
      return parts.tokens()?.accessToken !== current.accessToken;
    } catch (err) {
      if (signal.aborted) return false;
      const error = toAuthError(err);
      if (classify(error) === 'transient') retryLater(error);
      else parts.end(error);
      return false;
    }
  }

  async function renewal(): Promise<boolean> {
    const current = parts.tokens();
    if (!current) return false;
    const how = renewsBy(current);
    if (how === 'grant') return withRefreshToken(current);
    if (how === 'frame') return inFrame(current);
    parts.end();
    return false;
  }

  /** Renews now, once for every caller (single flight). True when new tokens arrived. */
  function renew(): Promise<boolean> {
    renewing ??= renewal().finally(() => (renewing = undefined));
    return renewing;
  }

  return {
    planned(tokens: TokenSet, fresh = false) {
      if (fresh) frameFailed = false;
      misses = 0;
      waitingForPage = false;
      plan(tokens);
    },
    renew,
    renewing: () => renewing,
    offline: () => misses > 0,
    checkDue() {
      const tokens = parts.tokens();
      if (!tokens) return;
      if (waitingForPage && now() < tokens.expiresAt) {
        waitingForPage = false;
        return void renew();
      }
      due();
    },
    stop() {
      misses = 0;
      clearTimeout(timer);
    },
  };
}
