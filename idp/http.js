// Small node:http helpers shared by the identity provider's servers.
import { once } from 'node:events';

/** Form bodies we accept are a username and a password: a few KB is plenty. */
const MAX_FORM_BYTES = 16 * 1024;

/**
 * Path of a request URL, without query; '' for a malformed target.
 * @param {string | undefined} target
 */
export function pathOf(target) {
  return URL.parse(target ?? '', 'http://request.invalid')?.pathname ?? '';
}

/**
 * Reads a request body up to a size cap.
 * @param {import('node:http').IncomingMessage} req
 * @param {number} maxBytes
 * @returns {Promise<Buffer | undefined>} undefined when the body is larger
 */
export async function readBody(req, maxBytes) {
  if (Number(req.headers['content-length']) > maxBytes) return undefined;
  let size = 0;
  const chunks = [];
  for await (const chunk of req) {
    size += chunk.length;
    if (size > maxBytes) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/**
 * Reads an application/x-www-form-urlencoded body.
 * @param {import('node:http').IncomingMessage} req
 * @returns {Promise<URLSearchParams | undefined>} undefined when the body is not a form or too large
 */
export async function readForm(req) {
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') return undefined;
  const body = await readBody(req, MAX_FORM_BYTES);
  return body && new URLSearchParams(body.toString('utf8'));
}

/**
 * Headers every HTML page of ours carries; `csp` comes from pages.pageCsp.
 * @param {string} csp
 */
export function htmlHeaders(csp) {
  return {
    'Content-Type': 'text/html; charset=utf-8',
    // Pages embed per-request state (interaction ids); never cache them.
    'Cache-Control': 'no-store',
    'Content-Security-Policy': csp,
    'Referrer-Policy': 'no-referrer',
    'X-Content-Type-Options': 'nosniff',
  };
}

/**
 * @param {import('node:http').ServerResponse} res
 * @param {number} status
 * @param {unknown} body
 * @param {Record<string, string>} [headers]
 */
export function sendJson(res, status, body, headers = {}) {
  const json = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(json),
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
  });
  res.end(json);
}

/** @param {import('node:http').ServerResponse} res */
export function sendNotFound(res) {
  sendJson(res, 404, { error: 'not_found' });
}

/**
 * Listens on host:port (0 = ephemeral) and resolves with the bound port.
 * @param {import('node:http').Server} server
 * @param {string} host
 * @param {number} port
 */
export async function listen(server, host, port) {
  server.listen(port, host);
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('server has no TCP address');
  return address.port;
}

/**
 * Stops accepting connections and drops idle keep-alive ones, so close
 * resolves at once instead of waiting for browsers to hang up.
 * @param {import('node:http').Server} server
 */
export async function closeServer(server) {
  if (!server.listening) return;
  const closed = once(server, 'close');
  server.close();
  server.closeAllConnections();
  await closed;
}
