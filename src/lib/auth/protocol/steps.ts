// The OAuth 2.0 / OpenID Connect steps, each a small function over oauth4webapi. No state lives here:
// tokens are returned to the caller, which keeps them in memory. Failures are thrown as oauth4webapi
// raised them; the caller converts them (errors.ts) in one place.
import * as oauth from 'oauth4webapi';
import { AuthError } from './errors';
import { toAuthError } from './failures';
import { requestOptions, type Network } from './http';
import type { CallbackResponse } from './callback';
import type { StepUp } from './scope';

/**
 * Everything a protocol step needs to know about the identity service and this client; fixed for the
 * instance's life (what a session adds, its scope and DPoP key, belongs to the session: session/tokens.ts).
 */
export interface Server {
  readonly as: oauth.AuthorizationServer;
  readonly client: oauth.Client;
  readonly redirectUri: string;
  /** The end-session request's `post_logout_redirect_uri`; default `redirectUri`. */
  readonly postLogoutRedirectUri?: string;
  /** What every sign-in asks for: the instance's scope and every API's. */
  readonly scope: string;
  /** RFC 8707 §2.1 `resource` parameters of every authorization request: one per API of `apis`. */
  readonly resources: readonly string[];
  /** Names of extra authorization parameters `signIn()` may send (hints.ts). */
  readonly extraParams?: readonly string[];
  readonly timeoutMs: number;
  readonly network: Network;
}

/** The session's DPoP key as oauth4webapi uses it (RFC 9449), when tokens are bound to one. */
export type Proof = oauth.DPoPHandle | undefined;

/** A sign-in on its way: what the callback is checked and exchanged against, kept single-use per tab (storage.ts). */
export interface PendingSignIn {
  state: string;
  codeVerifier: string;
  /** Present when `openid` was requested (OIDC Core §3.1.2.1). */
  nonce?: string;
  /** The app's own string, handed back by start() after the callback. */
  returnTo: string;
  /** True for a silent `prompt=none` attempt, whose refusal means "signed out", not an error. */
  silent: boolean;
  createdAt: number;
  /** Present for a step-up: what it asked, checked after the callback. */
  stepUp?: StepUp;
}

/** The RFC 8707 §2.2 parameters of a token request for one API; `scope` is left out rather than empty. */
export type ResourceParams = { resource: string } | { resource: string; scope: string };

/** Tokens as the session keeps them; this object never leaves the auth module. */
export interface TokenSet {
  accessToken: string;
  refreshToken?: string;
  /** Kept only as `id_token_hint` for ending the provider's session (RP-Initiated Logout §2). */
  idToken?: string;
  /** Epoch milliseconds. */
  expiresAt: number;
  /** The ID token's `sub`, which userinfo and later ID tokens must match (OIDC Core §5.3.2, §12.2). */
  subject?: string;
}

/** The standard claims of OpenID Connect Core §5.1; a provider may send any others too. */
export interface StandardClaims {
  /** The identity key, exactly as the provider sent it: 1 to 255 characters (OIDC Core §2). */
  sub: string;
  name?: string;
  given_name?: string;
  family_name?: string;
  middle_name?: string;
  nickname?: string;
  preferred_username?: string;
  profile?: string;
  picture?: string;
  website?: string;
  email?: string;
  email_verified?: boolean;
  gender?: string;
  birthdate?: string;
  zoneinfo?: string;
  locale?: string;
  phone_number?: string;
  phone_number_verified?: boolean;
  address?: {
    formatted?: string;
    street_address?: string;
    locality?: string;
    region?: string;
    postal_code?: string;
    country?: string;
  };
  updated_at?: number;
  [claim: string]: unknown;
}

/** What a session's `user` can be: the claims, with `sub` at least. */
export type Claims = { sub: string };

