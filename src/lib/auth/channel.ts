// The messages the app's tabs send each other over the channel (tabs.ts), and their checks: every
// message is input from another page of the origin, validated for shape, ids and sizes before anything
// of it is used; keys are accepted only non-extractable, and only when tokens are DPoP-bound.
import type { AuthErrorCode } from './errors';
import { toClaims, type Claims, type ResourceParams, type TokenSet } from './protocol';

/** What a tab holds of the session, and what another tab adopts. */
export interface Held<C extends Claims> {
  tokens: TokenSet;
  user: C;
  /** The DPoP key pair (RFC 9449): still non-extractable after structured cloning. */
  keys?: CryptoKeyPair;
}

export interface Shared<C extends Claims> extends Held<C> {
  /** Names the session on the channel: a tab ignores messages about a session it did not join. */
  id: string;
}

export type Message<C extends Claims> =
  | { type: 'ask'; from: string }
  | { type: 'session'; to?: string; session: Shared<C> }
  | { type: 'renew'; id: string; expiresAt: number }
  | { type: 'renewed'; id: string; tokens: TokenSet }
  | { type: 'exchange'; id: string; from: string; extra: ResourceParams }
  | { type: 'exchanged'; id: string; to: string; tokens?: TokenSet; error?: AuthErrorCode }
  | { type: 'rotated'; id: string; refreshToken: string }
  | { type: 'ended'; id: string }
  | { type: 'signed-out'; id?: string };

const ID = /^[\w-]{16,128}$/;
/** Far above any real token (JWTs of a few kB): anything larger is hostile. */
const MAX_TOKEN_CHARS = 16 * 1024;
const MAX_USER_CHARS = 64 * 1024;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;
const isText = (value: unknown, max: number) =>
  typeof value === 'string' && value.length <= max && /^[\x21-\x7e]+( [\x21-\x7e]+)*$/.test(value);
const isId = (value: unknown): value is string => typeof value === 'string' && ID.test(value);
/** VSCHARs (RFC 6749 §A.12), as tokens from the token endpoint are checked. */
const isToken = (value: unknown) => typeof value === 'string' && value.length <= MAX_TOKEN_CHARS && /^[\x20-\x7e]+$/.test(value);

export function validTokens(value: unknown): value is TokenSet {
  return (
    isObject(value) &&
    isToken(value.accessToken) &&
    (value.refreshToken === undefined || isToken(value.refreshToken)) &&
    (value.idToken === undefined || isToken(value.idToken)) &&
    Number.isFinite(value.expiresAt) &&
    (value.subject === undefined || (typeof value.subject === 'string' && value.subject.length <= 255))
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

/** A session from the channel, checked like any input: a session id, tokens, claims, and keys only with DPoP. */
export function validSession<C extends Claims>(value: unknown, dpop: boolean): value is Shared<C> {
  return (
    isObject(value) &&
    isId(value.id) &&
    validTokens(value.tokens) &&
    validUser(value.user, value.tokens.subject) &&
    (dpop ? validKeys(value.keys) : value.keys === undefined)
  );
}

/** The message's shape, sizes and ids, or undefined: a hostile message changes nothing. */
export function parseMessage<C extends Claims>(data: unknown, dpop: boolean): Message<C> | undefined {
  if (!isObject(data)) return undefined;
  const ok = (() => {
    switch (data.type) {
      case 'ask':
        return isId(data.from);
      case 'session':
        return (data.to === undefined || isId(data.to)) && validSession(data.session, dpop);
      case 'renew':
        return isId(data.id) && Number.isFinite(data.expiresAt);
      case 'renewed':
        return isId(data.id) && validTokens(data.tokens);
      case 'exchange':
        return (
          isId(data.id) &&
          isId(data.from) &&
          isObject(data.extra) &&
          isText(data.extra.resource, 2048) &&
          (data.extra.scope === undefined || isText(data.extra.scope, 512))
        );
      case 'exchanged':
        return (
          isId(data.id) && isId(data.to) && (validTokens(data.tokens) || (data.tokens === undefined && isText(data.error, 64)))
        );
      case 'rotated':
        return isId(data.id) && isToken(data.refreshToken);
      case 'ended':
        return isId(data.id);
      case 'signed-out':
        return data.id === undefined || isId(data.id);
      default:
        return false;
    }
  })();
  return ok ? (data as Message<C>) : undefined;
}
