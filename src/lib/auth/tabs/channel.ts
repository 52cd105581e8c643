// The messages the app's tabs send each other over the channel (tabs.ts), and their checks: every
// message is input from another page of the origin, validated for its app, shape, ids and sizes before
// anything of it is used; keys are accepted only non-extractable, and only when tokens are DPoP-bound.
import type { AuthErrorCode } from '../protocol/errors';
import { toClaims, type Claims, type ResourceParams, type TokenSet } from '../protocol/steps';
import type { Held } from '../session/tokens';

/** A session as one tab offers it to another: the vault's, with the person and the session's id on the channel. */
export interface Shared<C extends Claims> extends Held {
  /** Names the session on the channel: a tab ignores messages about a session it did not join. */
  id: string;
  user: C;
}

/** What one tab tells the others. */
export type Body<C extends Claims> =
  | { type: 'ask'; from: string }
  | { type: 'offer'; to?: string; session: Shared<C> }
  | { type: 'renew'; id: string; expiresAt: number }
  | { type: 'renewed'; id: string; sub: string; tokens: TokenSet }
  | { type: 'grant'; id: string; from: string; params: ResourceParams }
  | { type: 'granted'; id: string; to: string; sub: string; tokens?: TokenSet; error?: AuthErrorCode }
  | { type: 'rotated'; id: string; sub: string; refreshToken: string }
  | { type: 'ended'; id: string }
  /** The leader's renewal could not reach the provider: the session is offline in every tab. */
  | { type: 'offline'; id: string }
  | { type: 'signed-out'; id: string }
  /** The person used a tab of the session at `at` (epoch ms): the idle deadline moves for every tab (idle.ts). */
  | { type: 'active'; id: string; at: number }
  /** The session ended for idleness; `revoked`: the sending tab revoked its tokens, so no other tab does. */
  | { type: 'idle'; id: string; revoked: boolean };

/** Every message names its app (storage.ts `appNames`): another app's tabs on the origin never act on it. */
export type Message<C extends Claims> = Body<C> & { app: string };

/** What a message is checked against: this tab's app, whether its tokens are DPoP-bound, and the time. */
export interface Expected {
  app: string;
  dpop: boolean;
  now: number;
}

const ID = /^[\w-]{16,128}$/;
/** Far above any real token (JWTs of a few kB): anything larger is hostile. */
const MAX_TOKEN_CHARS = 16 * 1024;
const MAX_USER_CHARS = 64 * 1024;
/** Far more APIs than any app has. */
const MAX_APIS = 64;
/** No token lives longer (protocol.ts caps `expires_in` at a day): a later expiry is a lie. */
const MAX_LIFETIME_MS = 24 * 60 * 60 * 1000;
/** Tabs share one clock; an activity time later than this past "now" is forged and would postpone the idle sign-out. */
const MAX_SKEW_MS = 2000;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;
const isText = (value: unknown, max: number) =>
  typeof value === 'string' && value.length <= max && /^[\x21-\x7e]+( [\x21-\x7e]+)*$/.test(value);
const isId = (value: unknown): value is string => typeof value === 'string' && ID.test(value);
const isSub = (value: unknown) => typeof value === 'string' && value.length >= 1 && value.length <= 255;
/** VSCHARs (RFC 6749 §A.12), as tokens from the token endpoint are checked. */
const isToken = (value: unknown) => typeof value === 'string' && value.length <= MAX_TOKEN_CHARS && /^[\x20-\x7e]+$/.test(value);
const isExpiry = (value: unknown, now: number) => Number.isFinite(value) && (value as number) <= now + MAX_LIFETIME_MS;

export function validTokens(value: unknown, now: number): value is TokenSet {
  return (
    isObject(value) &&
    isToken(value.accessToken) &&
    (value.refreshToken === undefined || isToken(value.refreshToken)) &&
    (value.idToken === undefined || isToken(value.idToken)) &&
    isExpiry(value.expiresAt, now) &&
    (value.subject === undefined || isSub(value.subject))
  );
}

function validKeys(value: unknown): value is CryptoKeyPair {
  if (!isObject(value)) return false;
  const { privateKey, publicKey } = value;
  return (
    privateKey instanceof CryptoKey &&
    publicKey instanceof CryptoKey &&
    privateKey.type === 'private' &&
    publicKey.type === 'public' &&
    !privateKey.extractable &&
    privateKey.algorithm.name === 'ECDSA'
  );
}

function validUser<C extends Claims>(value: unknown, subject: string | undefined): value is C {
  try {
    const user = toClaims<C>(value as never);
    return (subject === undefined || user.sub === subject) && JSON.stringify(user).length <= MAX_USER_CHARS;
  } catch {
    return false;
  }
}

/** What step-ups added per API (vault.ts `Held.added`): at most MAX_APIS resources, each with a scope list. */
function validAdded(value: unknown): boolean {
  if (!isObject(value) || Array.isArray(value)) return false;
  const entries = Object.entries(value);
  return entries.length <= MAX_APIS && entries.every(([resource, scope]) => resource.length <= 2048 && isText(scope, 2048));
}

/**
 * A session from the channel, checked like any input: a session id, tokens, scope, what step-ups added
 * per API, claims, and keys only with DPoP.
 */
export function validSession<C extends Claims>(value: unknown, { dpop, now }: Omit<Expected, 'app'>): value is Shared<C> {
  return (
    isObject(value) &&
    isId(value.id) &&
    validTokens(value.tokens, now) &&
    isText(value.scope, 2048) &&
    (value.added === undefined || validAdded(value.added)) &&
    validUser(value.user, value.tokens.subject) &&
    (dpop ? validKeys(value.keys) : value.keys === undefined)
  );
}

/** The message's app, shape, sizes and ids, or undefined: a message that fails changes nothing. */
export function parseMessage<C extends Claims>(data: unknown, expected: Expected): Message<C> | undefined {
  if (!isObject(data) || data.app !== expected.app) return undefined;
  const { now } = expected;
  const ok = (() => {
    switch (data.type) {
      case 'ask':
        return isId(data.from);
      case 'offer':
        return (data.to === undefined || isId(data.to)) && validSession(data.session, expected);
      case 'renew':
        return isId(data.id) && isExpiry(data.expiresAt, now);
      case 'renewed':
        return isId(data.id) && isSub(data.sub) && validTokens(data.tokens, now);
      case 'grant':
        return (
          isId(data.id) &&
          isId(data.from) &&
          isObject(data.params) &&
          isText(data.params.resource, 2048) &&
          (data.params.scope === undefined || isText(data.params.scope, 2048))
        );
      case 'granted':
        return (
          isId(data.id) &&
          isId(data.to) &&
          isSub(data.sub) &&
          (validTokens(data.tokens, now) || (data.tokens === undefined && isText(data.error, 64)))
        );
      case 'rotated':
        return isId(data.id) && isSub(data.sub) && isToken(data.refreshToken);
      case 'ended':
      case 'offline':
      case 'signed-out':
        return isId(data.id);
      case 'active':
        return isId(data.id) && Number.isFinite(data.at) && (data.at as number) >= 0 && (data.at as number) <= now + MAX_SKEW_MS;
      case 'idle':
        return isId(data.id) && typeof data.revoked === 'boolean';
      default:
        return false;
    }
  })();
  return ok ? (data as Message<C>) : undefined;
}
