// A static server for one build in an A/B run. It serves files the way tests/support/static-server.ts
// does (no SPA fallback, config.json from memory, the same Cache-Control), but takes the
// security-headers module as a parameter: that server always loads this checkout's, and a base
// revision's build must be served with the headers its own commit generates.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { CONFIG_CACHE_CONTROL, resolveInside, serveOnLoopback, TYPES, type AppServer } from '../support/static-server';

type HeadersFn = (config: Record<string, unknown>, options?: { dev?: boolean }) => Record<string, string>;

/**
 * @param without response headers left out (by name, as the module spells them): how the bench's
 *   floor shows what one header costs a page.
 */
export async function serveBuild(dir: string, headersFile: string, without: string[] = []): Promise<AppServer> {
  const root = path.resolve(dir);
  const mod = (await import(pathToFileURL(headersFile).href)) as { securityHeaders?: HeadersFn };
  if (typeof mod.securityHeaders !== 'function') throw new Error(`${headersFile} does not export securityHeaders()`);
  const securityHeaders = mod.securityHeaders;
  let config: Record<string, unknown> = {};

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const headers = securityHeaders(config, { dev: false });
    for (const name of without) delete headers[name];
    const send = (status: number, type: string, body: string | Buffer, extra: Record<string, string> = {}) => {
      res.writeHead(status, { ...headers, 'Content-Type': type, 'Content-Length': String(Buffer.byteLength(body)), ...extra });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, 'text/plain; charset=utf-8', 'Method Not Allowed\n');
    const { pathname } = new URL(req.url ?? '/', 'http://localhost');
    if (pathname === '/config.json') {
      return send(200, TYPES['.json'], JSON.stringify(config), { 'Cache-Control': CONFIG_CACHE_CONTROL });
    }
    const file = resolveInside(root, pathname === '/' ? '/index.html' : pathname);
    const info = file ? await stat(file).catch(() => null) : null;
    if (!file || !info?.isFile()) return send(404, 'text/plain; charset=utf-8', 'Not Found\n');
    const isIndex = path.basename(file) === 'index.html';
    const cache = isIndex ? 'no-store' : pathname.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache';
    send(200, TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream', await readFile(file), {
      'Cache-Control': cache,
    });
  }

  const server = await serveOnLoopback(handle);
  return {
    ...server,
    setConfig(next) {
      config = { ...next };
    },
  };
}
