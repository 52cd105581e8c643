// The demo protected API (its own origin): GET /api/greeting with a Bearer
// access token that carries the service.api scope. Tokens are opaque, so the
// API looks them up in the provider it shares the process with, the way a real
// resource server would call introspection.
import { sendJson, sendNotFound, pathOf } from './http.js';
import { findUserBySub } from './users.js';

export const API_SCOPE = 'service.api';
const GREETING_PATH = '/api/greeting';

/** RFC 6750 b64token after the "Bearer" scheme (scheme is case-insensitive). */
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i;

/**
 * @param {import('oidc-provider').default} provider
 * @param {{ allowedOrigins: Set<string> }} options origins allowed to call the API from a browser
 * @returns {(req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => Promise<void>}
 */
export function createApiHandler(provider, { allowedOrigins }) {
  return async function handleApi(req, res) {
    if (pathOf(req.url) !== GREETING_PATH) return sendNotFound(res);

    const origin = req.headers.origin;
    const cors = typeof origin === 'string' && allowedOrigins.has(origin);
    res.setHeader('Vary', 'Origin');

    if (req.method === 'OPTIONS') {
      // Preflight for the Authorization header; no CORS headers for other sites.
      if (!cors) {
        res.writeHead(403).end();
        return;
      }
      res
        .writeHead(204, {
          'Access-Control-Allow-Origin': origin,
          'Access-Control-Allow-Methods': 'GET',
          'Access-Control-Allow-Headers': 'Authorization',
          'Access-Control-Max-Age': '600',
        })
        .end();
      return;
    }

    if (cors) {
      // No Allow-Credentials: the API is called with a token, never cookies.
      res.setHeader('Access-Control-Allow-Origin', origin);
      // The app reads WWW-Authenticate to tell invalid_token from insufficient_scope.
      res.setHeader('Access-Control-Expose-Headers', 'WWW-Authenticate');
    }

    if (req.method !== 'GET') {
      res.writeHead(405, { Allow: 'GET, OPTIONS' }).end();
      return;
    }

    const found = await findToken(provider, req.headers.authorization);
    if ('error' in found) {
      return sendJson(
        res,
        401,
        { error: 'invalid_token', error_description: found.error },
        {
          'WWW-Authenticate': `Bearer error="invalid_token", error_description="${found.error}"`,
        },
      );
    }
    const { token, user } = found;
    if (!token.scopes.has(API_SCOPE)) {
      return sendJson(
        res,
        403,
        { error: 'insufficient_scope', error_description: `the ${API_SCOPE} scope is required` },
        {
          'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${API_SCOPE}"`,
        },
      );
    }
    sendJson(res, 200, {
      greeting: `Hello, ${user.name}!`,
      sub: user.sub,
      scope: token.scope,
      servedAt: new Date().toISOString(),
    });
  };
}

/**
 * Validates the bearer token the same way oidc-provider's userinfo does:
 * known and unexpired (AccessToken.find also drops tokens whose session
 * ended), not sender-constrained, its grant alive, its account existing.
 * Error texts are fixed strings (they go into a quoted header parameter).
 * @param {import('oidc-provider').default} provider
 * @param {string | undefined} authorization
 * @returns {Promise<{ error: string } | { token: any, user: import('./users.js').DemoUser }>}
 */
async function findToken(provider, authorization) {
  const value = BEARER.exec(authorization ?? '')?.[1];
  if (!value) return { error: 'missing bearer token' };
  const token = await provider.AccessToken.find(value);
  if (!token) return { error: 'unknown or expired token' };
  if (token.isSenderConstrained()) return { error: 'sender-constrained token' };
  const grant = await provider.Grant.find(token.grantId);
  if (!grant || grant.accountId !== token.accountId || grant.clientId !== token.clientId) {
    return { error: 'grant revoked or expired' };
  }
  const user = findUserBySub(token.accountId);
  if (!user) return { error: 'unknown account' };
  return { token, user };
}
