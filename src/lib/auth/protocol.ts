// The OAuth 2.0 / OpenID Connect steps, each a small function over oauth4webapi. No state lives here:
// tokens are returned to the caller (session.ts), which keeps them in memory.
import * as oauth from 'oauth4webapi';
import { isLoopbackHost, type AppConfig } from '../../config';
import { AuthError, toAuthError } from './errors';
import { boundedFetch } from './http';
import { clearPending, savePending, takePending, type PendingSignIn } from './transaction';
import { safeText } from '../text';

/** Tokens as the session keeps them; this object never leaves the auth module. */
export interface TokenSet {
  accessToken: string;
  refreshToken?: string;
  /** Epoch milliseconds. */
  expiresAt: number;
  /** The ID token's `sub`, which userinfo and later ID tokens must match (OIDC Core §5.3.2, §12.2). */
  subject?: string;
}

/** The four profile claims of the interface; absent ones stay undefined. */
export interface UserProfile {
  sub: string;
  email?: string;
  name?: string;
  preferred_username?: string;
}

/** Protocol answers are small; anything larger is hostile. */
const MAX_PROTOCOL_BYTES = 64 * 1024;
/** An absurd `expires_in` is cut to a day; a missing one means an hour (RFC 6749 §5.1 leaves it open). */
const MAX_LIFETIME_S = 24 * 60 * 60;
const DEFAULT_LIFETIME_S = 60 * 60;

export function authorizationServer(config: AppConfig): oauth.AuthorizationServer {
  return {
    issuer: config.issuer,
    authorization_endpoint: `${config.accountUrl}/connect/authorize`,
    token_endpoint: `${config.accountUrl}/connect/token`,
    userinfo_endpoint: `${config.authUrl}/connect/userinfo`,
    // Makes validateAuthResponse reject a response without `iss` (RFC 9207 §2.4).
    authorization_response_iss_parameter_supported: config.requireIss,
  };
}

const client = (config: AppConfig): oauth.Client => ({ client_id: config.clientId });

/** Request options for `endpoint`: bounded fetch, and plain http for loopback hosts only. */
function requestOptions(config: AppConfig, endpoint: string, signal?: AbortSignal, maxBytes = MAX_PROTOCOL_BYTES) {
  const url = new URL(endpoint);
  return {
    [oauth.customFetch]: boundedFetch({ timeoutMs: config.timeoutMs, maxBytes, signal }),
    [oauth.allowInsecureRequests]: url.protocol === 'http:' && isLoopbackHost(url.hostname),
  };
}

const wantsOpenId = (config: AppConfig) => config.scope.split(' ').includes('openid');

/** Builds the authorization request (RFC 6749 §4.1.1, RFC 7636 §4.3) and records it as pending. */
export async function authorizationUrl(
  config: AppConfig,
  { returnTo, silent = false }: { returnTo: string; silent?: boolean },
): Promise<string> {
  const codeVerifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const nonce = wantsOpenId(config) ? oauth.generateRandomNonce() : undefined;
  const params = new URLSearchParams({
    client_id: config.clientId,
    response_type: 'code',
    scope: config.scope,
    redirect_uri: config.redirectUri,
    code_challenge: await oauth.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    state,
  });
  if (nonce) params.set('nonce', nonce);
  if (silent) params.set('prompt', 'none');
  savePending({ state, codeVerifier, nonce, returnTo, silent, createdAt: Date.now() });
  return `${authorizationServer(config).authorization_endpoint}?${params}`;
}

/** Never longer than the server said: a short lifetime is kept, so renewal comes before expiry. */
function tokenLifetime(expiresIn: number | undefined): number {
  return Math.min(expiresIn ?? DEFAULT_LIFETIME_S, MAX_LIFETIME_S);
}

function tokenSet(response: oauth.TokenEndpointResponse, previous?: TokenSet): TokenSet {
  // oauth4webapi also accepts DPoP; this client only ever holds Bearer tokens (RFC 6750). An `error`
  // beside a token makes the whole answer suspect (RFC 6749 §5.1 and §5.2 are exclusive).
  if (response.token_type !== 'bearer' || 'error' in response) throw new AuthError('invalid_response');
  const subject = oauth.getValidatedIdTokenClaims(response)?.sub ?? previous?.subject;
  if (previous?.subject && subject !== previous.subject) throw new AuthError('invalid_response');
  return {
    accessToken: response.access_token,
    // A rotated refresh token replaces the old one; without a new one the old stays valid (RFC 6749 §6).
    refreshToken: response.refresh_token ?? previous?.refreshToken,
    expiresAt: Date.now() + tokenLifetime(response.expires_in) * 1000,
    subject,
  };
}

