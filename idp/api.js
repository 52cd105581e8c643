// The demo protected API (its own origin): GET /api/greeting and the per-user
// notes, all needing an access token with the service.api scope, sent as
// Bearer or, for a DPoP-bound token, as DPoP with a proof (see api-auth.js).
import { authenticate } from './api-auth.js';
import { createDpopVerifier } from './dpop.js';
import { pathOf, readBody, sendJson, sendNotFound } from './http.js';
import { createNotesStore, LIMITS, validateNote } from './notes.js';
import { DPOP_ALGS } from './provider.js';

export const API_SCOPE = 'service.api';

/** Path -> methods it answers; `:id` stands for one path segment. */
const ROUTES = [
  { pattern: /^\/api\/greeting$/, methods: ['GET'] },
  { pattern: /^\/api\/notes$/, methods: ['GET', 'POST'] },
  { pattern: /^\/api\/notes\/([\w-]{1,32})$/, methods: ['GET'] },
];

/**
 * @param {import('oidc-provider').default} provider
 * @param {{ apiUrl: string, allowedOrigins: Set<string>, dpopNonce: boolean, users: import('./users.js').UserDirectory }} options
 *   apiUrl: this server's origin, the base of the htu every DPoP proof must name;
 *   allowedOrigins: origins allowed to call the API from a browser
 * @returns {(req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => Promise<void>}
 */
export function createApiHandler(provider, { apiUrl, allowedOrigins, dpopNonce, users }) {
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
      // The app reads WWW-Authenticate (invalid_token, insufficient_scope, use_dpop_nonce) and the next DPoP nonce.
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
    if ('code' in caller) {
      const algs = caller.scheme === 'DPoP' ? `, algs="${DPOP_ALGS.join(' ')}"` : '';
      return sendJson(
        res,
        401,
        { error: caller.code, error_description: caller.description },
        {
          'WWW-Authenticate': `${caller.scheme} error="${caller.code}", error_description="${caller.description}"${algs}`,
          ...(caller.nonce ? { 'DPoP-Nonce': caller.nonce } : {}),
        },
      );
    }
    const { token, user } = caller;
    /** @type {Record<string, string>} */
    const headers = caller.nonce ? { 'DPoP-Nonce': caller.nonce } : {};
    if (!token.scopes.has(API_SCOPE)) {
      const scheme = token.jkt ? 'DPoP' : 'Bearer';
      return sendJson(
        res,
        403,
        { error: 'insufficient_scope', error_description: `the ${API_SCOPE} scope is required` },
        { ...headers, 'WWW-Authenticate': `${scheme} error="insufficient_scope", scope="${API_SCOPE}"` },
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
