// The demo protected API (its own origin, also its resource indicator, RFC 8707): GET /api/greeting,
// the per-user notes and GET /api/sensitive, called with an access token sent as Bearer or, for a
// DPoP-bound token, as DPoP with a proof (see api-auth.js).
//
// Two kinds of token reach it. The sign-in token (code exchange without `resource`) has no audience;
// it is good for /api/greeting and /api/sensitive when it carries service.api. A token issued for this
// API (a refresh with resource=<apiUrl>) has the API as its audience and only the API's own scopes:
// the notes take nothing else, reading needs notes.read and writing notes.write.
import { authenticate } from './api-auth.js';
import { createDpopVerifier } from './dpop.js';
import { pathOf, readBody, sendJson, sendNotFound } from './http.js';
import { createNotesStore, LIMITS, validateNote } from './notes.js';
import { DPOP_ALGS } from './provider.js';

export const API_SCOPE = 'service.api';

/** Path -> methods it answers; `:id` stands for one path segment. */
const ROUTES = [
  { pattern: /^\/api\/greeting$/, methods: ['GET'] },
  { pattern: /^\/api\/sensitive$/, methods: ['GET'] },
  { pattern: /^\/api\/notes$/, methods: ['GET', 'POST'] },
  { pattern: /^\/api\/notes\/([\w-]{1,32})$/, methods: ['GET'] },
];

/**
 * A WWW-Authenticate challenge (RFC 6750 §3, RFC 9449 §7.1); quoted values are fixed texts without quotes.
 * @param {'Bearer' | 'DPoP'} scheme
 * @param {Record<string, string>} quoted parameters written as quoted strings
 * @param {string} [tail] parameters written as they are, e.g. max_age=60
 */
function challenge(scheme, quoted, tail) {
  const params = Object.entries(quoted).map(([name, value]) => `${name}="${value}"`);
  return `${scheme} ${[...params, ...(tail ? [tail] : [])].join(', ')}`;
}

/**
 * 401 with an RFC 6750 / RFC 9449 error; a DPoP challenge names the proof algorithms the API takes.
 * @param {import('node:http').ServerResponse} res
 * @param {{ scheme: 'Bearer' | 'DPoP', code: string, description: string }} refusal
 * @param {Record<string, string>} headers
 */
function sendUnauthorized(res, { scheme, code, description }, headers) {
  /** @type {Record<string, string>} */
  const algs = scheme === 'DPoP' ? { algs: DPOP_ALGS.join(' ') } : {};
  sendJson(
    res,
    401,
    { error: code, error_description: description },
    { ...headers, 'WWW-Authenticate': challenge(scheme, { error: code, error_description: description, ...algs }) },
  );
}

/**
 * What the token lacks for this request, if anything (see the top of this file).
 * @param {{ aud?: string, scopes: Set<string> }} token
 * @param {string} path
 * @param {string} method
 * @param {string} apiUrl
 * @returns {{ audience: true } | { scope: string } | undefined}
 */
function shortfall(token, path, method, apiUrl) {
  const forApi = token.aud === apiUrl;
  if (path.startsWith('/api/notes')) {
    if (!forApi) return { audience: true };
    const scope = method === 'POST' ? 'notes.write' : 'notes.read';
    return token.scopes.has(scope) ? undefined : { scope };
  }
  if (forApi) return undefined;
  return token.scopes.has(API_SCOPE) ? undefined : { scope: API_SCOPE };
}

/**
 * @param {import('oidc-provider').default} provider
 * @param {{ apiUrl: string, allowedOrigins: Set<string>, dpopNonce: boolean, sensitiveMaxAge: number,
 *   users: import('./users.js').UserDirectory }} options
 *   apiUrl: this server's origin, the base of the htu every DPoP proof must name, and the audience of its tokens;
 *   allowedOrigins: origins allowed to call the API from a browser;
 *   sensitiveMaxAge: seconds since the login that /api/sensitive still accepts
 * @returns {(req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => Promise<void>}
 */