/** Protocol answers are small; anything larger is hostile. */
export const MAX_PROTOCOL_BYTES = 64 * 1024;
/** An absurd `expires_in` is cut to a day; a missing one means an hour (RFC 6749 §5.1 leaves it open). */
const MAX_LIFETIME_S = 24 * 60 * 60;
const DEFAULT_LIFETIME_S = 60 * 60;

/** Request options of a protocol step: the caps, the timeout, the signal and the DPoP key. */
const options = (server: Server, dpop: Proof, url: string | undefined, signal?: AbortSignal) => ({
  ...requestOptions(server.network, url!, { timeoutMs: server.timeoutMs, maxBytes: MAX_PROTOCOL_BYTES, signal }),
  DPoP: dpop,
});

/** Runs a DPoP request again once when the server asks for a nonce (RFC 9449 §8, §9). */
export async function withNonce<T>(dpop: Proof, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (!dpop || !oauth.isDPoPNonceError(err)) throw err;
    return run();
  }
}

/** Never longer than the server said: a short lifetime is kept, so renewal comes before expiry. */
const lifetime = (expiresIn: number | undefined) => Math.min(expiresIn ?? DEFAULT_LIFETIME_S, MAX_LIFETIME_S);

/** The token response as the session keeps it, checked; `previous` is what a refresh grant renews. */
export function tokenSet(dpop: Proof, response: oauth.TokenEndpointResponse, now: number, previous?: TokenSet): TokenSet {
  // Only the token type this client asked for: a DPoP client refuses unbound tokens and a Bearer client
  // bound ones. An `error` beside a token makes the whole answer suspect (RFC 6749 §5.1 and §5.2 are exclusive).
  // A token is VSCHARs only (RFC 6749 §A.12): anything else could not be sent in a header, or would smuggle one.
  if (
    response.token_type !== (dpop ? 'dpop' : 'bearer') ||
    'error' in response ||
    !/^[\x20-\x7e]+$/.test(response.access_token)
  ) {
    throw new AuthError('invalid_response');
  }
  const subject = oauth.getValidatedIdTokenClaims(response)?.sub ?? previous?.subject;
  if (previous?.subject && subject !== previous.subject) throw new AuthError('invalid_response');
  return {
    accessToken: response.access_token,
    // A rotated refresh token replaces the old one; without a new one the old stays valid (RFC 6749 §6).
    refreshToken: response.refresh_token ?? previous?.refreshToken,
    idToken: response.id_token ?? previous?.idToken,
    expiresAt: now + lifetime(response.expires_in) * 1000,
    subject,
  };
}

/**
 * Validates the authorization response against the pending sign-in (state, iss, error: RFC 6749
 * §4.1.2, RFC 9207), then exchanges the code, once (RFC 6749 §4.1.3, RFC 7636 §4.5), with `auth_time`
 * checked against a step-up's `max_age` (OIDC Core §3.1.2.1) and the answer passed to `check`.
 */
export async function exchangeCode(
  server: Server,
  dpop: Proof,
  params: URLSearchParams,
  pending: PendingSignIn,
  now: number,
  check?: (response: oauth.TokenEndpointResponse) => void,
): Promise<TokenSet> {
  const { as, client } = server;
  const validated = oauth.validateAuthResponse(as, client, params, pending.state);
  const response = await withNonce(dpop, async () =>
    oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(
        as,
        client,
        oauth.None(),
        validated,
        server.redirectUri,
        pending.codeVerifier,
        options(server, dpop, as.token_endpoint),
      ),
      {
        expectedNonce: pending.nonce ?? oauth.expectNoNonce,
        requireIdToken: pending.nonce !== undefined,
        maxAge: pending.stepUp?.max_age,
      },
    ),
  );
  check?.(response);
  return tokenSet(dpop, response, now);
}

/**
 * Renews the tokens with the refresh token (RFC 6749 §6), or gets a token for one API with `resource`
 * and `scope` (RFC 8707 §2.2); a rotated refresh token replaces `previous.refreshToken`.
 */
