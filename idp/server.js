// Local OpenID provider for development and tests: one oidc-provider instance
// served on two origins like the real service (account origin: issuer,
// authorize, token, our login pages; auth origin: userinfo only) plus the demo
// API on a third origin.
import { createServer } from 'node:http';

import { createApiHandler } from './api.js';
import { closeServer, listen, pathOf, sendJson, sendNotFound } from './http.js';
import { createInteractionHandler } from './interactions.js';
import { createLogoutPrompts, LOGOUT_PAGE_PATH } from './logout.js';
import { endSessionByPostOnly, refuseFraming } from './misconfigured.js';
import { pageCsp } from './pages.js';
import { API_SCOPES, createProvider, originsOf, ROUTES } from './provider.js';
import { createUserDirectory } from './users.js';

/** The app's dev (5173) and preview (4173) URLs, by both loopback names. */
export const DEFAULT_REDIRECT_URIS = Object.freeze([
  'http://localhost:5173/',
  'http://127.0.0.1:5173/',
  'http://localhost:4173/',
  'http://127.0.0.1:4173/',
]);

/**
 * @typedef {object} IdpOptions
 * @property {'127.0.0.1'} [host] bind address; loopback only (the URLs use localhost and 127.0.0.1)
 * @property {number} [accountPort] 0 = ephemeral
 * @property {number} [authPort] 0 = ephemeral
 * @property {number} [apiPort] 0 = ephemeral
 * @property {string} [clientId]
 * @property {string[]} [redirectUris] the app URLs, e.g. ['http://localhost:5173/']
 * @property {string[]} [postLogoutRedirectUris] where a sign-out may return (post_logout_redirect_uri); default redirectUris
 * @property {number} [accessTokenTtl] seconds, default 300
 * @property {number} [refreshTokenTtl] seconds, default 86400; also how long the IdP session lasts
 * @property {boolean} [dpopNonce] default false; the provider and the demo API then require a DPoP nonce in every proof
 * @property {number} [sensitiveMaxAge] seconds, default 60: how recent a login /api/sensitive demands (RFC 9470 max_age)
 * @property {import('./users.js').DemoUser[]} [extraUsers] accounts besides the demo users, e.g. a test's unusual names
 * @property {boolean} [logoutPromptAtEndSession] default false: the sign-out confirmation is the answer to the
 *   end-session request itself, as with a stock oidc-provider, instead of a page of its own the request redirects to
 * @property {boolean} [refreshTokens] default true; false registers the client without the refresh_token grant, so
 *   none is ever issued (as a stock oidc-provider does for a public client)
 * @property {boolean} [allowFraming] default true; false answers an authorization request sent as a frame would
 *   send it (Sec-Fetch-Dest: iframe) with a page that forbids framing, as providers that refuse framing do
 * @property {string[]} [corsOrigins] origins the token, userinfo and revocation endpoints answer CORS for;
 *   default the origins of redirectUris
 * @property {boolean} [endSessionGet] default true; false refuses a GET at the end-session endpoint with 405 and
 *   takes the same parameters by POST, as POST-only providers do
 * @property {string} [issuer] the issuer the provider announces and signs with; default accountUrl
 * @property {boolean} [quiet] do not print the banner
 */

/**
 * @typedef {object} Idp
 * @property {string} accountUrl http://localhost:PORT (issuer, authorize, token)
 * @property {string} authUrl http://127.0.0.1:PORT (userinfo)
 * @property {string} apiUrl http://127.0.0.1:PORT (/api/greeting, /api/notes, /api/sensitive); also the
 *   API's resource indicator (RFC 8707) and the audience of its tokens
 * @property {string} issuer accountUrl unless the `issuer` option says otherwise
 * @property {string} clientId
 * @property {{ username: string, password: string, name: string, email: string }[]} users
 * @property {() => Promise<void>} close
 */

/**
 * @param {IdpOptions} [options]
 * @returns {Promise<Idp>}
 */