/** Consumes the pending sign-in the callback answers; none matching means no token request at all. */
export function consumePending(params: URLSearchParams): PendingSignIn {
  const pending = takePending(params.get('state'));
  // Whatever happens next, no other pending sign-in of this tab may be answered later.
  clearPending();
  if (!pending) throw new AuthError('unknown_transaction');
  return pending;
}

/**
 * Validates the authorization response against the pending sign-in (state, iss, error: RFC 6749
 * §4.1.2, RFC 9207), then exchanges the code, once (RFC 6749 §4.1.3, RFC 7636 §4.5).
 */
export async function exchangeCode(config: AppConfig, params: URLSearchParams, pending: PendingSignIn): Promise<TokenSet> {
  try {
    const as = authorizationServer(config);
    const validated = oauth.validateAuthResponse(as, client(config), params, pending.state);
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      client(config),
      oauth.None(),
      validated,
      config.redirectUri,
      pending.codeVerifier,
      requestOptions(config, as.token_endpoint!),
    );
    const result = await oauth.processAuthorizationCodeResponse(as, client(config), response, {
      expectedNonce: pending.nonce ?? oauth.expectNoNonce,
      requireIdToken: pending.nonce !== undefined,
    });
    return tokenSet(result);
  } catch (err) {
    throw toAuthError(err);
  }
}

/** Renews the tokens with a refresh token (RFC 6749 §6); the caller must drop `previous.refreshToken`. */
export async function refreshTokens(config: AppConfig, previous: TokenSet, signal?: AbortSignal): Promise<TokenSet> {
  try {
    const as = authorizationServer(config);
    const response = await oauth.refreshTokenGrantRequest(
      as,
      client(config),
      oauth.None(),
      previous.refreshToken!,
      requestOptions(config, as.token_endpoint!, signal),
    );
    return tokenSet(await oauth.processRefreshTokenResponse(as, client(config), response), previous);
  } catch (err) {
    throw toAuthError(err);
  }
}

const PROFILE_CLAIMS = ['sub', 'email', 'name', 'preferred_username'] as const;
/** Keys that only an attack on object prototypes would send. */
const POISON_KEYS = ['__proto__', 'constructor', 'prototype'];
/** Controls, direction overrides and isolates (Trojan Source), and the start of a markup tag. */
const SUSPICIOUS = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]|<\s*[a-z!/?]/i;

/**
 * Keeps the four interface claims, each a string when present. The claims are display text for
 * people, so values with markup or hidden controls, or prototype-poisoning keys, refuse the answer.
 */
export function toProfile(claims: oauth.UserInfoResponse): UserProfile {
  if (POISON_KEYS.some((key) => Object.hasOwn(claims, key))) throw new AuthError('invalid_response');
  // processUserInfoResponse has already required `sub` to be a string.
  const profile = {} as UserProfile;
  for (const claim of PROFILE_CLAIMS) {
    const value = Object.hasOwn(claims, claim) ? claims[claim] : undefined;
    if (value === undefined) continue;
    if (typeof value !== 'string' || SUSPICIOUS.test(value)) throw new AuthError('invalid_response');
    profile[claim] = safeText(value);
  }
  return profile;
}

/** Reads a userinfo response (OIDC Core §5.3.2): JSON only, `sub` equal to the ID token's. */
export async function readUserInfo(config: AppConfig, tokens: TokenSet, response: Response): Promise<UserProfile> {
  try {
    const type = response.headers.get('content-type')?.split(';')[0].trim().toLowerCase();
    if (response.ok && type !== 'application/json') throw new AuthError('invalid_response');
    const claims = await oauth.processUserInfoResponse(
      authorizationServer(config),
      client(config),
      tokens.subject ?? oauth.skipSubjectCheck,
      response,
    );
    return toProfile(claims);
  } catch (err) {
    throw toAuthError(err);
  }
}

/** GET userinfo with the access token (OIDC Core §5.3.1). */
export async function fetchUserInfo(config: AppConfig, tokens: TokenSet, signal?: AbortSignal): Promise<UserProfile> {
  const as = authorizationServer(config);
  let response: Response;
  try {
    response = await oauth.userInfoRequest(
      as,
      client(config),
      tokens.accessToken,
      requestOptions(config, as.userinfo_endpoint!, signal),
    );
  } catch (err) {
    throw toAuthError(err);
  }
  return readUserInfo(config, tokens, response);
}
