// oidc-provider configuration of the local identity provider.
import { generateKeyPair, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';

import Provider, { errors } from 'oidc-provider';
// The same per-instance in-memory store oidc-provider uses by default; importing
// its factory only avoids the "development-only adapter" warning on every start.
import { createMemoryAdapter } from 'oidc-provider/lib/adapters/memory_adapter.js';

import { logoutPage, messagePage, pageCsp } from './pages.js';

export const SCOPES = ['openid', 'profile', 'email', 'service.api'];

/** Scopes of the demo API as a resource server (RFC 8707): reading and writing notes. */
export const API_SCOPES = ['notes.read', 'notes.write'];

/**
 * DPoP proof algorithms of the provider and the demo API alike (oidc-provider's defaults).
 * @type {('ES256' | 'Ed25519' | 'EdDSA')[]}
 */
export const DPOP_ALGS = ['ES256', 'Ed25519', 'EdDSA'];

export const ROUTES = {
  authorization: '/connect/authorize',
  token: '/connect/token',
  userinfo: '/connect/userinfo',
  jwks: '/connect/jwks',
  end_session: '/connect/endsession',
  revocation: '/connect/revocation',
};

/**
 * One RS256 signing key per process, generated on first use: RS256 is what
 * clients (oauth4webapi) expect by default, and RSA key generation takes a
 * noticeable moment, so tests that start many providers share it. Nothing is
 * persisted: ID tokens of a previous run simply stop verifying.
 * @type {Promise<import('node:crypto').JsonWebKey> | undefined}
 */
let signingKey;
function getSigningKey() {
  signingKey ??= promisify(generateKeyPair)('rsa', { modulusLength: 2048 }).then(({ privateKey }) => ({
    ...privateKey.export({ format: 'jwk' }),
    kid: randomBytes(8).toString('hex'),
    alg: 'RS256',
    use: 'sig',
  }));
  return signingKey;
}

/** @param {Iterable<string>} uris */
export function originsOf(uris) {
  return new Set([...uris].map((uri) => new URL(uri).origin));
}

/**
 * @typedef {object} ProviderOptions
 * @property {string} issuer account origin, e.g. http://localhost:9010
 * @property {string} authUrl origin serving userinfo, e.g. http://127.0.0.1:9011
 * @property {string} apiUrl the demo API's origin, e.g. http://127.0.0.1:9012: also its resource
 *   indicator and the audience of its tokens, compared as written (no trailing slash)
 * @property {string} clientId
 * @property {string[]} redirectUris
 * @property {string[]} [postLogoutRedirectUris] where a sign-out may return; default redirectUris
 * @property {number} accessTokenTtl seconds
 * @property {number} refreshTokenTtl seconds; also bounds the IdP session and the grant
 * @property {string} cookieSuffix makes cookie names unique per server
 * @property {boolean} dpopNonce require a server-provided nonce in every DPoP proof (RFC 9449 §8)
 * @property {import('./users.js').UserDirectory} users the accounts people sign in with
 * @property {ReturnType<typeof import('./logout.js').createLogoutPrompts>} logoutPrompts where the
 *   sign-out confirmation is shown, on a page of its own
 * @property {boolean} [logoutPromptAtEndSession] show the confirmation as the answer to the end-session
 *   request itself, as a stock oidc-provider does, instead of redirecting to its own page
 * @property {boolean} [refreshTokens] default true; false registers the client without the refresh_token grant
 * @property {Set<string>} [corsOrigins] origins the token, userinfo and revocation endpoints answer CORS for;
 *   default the origins of redirectUris
 */

/** @param {ProviderOptions} options */
export async function createProvider(options) {
  const {
    issuer,
    authUrl,
    apiUrl,
    clientId,
    redirectUris,
    postLogoutRedirectUris = redirectUris,
    accessTokenTtl,
    refreshTokenTtl,
    cookieSuffix,
    dpopNonce,
    users,
    logoutPrompts,
    logoutPromptAtEndSession = false,
    refreshTokens = true,
    corsOrigins = originsOf(redirectUris),
  } = options;
  const csp = pageCsp(originsOf(redirectUris));

  const provider = new Provider(issuer, {
    adapter: createMemoryAdapter(),
    clients: [
      {
        client_id: clientId,
        client_name: 'Demo SPA',
        application_type: 'web',
        // A browser app cannot keep a secret: public client, PKCE protects the code.
        token_endpoint_auth_method: 'none',
        grant_types: refreshTokens ? ['authorization_code', 'refresh_token'] : ['authorization_code'],
        response_types: ['code'],
        redirect_uris: redirectUris,
        post_logout_redirect_uris: postLogoutRedirectUris,
        scope: SCOPES.join(' '),
      },
    ],
    // service.api stays a plain OpenID scope: the sign-in token (code exchange without
    // `resource`) has no audience, which is what oidc-provider requires at userinfo, and
    // the demo API still accepts it for /api/greeting. The notes scopes belong to the API
    // as a resource server (features.resourceIndicators below).
    scopes: SCOPES,
    claims: {
      openid: ['sub'],
      profile: ['name', 'preferred_username'],
      email: ['email'],
    },
    responseTypes: ['code'],
    pkce: { required: () => true }, // S256 is the only method oidc-provider 9 supports
    allowOmittingSingleRegisteredRedirectUri: false,
    routes: ROUTES,
    enabledJWA: { dPoPSigningAlgValues: DPOP_ALGS },
    features: {
      devInteractions: { enabled: false }, // its login page accepts any password
      // RFC 8707: the demo API is a resource server with its own audience and scopes. The
      // app names it with `resource` at authorization (the grant then holds the API's scopes)
      // and again at a refresh for a token meant for the API alone (§2.2).
      resourceIndicators: {
        enabled: true,
        // No `resource` at the token endpoint means the sign-in token: defaultResource keeps the
        // default (none), and useGrantedResource stays false, so a code exchange with `openid`
        // gets an audience-less token userinfo accepts even when the authorization named the API.
        useGrantedResource: async () => false,
        async getResourceServerInfo(_ctx, resourceIndicator) {
          if (resourceIndicator !== apiUrl) throw new errors.InvalidTarget();
          return {
            scope: API_SCOPES.join(' '),
            audience: apiUrl,
            accessTokenTTL: accessTokenTtl,
            // The API looks tokens up in this provider (api-auth.js): they must stay opaque.
            accessTokenFormat: 'opaque',
          };
        },
      },
      // A token request with a DPoP proof gets a DPoP-bound access token (cnf.jkt), and the
      // public client's refresh token is bound to the same key; without a proof, plain Bearer.
      dPoP: {
        enabled: true,
        nonceSecret: dpopNonce ? randomBytes(32) : undefined,
        requireNonce: () => dpopNonce,
      },
      revocation: {
        enabled: true,
        // A public client can prove nothing but its client_id: it may revoke only its own tokens.
        allowedPolicy: async (_ctx, client, token) => token.clientId === client.clientId,
      },
      pushedAuthorizationRequests: { enabled: false },
      userinfo: { enabled: true },
      // GET only, like a default oidc-provider (POST needs enableHttpPostMethods and SameSite=None
      // cookies): a POST to the end-session endpoint is a 404.
      rpInitiatedLogout: {
        enabled: true,
        async logoutSource(ctx, form) {
          const prompt = {
            form,
            clientName: ctx.oidc.client?.clientName,
            userName: users.findUserBySub(String(ctx.oidc.session?.accountId))?.name,
          };
          // oidc-provider's xsrf secret, which the form carries and its confirm step checks.
          const secret = ctx.oidc.session?.state?.secret;
          if (logoutPromptAtEndSession || typeof secret !== 'string') {
            ctx.body = logoutPage(prompt);
            return;
          }
          // The prompt on a page of its own (logout.js): the end-session request leaves no history entry.
          ctx.status = 303;
          ctx.redirect(logoutPrompts.add({ ...prompt, secret }));
        },
        async postLogoutSuccessSource(ctx) {
          ctx.body = messagePage({ title: 'Signed out', message: 'You have been signed out. You can close this page.' });
        },
      },
    },
    interactions: {
      url: (_ctx, interaction) => `/interaction/${interaction.uid}`,
    },
    findAccount: users.findAccount,
    // The API's max_age check (RFC 9470, /api/sensitive) needs the time of the login behind an
    // access token. oidc-provider keeps authTime on the authorization code and on the refresh token
    // (copied on every rotation) but not on the access token, whose session may since have logged in
    // again. It stores what this returns in the opaque token's `extra` (what introspection would
    // report), so every access token carries the auth_time of the code or refresh token it came from.
    async extraTokenClaims(ctx) {
      const source = ctx?.oidc?.entities.AuthorizationCode ?? ctx?.oidc?.entities.RefreshToken;
      return typeof source?.authTime === 'number' ? { auth_time: source.authTime } : undefined;
    },
    // Refresh tokens for every code grant of the app (no offline_access needed) unless the client
    // lacks the grant (refreshTokens: false), rotated on every use; reuse of a rotated one revokes
    // the whole grant.
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: true,
    // One client, so the origins it may call from are the provider's: the app's, unless a test says otherwise.
    clientBasedCORS: (_ctx, origin) => corsOrigins.has(origin),
    ttl: {
      AccessToken: accessTokenTtl,
      AuthorizationCode: 60,
      IdToken: 3600,
      Interaction: 10 * 60,
      Session: refreshTokenTtl,
      Grant: refreshTokenTtl,
      // A rotated token inherits what is left of its predecessor's lifetime,
      // so renewal cannot extend a sign-in beyond refreshTokenTtl.
      RefreshToken: (ctx) => {
        const rotated = ctx?.oidc?.entities.RotatedRefreshToken;
        return rotated ? Math.max(1, rotated.remainingTTL) : refreshTokenTtl;
      },
    },
    cookies: {
      // Random per start: sessions do not survive a restart of this dev server.
      keys: [randomBytes(32).toString('base64url')],
      // Cookies are not isolated by port, so two providers on localhost (dev and
      // a test run) would overwrite each other's session without a suffix.
      names: {
        session: `_session_${cookieSuffix}`,
        interaction: `_interaction_${cookieSuffix}`,
        resume: `_interaction_resume_${cookieSuffix}`,
      },
    },
    jwks: { keys: [await getSigningKey()] },
    async renderError(ctx, out) {
      ctx.type = 'html';
      ctx.body = messagePage({
        title: 'Sign-in failed',
        message: 'The request could not be completed. Go back to the app and try again.',
        details: [out.error, out.error_description].filter(Boolean).join(': '),
      });
    },
  });

  provider.use(async (ctx, next) => {
    ctx.set('Content-Security-Policy', csp);
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.set('X-Content-Type-Options', 'nosniff');

    // oidc-provider answers every CORS preflight (it cannot know the client
    // yet) and only checks the origin on the real request. Refuse preflights
    // from origins that are not the app's (corsOrigins), so no other site even gets that far.
    const origin = ctx.get('Origin');
    if (
      ctx.method === 'OPTIONS' &&
      origin &&
      !corsOrigins.has(origin) &&
      [ROUTES.token, ROUTES.userinfo, ROUTES.revocation].includes(ctx.path)
    ) {
      ctx.status = 403;
      return;
    }

    await next();

    // A confirmed or declined sign-out: its prompt page no longer offers the form.
    if (ctx.oidc?.route === 'end_session_confirm' && ctx.status === 303 && typeof ctx.oidc.params?.xsrf === 'string') {
      logoutPrompts.answered(ctx.oidc.params.xsrf);
    }

    // Userinfo lives on the auth origin, not at urlFor('userinfo').
    if (ctx.oidc?.route === 'discovery' && ctx.body && typeof ctx.body === 'object') {
      ctx.body.userinfo_endpoint = new URL(ROUTES.userinfo, authUrl).href;
    }
  });

  provider.on('server_error', (_ctx, error) => {
    console.error('idp: server error', error);
  });

  return provider;
}