export async function startIdp(options = {}) {
  const {
    host = '127.0.0.1',
    accountPort = 0,
    authPort = 0,
    apiPort = 0,
    clientId = 'demo-spa',
    redirectUris = [...DEFAULT_REDIRECT_URIS],
    postLogoutRedirectUris = redirectUris,
    accessTokenTtl = 300,
    refreshTokenTtl = 86400,
    dpopNonce = false,
    sensitiveMaxAge = 60,
    extraUsers = [],
    logoutPromptAtEndSession = false,
    refreshTokens = true,
    allowFraming = true,
    corsOrigins = [...originsOf(redirectUris)],
    endSessionGet = true,
    issuer,
    quiet = false,
  } = options;
  // accountUrl says "localhost", which always reaches 127.0.0.1.
  if (host !== '127.0.0.1') throw new TypeError('startIdp: host must be 127.0.0.1');
  for (const [name, value] of Object.entries({ accountPort, authPort, apiPort })) {
    if (!Number.isInteger(value) || value < 0 || value > 65535) throw new TypeError(`startIdp: invalid ${name}`);
  }
  for (const [name, value] of Object.entries({ accessTokenTtl, refreshTokenTtl, sensitiveMaxAge })) {
    if (!Number.isInteger(value) || value < 1) throw new TypeError(`startIdp: ${name} must be a positive integer (seconds)`);
  }
  if (typeof clientId !== 'string' || !clientId) throw new TypeError('startIdp: invalid clientId');
  if (!Array.isArray(redirectUris) || redirectUris.length === 0 || !redirectUris.every((uri) => URL.canParse(uri))) {
    throw new TypeError('startIdp: redirectUris must be a non-empty list of absolute URLs');
  }
  if (!Array.isArray(postLogoutRedirectUris) || !postLogoutRedirectUris.every((uri) => URL.canParse(uri))) {
    throw new TypeError('startIdp: postLogoutRedirectUris must be a list of absolute URLs');
  }
  for (const [name, value] of Object.entries({ refreshTokens, allowFraming, endSessionGet })) {
    if (typeof value !== 'boolean') throw new TypeError(`startIdp: ${name} must be a boolean`);
  }
  // An origin as browsers send it in the Origin header: anything more would never match.
  if (!Array.isArray(corsOrigins) || !corsOrigins.every((origin) => URL.parse(origin)?.origin === origin)) {
    throw new TypeError('startIdp: corsOrigins must be a list of bare origins like http://localhost:5173');
  }
  if (issuer !== undefined && !URL.canParse(issuer)) throw new TypeError('startIdp: issuer must be an absolute URL');
  const directory = createUserDirectory(extraUsers);

  // Ephemeral ports are only known after listening, and the issuer contains the
  // port: listen first, answer 503 until the provider exists.
  /** @type {Record<'account' | 'auth' | 'api', import('node:http').RequestListener | undefined>} */
  const handlers = { account: undefined, auth: undefined, api: undefined };
  const servers = /** @type {const} */ (['account', 'auth', 'api']).map((name) =>
    createServer((req, res) => {
      const handler = handlers[name];
      if (!handler) return sendJson(res, 503, { error: 'starting' });
      Promise.resolve(handler(req, res)).catch((error) => {
        console.error(`idp: ${name} request failed`, error);
        if (!res.headersSent) sendJson(res, 500, { error: 'server_error' });
        else res.destroy();
      });
    }),
  );
  const close = async () => {
    await Promise.all(servers.map(closeServer));
  };

  let ports;
  try {
    ports = await Promise.all(servers.map((server, i) => listen(server, host, [accountPort, authPort, apiPort][i])));
  } catch (error) {
    await close();
    throw error;
  }
  const accountUrl = `http://localhost:${ports[0]}`;
  const authUrl = `http://127.0.0.1:${ports[1]}`;
  const apiUrl = `http://127.0.0.1:${ports[2]}`;

  const logoutPrompts = createLogoutPrompts({ csp: pageCsp(originsOf([...redirectUris, ...postLogoutRedirectUris])) });
  let provider;
  try {
    provider = await createProvider({
      issuer: issuer ?? accountUrl,
      authUrl,
      apiUrl,
      clientId,
      redirectUris,
      postLogoutRedirectUris,
      accessTokenTtl,
      refreshTokenTtl,
      cookieSuffix: String(ports[0]),
      dpopNonce,
      users: directory,
      logoutPrompts,
      logoutPromptAtEndSession,
      refreshTokens,
      corsOrigins: new Set(corsOrigins),
    });
  } catch (error) {
    await close();
    throw error;
  }
  const callback = provider.callback();
  const interactions = createInteractionHandler(provider, { redirectUris, users: directory });

  handlers.account = async (req, res) => {
    const path = pathOf(req.url);
    // Userinfo is served on the auth origin only, like the real service.
    if (path === ROUTES.userinfo) return sendNotFound(res);
    if (path.startsWith('/interaction/')) return interactions(req, res, path);
    if (path.startsWith(LOGOUT_PAGE_PATH)) return logoutPrompts.handle(req, res, path);
    if (!allowFraming && path === ROUTES.authorization && req.headers['sec-fetch-dest'] === 'iframe') {
      return refuseFraming(res, pageCsp(originsOf(redirectUris)));
    }
    if (!endSessionGet && path === ROUTES.end_session) return endSessionByPostOnly(req, res, callback);
    return callback(req, res);
  };
  handlers.auth = (req, res) => (pathOf(req.url) === ROUTES.userinfo ? callback(req, res) : sendNotFound(res));
  handlers.api = createApiHandler(provider, {
    apiUrl,
    allowedOrigins: originsOf(redirectUris),
    dpopNonce,
    sensitiveMaxAge,
    users: directory,
  });

  const users = directory.users.map(({ username, password, name, email }) => ({ username, password, name, email }));
  if (!quiet) {
    printBanner({
      accountUrl,
      authUrl,
      apiUrl,
      clientId,
      redirectUris,
      users,
      dpopNonce,
      sensitiveMaxAge,
      refreshTokens,
      allowFraming,
    });
  }

  return { accountUrl, authUrl, apiUrl, issuer: issuer ?? accountUrl, clientId, users, close };
}

