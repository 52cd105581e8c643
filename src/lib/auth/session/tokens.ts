// The token vault: the one owner of the session's tokens and their life. It holds the sign-in tokens and
// the refresh token, the tokens for APIs (RFC 8707), the session's scope and DPoP key; makes every
// refresh-token grant through one entry, in turn, as each may use and rotate the one refresh token;
// renews before expiry; and acts on what a failed grant means (classify). In memory only (RFC 10017
// §6.3): nothing outside the auth module ever sees it.
import { DPoP, type Client } from 'oauth4webapi';
import { apiParams, apisByOrigin, type ApiOptions } from '../protocol/apis';
import { AuthError } from '../protocol/errors';
import { toAuthError } from '../protocol/failures';
import type { Proof, ResourceParams, TokenSet } from '../protocol/steps';

/** The session as the vault holds it. */
export interface Held {
  tokens: TokenSet;
  /** What the session was granted: the sign-in's scope and what step-ups added. */
  scope: string;
  /** What step-ups added for each API, by its resource: that API's grants ask for it, no other's. */
  added?: Record<string, string>;
  /** The DPoP key pair the tokens are bound to (RFC 9449): non-extractable, and still so after cloning. */
  keys?: CryptoKeyPair;
}

/** A refresh-token grant (RFC 6749 §6): a renewal without `params`, a token for one API with them (RFC 8707 §2.2). */
export type Grant = (current: TokenSet, params: ResourceParams | undefined, signal: AbortSignal) => Promise<TokenSet>;

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

export interface VaultParts {
  client: Client;
  now(): number;
  /** What every sign-in of the instance asks for; a step-up widens the session's. */
  scope: string;
  /** APIs with tokens of their own, keyed by origin in any URL form. */
  apis?: Record<string, ApiOptions>;
  /** The refresh-token grant, loaded after the first paint; none: sessions end at expiry (the test kit). */
  grant?(): Promise<Grant>;
  /**
   * A renewal without a refresh token: a prompt=none authorization in a hidden frame (frames.ts), for the
   * same person; none (the `hiddenFrame` option off): such a session ends at expiry.
   */
  frame?(held: Held, signal: AbortSignal): Promise<TokenSet>;
  /** The hidden frame cannot renew this session (`error` says why): it ends at `endsAt` unless the person signs in. */
  ending(endsAt: number, error: AuthError): void;
  /** The access token was renewed within the session. */
  renewed(tokens: TokenSet): void;
  /** A renewal could not reach the provider: the session goes on offline, its tokens kept, until one does. */
  offline(): void;
  /** The session ended without a sign-out; `error` is the grant's failure when one ended it. */
  ended(error?: AuthError): void;
  /** A renewal failed for now (the network, a timeout): the session goes on, and the renewal is tried again. */
  retrying(error: AuthError): void;
}

/** setTimeout fires at once for delays above 2^31-1 ms. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** A renewal that could not reach the provider is tried again after this, doubling up to RETRY_MAX_MS. */
const RETRY_MS = 2_000;
const RETRY_MAX_MS = 60_000;
/** However short the token's life, renewals are at least this far apart: no tight loop. */
const MIN_RENEW_DELAY_MS = 2_000;
/**
 * A hidden frame loads a page of the app, and its failure leaves the person a warning to act on: it begins
 * this long before expiry, or at half the token's life when that is shorter.
 */
const FRAME_EARLY_MS = 5 * 60_000;
/** A token for an API is taken as expired this long before its end, or a fifth of its life when that is shorter. */
const API_EARLY_MS = 30_000;

interface ApiToken {
  accessToken: string;
  /** Epoch ms after which the next request gets a new one. */
  renewAt: number;
}