export function createApiHandler(provider, { apiUrl, allowedOrigins, dpopNonce, sensitiveMaxAge, users }) {
  const notes = createNotesStore();
  const dpop = createDpopVerifier({ algorithms: DPOP_ALGS, requireNonce: dpopNonce });

  return async function handleApi(req, res) {
    const path = pathOf(req.url);
    const route = ROUTES.find(({ pattern }) => pattern.test(path));
    if (!route) return sendNotFound(res);

    const origin = req.headers.origin;
    const cors = typeof origin === 'string' && allowedOrigins.has(origin);
    res.setHeader('Vary', 'Origin');

    if (req.method === 'OPTIONS') {
      // Preflight for the Authorization/DPoP headers and multipart bodies; no CORS headers for other sites.
      if (!cors) {
        res.writeHead(403).end();
        return;
      }
      res
        .writeHead(204, {
          'Access-Control-Allow-Origin': origin,
          'Access-Control-Allow-Methods': route.methods.join(', '),
          'Access-Control-Allow-Headers': 'Authorization, DPoP, Content-Type',
          'Access-Control-Max-Age': '600',
        })
        .end();
      return;
    }

    if (cors) {
      // No Allow-Credentials: the API is called with a token, never cookies.
      res.setHeader('Access-Control-Allow-Origin', origin);
      // The app reads WWW-Authenticate (invalid_token, insufficient_scope, insufficient_user_authentication,
      // use_dpop_nonce) and the next DPoP nonce.
      res.setHeader('Access-Control-Expose-Headers', 'WWW-Authenticate, DPoP-Nonce');
    }

    if (!route.methods.includes(req.method ?? '')) {
      res.writeHead(405, { Allow: [...route.methods, 'OPTIONS'].join(', ') }).end();
      return;
    }

    const caller = await authenticate(
      provider,
      dpop,
      {
        authorization: req.headers.authorization,
        proof: typeof req.headers.dpop === 'string' ? req.headers.dpop : undefined,
        method: req.method ?? '',
        url: new URL(path, apiUrl).href,
      },
      users.findUserBySub,
    );
    if ('code' in caller) return sendUnauthorized(res, caller, caller.nonce ? { 'DPoP-Nonce': caller.nonce } : {});
    const { token, user } = caller;
    /** @type {Record<string, string>} */
    const headers = caller.nonce ? { 'DPoP-Nonce': caller.nonce } : {};
    const scheme = token.jkt ? 'DPoP' : 'Bearer';
    const lacking = shortfall(token, path, req.method ?? '', apiUrl);
    if (lacking && 'audience' in lacking) {
      const description = 'access token audience is not this API';
      return sendUnauthorized(res, { scheme, code: 'invalid_token', description }, headers);
    }
    if (lacking) {
      // RFC 6750 §3.1: the scope the request needs, which the client can ask for and retry with.
      return sendJson(
        res,
        403,
        { error: 'insufficient_scope', error_description: `the ${lacking.scope} scope is required` },
        { ...headers, 'WWW-Authenticate': challenge(scheme, { error: 'insufficient_scope', scope: lacking.scope }) },
      );
    }

    if (path === '/api/sensitive') {
      // auth_time is stored with every access token by the provider's extraTokenClaims (provider.js).
      const authTime = token.extra?.auth_time;
      if (typeof authTime !== 'number' || Math.floor(Date.now() / 1000) - authTime > sensitiveMaxAge) {
        // RFC 9470 §3: the client is to sign in again with this max_age and repeat the call.
        const error_description = 'A more recent sign-in is required';
        return sendJson(
          res,
          401,
          { error: 'insufficient_user_authentication', error_description, max_age: sensitiveMaxAge },
          {
            ...headers,
            'WWW-Authenticate': challenge(
              scheme,
              { error: 'insufficient_user_authentication', error_description },
              `max_age=${sensitiveMaxAge}`,
            ),
          },
        );
      }
      return sendJson(
        res,
        200,
        { sub: user.sub, auth_time: authTime, max_age: sensitiveMaxAge, servedAt: new Date().toISOString() },
        headers,
      );
    }
    if (path === '/api/greeting') {
      return sendJson(
        res,
        200,
        { greeting: `Hello, ${user.name}!`, sub: user.sub, scope: token.scope, servedAt: new Date().toISOString() },
        headers,
      );
    }
    if (path === '/api/notes' && req.method === 'GET') return sendJson(res, 200, { items: notes.list(user.sub) }, headers);
    if (path === '/api/notes') {
      const result = await readNote(req, apiUrl);
      if ('error' in result) {
        return sendJson(res, 400, { error: 'invalid_request', error_description: result.error }, headers);
      }
      const note = notes.add(user.sub, result);
      if (!note) {
        const error_description = `at most ${LIMITS.notesPerUser} notes per user`;
        return sendJson(res, 400, { error: 'invalid_request', error_description }, headers);
      }
      return sendJson(res, 201, note, headers);
    }
    const note = notes.get(user.sub, path.slice('/api/notes/'.length));
    return note ? sendJson(res, 200, note, headers) : sendJson(res, 404, { error: 'not_found' }, headers);
  };
}

/**
 * Parses a multipart/form-data body (what a browser sends for FormData) with
 * the web platform's parser, after capping its size.
 * @param {import('node:http').IncomingMessage} req
 * @param {string} base any absolute URL; Request needs one
 * @returns {Promise<{ title: string, body: string } | { error: string }>}
 */
async function readNote(req, base) {
  const type = req.headers['content-type'] ?? '';
  if (!/^multipart\/form-data\s*;/i.test(type)) return { error: 'the body must be multipart/form-data' };
  const body = await readBody(req, LIMITS.requestBytes);
  if (!body) return { error: `the body must be at most ${LIMITS.requestBytes} bytes` };
  let form;
  try {
    form = await new Request(base, { method: 'POST', headers: { 'Content-Type': type }, body: Uint8Array.from(body) }).formData();
  } catch {
    return { error: 'the multipart body could not be parsed' };
  }
  return validateNote(form);
}