/**
 * @param {{ accountUrl: string, authUrl: string, apiUrl: string, clientId: string,
 *   redirectUris: string[], users: { username: string, password: string }[], dpopNonce: boolean,
 *   sensitiveMaxAge: number, refreshTokens: boolean, allowFraming: boolean }} info
 */
function printBanner(info) {
  const { accountUrl, authUrl, apiUrl, clientId, redirectUris, users, dpopNonce, sensitiveMaxAge } = info;
  console.log(
    [
      'Local identity provider (development only) is running:',
      `  issuer / account  ${accountUrl}  (${ROUTES.authorization}, ${ROUTES.token}, ${ROUTES.revocation}, ${ROUTES.end_session})`,
      `  auth (userinfo)   ${authUrl}${ROUTES.userinfo}`,
      `  demo API          ${apiUrl}/api/greeting, ${apiUrl}/api/notes, ${apiUrl}/api/sensitive (login at most ${sensitiveMaxAge}s old)`,
      `  API resource      ${apiUrl}  (scopes ${API_SCOPES.join(', ')})`,
      `  DPoP nonces       ${dpopNonce ? 'required' : 'off'}`,
      `  refresh tokens    ${info.refreshTokens ? 'issued' : 'off (the client lacks the grant)'}`,
      `  framing           ${info.allowFraming ? 'allowed' : 'refused (a framed authorization request gets X-Frame-Options: DENY)'}`,
      `  client            ${clientId} -> ${redirectUris.join(', ')}`,
      `  demo users        ${users.map((u) => `${u.username} / ${u.password}`).join(',  ')}`,
    ].join('\n'),
  );
}