export function createVault(parts: VaultParts) {
  const { now } = parts;
  const apis = apisByOrigin(parts.apis);
  let held: Held | undefined;
  /** What a session that ended on its own held: kept in memory only, to revoke it at sign-out. */
  let ended: TokenSet | undefined;
  /** The engine's DPoP key before a session holds one, for the sign-in about to be made. */
  let ownKeys: CryptoKeyPair | undefined;
  let proof: { keys: CryptoKeyPair; handle: NonNullable<Proof> } | undefined;
  // Every request of the session carries this signal: the session's end aborts them, so late answers die.
  let life = new AbortController();
  let queue: Promise<unknown> | undefined;
  let renewing: Promise<boolean> | undefined;
  const apiTokens = new Map<string, { token: Promise<ApiToken>; value?: ApiToken }>();
  let dueAt = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  /** Renewals in a row that could not reach the provider: while there are any, the session is offline. */
  let misses = 0;
  /** The hidden frame failed for this session: it is not tried again, and the session ends at expiry. */
  let frameFailed = false;

  const scope = () => held?.scope ?? parts.scope;

  function schedule(at: number) {
    clearTimeout(timer);
    dueAt = at;
    timer = setTimeout(due, Math.min(Math.max(at - now(), 0), MAX_TIMER_MS));
  }

  /** How the session renews: with its refresh token, in a hidden frame, or not at all (it ends at expiry). */
  const renewsBy = ({ refreshToken }: TokenSet) =>
    refreshToken && parts.grant ? 'grant' : parts.frame && !frameFailed ? 'frame' : undefined;

  /** Renewal before expiry (a frame's earlier, as it takes a page load), else the end at expiry. */
  function plan(tokens: TokenSet) {
    const { expiresAt } = tokens;
    const start = now();
    const how = renewsBy(tokens);
    const early = how === 'frame' ? Math.min(FRAME_EARLY_MS, (expiresAt - start) / 2) : Math.min(60_000, (expiresAt - start) / 5);
    schedule(how ? Math.max(start + MIN_RENEW_DELAY_MS, expiresAt - early) : expiresAt);
  }

  function due() {
    if (!held) return;
    // A timer that fired early waits again; offline, the backoff's timer or the pages' events say when.
    if (now() < dueAt && !misses) return schedule(dueAt);
    if (renewsBy(held.tokens)) void renew();
    else end();
  }

  /** The provider could not be reached: only a held session is offline. */
  function unreachable() {
    if (held && !misses++) parts.offline();
  }

  /** Closes the current session: its requests are aborted, its tokens for APIs forgotten; returns its tokens. */
  function finish(): TokenSet | undefined {
    const had = held?.tokens;
    held = undefined;
    misses = 0;
    clearTimeout(timer);
    life.abort();
    life = new AbortController();
    apiTokens.clear();
    return had;
  }

  /** The session's tokens renewed: kept, planned and told, whatever their expiry (a provider may cap it). */
  function renewTo(tokens: TokenSet) {
    held = { ...held!, tokens };
    misses = 0;
    plan(tokens);
    parts.renewed(tokens);
  }

  /** A refresh token rotated by a grant for an API (RFC 6749 §6): the access token stays as it is. */
  function rotate(refreshToken: string) {
    if (held) held = { ...held, tokens: { ...held.tokens, refreshToken } };
  }

  function end(error?: AuthError) {
    const had = finish();
    if (!had) return;
    ended = had;
    parts.ended(error);
  }

  /** Runs `task` once every earlier grant has settled; at once when none is under way. */
  function serial<T>(task: () => Promise<T>): Promise<T> {
    const run = queue ? queue.then(task) : task();
    const settled = (queue = run.catch(() => {}));
    void settled.then(() => queue === settled && (queue = undefined));
    return run;
  }

  /** Every refresh-token grant of the session, in turn; what it returns becomes the session's (rotation included). */
  function grant(params?: ResourceParams): Promise<TokenSet> {
    return serial(async () => {
      const current = held?.tokens;
      const { signal } = life;
      if (!current) throw new AuthError('unauthenticated');
      if (!current.refreshToken || !parts.grant) throw new AuthError('interaction_required');
      const next = await (await parts.grant())(current, params, signal);
      if (signal.aborted) throw new AuthError('aborted');
      // The session's own grant: its tokens are the session's, rotated refresh token and all.
      if (!params) renewTo(next);
      else if (next.refreshToken && next.refreshToken !== current.refreshToken) rotate(next.refreshToken);
      return next;
    });
  }

  /** A renewal in a hidden frame; a failure other than the session's own end stops the frames and warns. */
  async function frameRenewal(current: Held): Promise<boolean> {
    const { signal } = life;
    try {
      const tokens = await parts.frame!(current, signal);
      if (signal.aborted) return false;
      renewTo(tokens);
      return true;
    } catch (err) {
      if (signal.aborted) return false;
      const error = toAuthError(err);
      if (error.code === 'account_changed') {
        end(error);
        return false;
      }
      frameFailed = true;
      plan(current.tokens);
      parts.ending(current.tokens.expiresAt, error);
      return false;
    }
  }

  async function renewal(): Promise<boolean> {
    const current = held?.tokens;
    const { signal } = life;
    if (!current) return false;
    const how = renewsBy(current);
    if (how === 'frame') return frameRenewal(held!);
    if (!how) {
      end();
      return false;
    }
    try {
      await grant();
      return held?.tokens.accessToken !== current.accessToken;
    } catch (err) {
      if (signal.aborted) return false;
      const error = toAuthError(err);
      if (classify(error) !== 'transient') {
        end(error);
        return false;
      }
      // The network, not the provider: the tokens and the person stay, past expiry too, and the renewal is
      // tried again with backoff, and at once when a page comes back or the browser is online (checkDue).
      unreachable();
      schedule(now() + Math.min(RETRY_MS * 2 ** (misses - 1), RETRY_MAX_MS));
      parts.retrying(error);
      return false;
    }
  }

  /** Renews now, once for every caller (single flight). True when new tokens arrived. */
  function renew(): Promise<boolean> {
    renewing ??= renewal().finally(() => (renewing = undefined));
    return renewing;
  }

  /** Gets a token for `api`; a refusal of the refresh token ends the session. */
  async function obtain(api: ApiOptions): Promise<ApiToken> {
    const { signal } = life;
    const params = apiParams(api, held?.added);
    try {
      const next = await grant(params);
      const start = now();
      return { accessToken: next.accessToken, renewAt: next.expiresAt - Math.min(API_EARLY_MS, (next.expiresAt - start) / 5) };
    } catch (err) {
      const failure = classify(err);
      if (failure === 'interaction')
        throw new AuthError(
          'interaction_required',
          'scope' in params ? { scope: params.scope, resource: api.resource } : {},
          err,
        );
      if (failure !== 'refused') throw toAuthError(err);
      // The refresh token is refused: it cannot renew the sign-in token either.
      if (!signal.aborted) end(toAuthError(err));
      throw new AuthError('session_expired', {}, err);
    }
  }

  return {
    /** The session held: its tokens, scope, DPoP key and what step-ups added. */
    held: () => held,
    tokens: () => held?.tokens,
    /** The scope the session was granted; the instance's own before any sign-in. */
    scope,
    /** Aborted when the session ends. */
    signal: () => life.signal,
    /** The DPoP key of the session, or the one made for a sign-in before a session holds it (RFC 9449). */
    keys: () => held?.keys ?? ownKeys,
    /** The proof oauth4webapi signs with that key; undefined without DPoP. */
    dpop(): Proof {
      const keys = held?.keys ?? ownKeys;
      if (!keys) return undefined;
      if (proof?.keys !== keys) proof = { keys, handle: DPoP(parts.client, keys) };
      return proof.handle;
    },
    /** The DPoP key the engine made for a sign-in, before a session holds it. */
    bind: (keys: CryptoKeyPair) => void (ownKeys = keys),
    /** A new session: a sign-in, another person's sign-in, or a step-up's wider grant. */
    hold(next: Held) {
      finish();
      ended = undefined;
      frameFailed = false;
      held = next;
      plan(next.tokens);
    },
    rotate,
    renew,
    /** The renewal under way, if any: a request waits for it rather than start another while offline. */
    renewing: () => renewing,
    grant,
    /** The last renewal could not reach the provider: the tokens are kept, and may have expired. */
    offline: () => misses > 0,
    /** The access token for `origin`'s API (undefined for an origin without one): kept until about to expire. */
    async apiToken(origin: string): Promise<string | undefined> {
      const api = apis.get(origin);
      if (!api) return undefined;
      let cached = apiTokens.get(origin);
      if (!cached || (cached.value && now() >= cached.value.renewAt)) {
        const entry: { token: Promise<ApiToken>; value?: ApiToken } = { token: obtain(api) };
        entry.token.then(
          (value) => (entry.value = value),
          () => apiTokens.get(origin) === entry && apiTokens.delete(origin),
        );
        apiTokens.set(origin, (cached = entry));
      }
      return (await cached.token).accessToken;
    },
    /** Forgets `accessToken` for `origin` after its API refused it (`invalid_token`): the next request gets another. */
    forgetApiToken(origin: string, accessToken: string) {
      if (apiTokens.get(origin)?.value?.accessToken === accessToken) apiTokens.delete(origin);
    },
    /** The session ends here without a sign-out, e.g. a resource refused its renewed token. */
    end,
    /** Forgets the session (sign-out) and returns the tokens it held, live or ended on its own, for revocation. */
    drop(): TokenSet | undefined {
      const had = finish() ?? ended;
      ended = undefined;
      return had;
    },
    /**
     * Timers stall while a laptop sleeps or a page is frozen, and the network returns unannounced: call when
     * a page comes back or the browser is online. Offline, it tries at once.
     */
    checkDue: () => held && (misses > 0 || now() >= dueAt) && due(),
  };
}

export type Vault = ReturnType<typeof createVault>;
