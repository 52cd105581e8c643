// The token vault: the one owner of the session's tokens. It holds the sign-in tokens and the refresh
// token, the session's scope and DPoP key, and makes every refresh-token grant through one entry, in
// turn, as each may use and rotate the one refresh token. Beside it, two services it composes: renewal
// before expiry (renewal.ts) and the tokens for APIs (api-tokens.ts). In memory only (RFC 10017 §6.3):
// nothing outside the auth module ever sees it.
import { DPoP, type Client } from 'oauth4webapi';
import type { ApiOptions } from '../protocol/apis';
import { AuthError } from '../protocol/errors';
import type { Proof, ResourceParams, TokenSet } from '../protocol/steps';
import { createApiTokens } from './api-tokens';
import { createRenewal } from './renewal';

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

/** The vault of one engine; see the file's head. */
export interface Vault {
  /** The session held: its tokens, scope, DPoP key and what step-ups added. */
  held(): Held | undefined;
  tokens(): TokenSet | undefined;
  /** The scope the session was granted; the instance's own before any sign-in. */
  scope(): string;
  /** Aborted when the session ends. */
  signal(): AbortSignal;
  /** The DPoP key of the session, or the one made for a sign-in before a session holds it (RFC 9449). */
  keys(): CryptoKeyPair | undefined;
  /** The proof oauth4webapi signs with that key; undefined without DPoP. */
  dpop(): Proof;
  /** The DPoP key the engine made for a sign-in, before a session holds it; undefined without DPoP. */
  bind(keys: CryptoKeyPair | undefined): void;
  /** A new session: a sign-in, another person's sign-in, or a step-up's wider grant. */
  hold(next: Held): void;
  /** Renews now, once for every caller (single flight). True when new tokens arrived. */
  renew(): Promise<boolean>;
  /** The renewal under way, if any: a request waits for it rather than start another while offline. */
  renewing(): Promise<boolean> | undefined;
  /** Every refresh-token grant of the session, in turn; what it returns becomes the session's (rotation included). */
  grant(params?: ResourceParams): Promise<TokenSet>;
  /** The last renewal could not reach the provider: the tokens are kept, and may have expired. */
  offline(): boolean;
  /** The access token for `origin`'s API (undefined for an origin without one): kept until about to expire. */
  apiToken(origin: string): Promise<string | undefined>;
  /** Forgets `accessToken` for `origin` after its API refused it (`invalid_token`): the next request gets another. */
  forgetApiToken(origin: string, accessToken: string): void;
  /** The session ends here without a sign-out, e.g. a resource refused its renewed token. */
  end(error?: AuthError): void;
  /** Forgets the session (sign-out) and returns the tokens it held, live or ended on its own, for revocation. */
  drop(): TokenSet | undefined;
  /**
   * Timers stall while a laptop sleeps or a page is frozen, and the network returns unannounced: call when
   * a page comes back or the browser is online. Offline, it tries at once.
   */
  checkDue(): void;
}

export function createVault(parts: VaultParts): Vault {
  let held: Held | undefined;
  /** What a session that ended on its own held: kept in memory only, to revoke it at sign-out. */
  let ended: TokenSet | undefined;
  /** The engine's DPoP key before a session holds one, for the sign-in about to be made. */
  let ownKeys: CryptoKeyPair | undefined;
  let proof: { keys: CryptoKeyPair; handle: NonNullable<Proof> } | undefined;
  // Every request of the session carries this signal: the session's end aborts them, so late answers die.
  let life = new AbortController();
  let queue: Promise<unknown> | undefined;

  const scope = () => held?.scope ?? parts.scope;

  const renewal = createRenewal({
    now: parts.now,
    tokens: () => held?.tokens,
    signal: () => life.signal,
    canGrant: !!parts.grant,
    refresh: () => grant(),
    frame: parts.frame && ((signal) => parts.frame!(held!, signal)),
    keep: renewTo,
    end,
    offline: parts.offline,
    retrying: parts.retrying,
    ending: parts.ending,
  });

  const apiTokens = createApiTokens({
    apis: parts.apis,
    now: parts.now,
    grant: (params) => grant(params),
    added: () => held?.added,
    signal: () => life.signal,
    refused: end,
  });

  /** Closes the current session: its requests are aborted, its tokens for APIs forgotten; returns its tokens. */
  function finish(): TokenSet | undefined {
    const had = held?.tokens;
    held = undefined;
    renewal.stop();
    life.abort();
    life = new AbortController();
    apiTokens.clear();
    return had;
  }

  /** The session's tokens renewed: kept, planned and told, whatever their expiry (a provider may cap it). */
  function renewTo(tokens: TokenSet) {
    held = { ...held!, tokens };
    renewal.planned(tokens);
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
      else if (next.refreshToken) rotate(next.refreshToken);
      return next;
    });
  }

  return {
    held: () => held,
    tokens: () => held?.tokens,
    scope,
    signal: () => life.signal,
    keys: () => held?.keys ?? ownKeys,
    dpop(): Proof {
      const keys = held?.keys ?? ownKeys;
      if (!keys) return undefined;
      if (proof?.keys !== keys) proof = { keys, handle: DPoP(parts.client, keys) };
      return proof.handle;
    },
    bind: (keys) => void (ownKeys = keys),
    hold(next: Held) {
      finish();
      ended = undefined;
      held = next;
      renewal.planned(next.tokens, true);
    },
    renew: renewal.renew,
    renewing: renewal.renewing,
    grant,
    offline: renewal.offline,
    apiToken: apiTokens.get,
    forgetApiToken: apiTokens.forget,
    end,
    drop(): TokenSet | undefined {
      const had = finish() ?? ended;
      ended = undefined;
      return had;
    },
    checkDue: renewal.checkDue,
  };
}