export async function refreshTokens(
  server: Server,
  dpop: Proof,
  previous: TokenSet,
  now: number,
  signal?: AbortSignal,
  params?: ResourceParams,
): Promise<TokenSet> {
  const { as, client } = server;
  const response = await withNonce(dpop, async () =>
    oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, oauth.None(), previous.refreshToken!, {
        ...options(server, dpop, as.token_endpoint, signal),
        additionalParameters: params,
      }),
    ),
  );
  return tokenSet(dpop, response, now, previous);
}

/** Keys that only an attack on object prototypes would send. */
const POISON_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
/** Claims nest (address, custom objects) but never deeply; deeper is hostile. */
const MAX_CLAIM_DEPTH = 8;

function plainJson(value: unknown, depth: number): boolean {
  if (value === null || typeof value !== 'object') return true;
  if (depth > MAX_CLAIM_DEPTH) return false;
  return Object.entries(value).every(([key, inner]) => !POISON_KEYS.has(key) && plainJson(inner, depth + 1));
}

/**
 * Every claim as the provider sent it (JSON values, bounded by the answer's size cap and a nesting
 * depth). `sub` must be a string of 1 to 255 characters (OIDC Core §2) and is never altered; a
 * prototype-poisoning key anywhere refuses the answer. Cleaning for display is the view's job.
 */
export function toClaims<C extends Claims>(claims: oauth.UserInfoResponse): C {
  const sub: unknown = claims.sub;
  if (typeof sub !== 'string' || sub.length < 1 || sub.length > 255 || !plainJson(claims, 0)) {
    throw new AuthError('invalid_response');
  }
  return claims as unknown as C;
}

/**
 * GET userinfo with the access token and reads it (OIDC Core §5.3): JSON only, `sub` equal to the ID
 * token's; a challenge is read as auth.fetch reads one (errors.ts).
 */
export async function fetchUserInfo<C extends Claims>(
  server: Server,
  dpop: Proof,
  tokens: TokenSet,
  signal?: AbortSignal,
): Promise<C> {
  const { as, client } = server;
  const read = withNonce(dpop, async () => {
    // The same request userInfoRequest makes, through the resource request auth.fetch already uses.
    const response = await oauth.protectedResourceRequest(
      tokens.accessToken,
      'GET',
      new URL(as.userinfo_endpoint!),
      new Headers({ accept: 'application/json' }),
      null,
      options(server, dpop, as.userinfo_endpoint, signal),
    );
    // JSON only: oauth4webapi would parse any type, and take a JWT answer unsigned (OIDC Core §5.3.2).
    const type = response.headers.get('content-type')?.split(';')[0].trim().toLowerCase();
    if (response.ok && type !== 'application/json') throw new AuthError('invalid_response');
    return toClaims<C>(await oauth.processUserInfoResponse(as, client, tokens.subject ?? oauth.skipSubjectCheck, response));
  });
  return read.catch((err: unknown) => {
    throw err instanceof oauth.WWWAuthenticateChallengeError ? toAuthError(err, dpop ? 'dpop' : 'bearer') : err;
  });
}

/**
 * Validates the response, exchanges the code (its answer passed to `check`) and reads the claims with the
 * new access token. Not abortable: the caller holds the tokens once it returns, and revokes them when the
 * session ended meanwhile (an aborted userinfo request would lose them unrevoked).
 */
export async function completeSignIn<C extends Claims>(
  server: Server,
  dpop: Proof,
  { params }: Pick<CallbackResponse, 'params'>,
  pending: PendingSignIn,
  now: number,
  check?: (response: oauth.TokenEndpointResponse) => void,
): Promise<{ tokens: TokenSet; user: C }> {
  const tokens = await exchangeCode(server, dpop, params, pending, now, check);
  return { tokens, user: await fetchUserInfo<C>(server, dpop, tokens) };
}
