// A tiny static server for the BUILT app (dist/), used by the end-to-end and hostile suites.
// It behaves like a plain static host: files only, no SPA fallback (the app uses hash routes and its
// callback is the root URL), the runtime config.json served from memory so each test file can point
// the app at its own identity provider, and the same security headers every real deployment sends.
// serveApps puts the same build at several paths of one origin, each with a config.json of its own.
import { createServer, type IncomingMessage, type ServerOptions, type ServerResponse } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { AddressInfo } from 'node:net';

/**
 * config.json is cached for five minutes, as the README's nginx example serves it: a new tab and both
 * documents of a silent restore read it from the cache instead of a round trip each. A swapped config
 * reaches open browsers within that time; the CSP comes with index.html, never cached, so it always
 * follows the current config.
 */
export const CONFIG_CACHE_CONTROL = 'max-age=300';
export interface AppServer {
  /** 'http://localhost:PORT/' — the app's URL and its default redirect_uri. */
  url: string;
  /** Replace the config returned for GET /config.json (and used for the CSP) on later requests. */
  setConfig(config: Record<string, unknown>): void;
  close(): Promise<void>;
}

type HeadersFn = (config: Record<string, unknown>, options?: { dev?: boolean }) => Record<string, string>;

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Content types of the files a built app or site serves. */
export const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.webmanifest': 'application/manifest+json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

async function loadSecurityHeaders(): Promise<HeadersFn> {
  const file = path.join(repoRoot, 'scripts/security-headers.js');
  if (!existsSync(file)) throw new Error(`${file} is missing: the test server sends the app's security headers from it`);
  const mod = (await import(pathToFileURL(file).href)) as { securityHeaders?: HeadersFn };
  if (typeof mod.securityHeaders !== 'function') throw new Error(`${file} does not export securityHeaders()`);
  return mod.securityHeaders;
}

/** Map a URL path to a file inside root, or null when it would escape root or is malformed. */
export function resolveInside(root: string, urlPath: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return null;
  const file = path.resolve(root, '.' + path.posix.normalize('/' + decoded));
  return file === root || file.startsWith(root + path.sep) ? file : null;
}

/**
 * Serves `handle` on an ephemeral loopback port; a handler failure answers 500. `close()` drops the
 * browser's idle keep-alive sockets first, so it does not hang.
 */
export async function serveOnLoopback(
  handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
  options: ServerOptions = {},
): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer(options, (req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end(`Internal error: ${err instanceof Error ? err.message : String(err)}\n`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://localhost:${port}/`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}

/** One app of a server that serves the build at several paths (serveApps). */
export interface MountedApp {
  /** 'http://localhost:PORT/a/' — this app's URL, and its default redirect_uri. */
  url: string;
  /** Replace this app's config.json (and the CSP of its pages) on later requests. */
  setConfig(config: Record<string, unknown>): void;
}

export interface AppsServer {
  /** 'http://localhost:PORT', shared by every app of the server. */
  origin: string;
  /** The apps by mount path, e.g. apps['/a/']. */
  apps: Record<string, MountedApp>;
  close(): Promise<void>;
}

export interface ServeOptions {
  /** The build to serve; default dist/ (or APP_DIST). */
  dir?: string;
  /**
   * The CSP's worker-src instead of 'self': "'none'" refuses the session's shared worker, so the app's
   * pages run the in-page host, as under a site policy that allows no workers.
   */
  workerSrc?: string;
}

/** The mount whose path starts `pathname`, the longest if several do. */
const mountOf = (mounts: string[], pathname: string) =>
  mounts.filter((mount) => pathname.startsWith(mount)).sort((a, b) => b.length - a.length)[0];

/**
 * The same build at each of `mounts` ('/a/', '/b/') of one origin, as a host serving two deployments
 * of the app side by side: each path has its own config.json and the CSP made from it, and the built
 * files under it (the build's asset URLs are relative). Paths under no mount are 404.
 */
export async function serveApps(mounts: string[], options: ServeOptions = {}): Promise<AppsServer> {
  for (const mount of mounts) {
    if (!/^\/([\w-]+\/)*$/.test(mount))
      throw new TypeError(`serveApps: mount ${JSON.stringify(mount)} must be like '/' or '/a/'`);
  }
  // APP_DIST lets a run test another build output without touching dist/.
  const root = path.resolve(options.dir ?? process.env.APP_DIST ?? path.join(repoRoot, 'dist'));
  if (!existsSync(path.join(root, 'index.html'))) {
    throw new Error(`${root}/index.html not found: build the app first (npx vite build; npm test does this)`);
  }
  const securityHeaders = await loadSecurityHeaders();
  const configs = new Map<string, Record<string, unknown>>(mounts.map((mount) => [mount, {}]));

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { pathname } = new URL(req.url ?? '/', 'http://localhost');
    const mount = mountOf(mounts, pathname);
    // Computed per response because the CSP's connect-src follows the current config's origins.
    const headers: Record<string, string> = { ...securityHeaders(configs.get(mount) ?? {}, { dev: false }) };
    if (options.workerSrc !== undefined)
      headers['Content-Security-Policy'] = headers['Content-Security-Policy'].replace(
        /worker-src [^;]*/,
        `worker-src ${options.workerSrc}`,
      );
    const send = (status: number, type: string, body: string | Buffer, extra: Record<string, string> = {}) => {
      res.writeHead(status, { ...headers, 'Content-Type': type, 'Content-Length': String(Buffer.byteLength(body)), ...extra });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      return send(405, 'text/plain; charset=utf-8', 'Method Not Allowed\n', { Allow: 'GET, HEAD' });
    }
    if (mount === undefined) return send(404, 'text/plain; charset=utf-8', 'Not Found\n');
    // The path inside the mount, as the build's own files are laid out.
    const inner = '/' + pathname.slice(mount.length);
    if (inner === '/config.json') {
      return send(200, TYPES['.json'], JSON.stringify(configs.get(mount)), { 'Cache-Control': CONFIG_CACHE_CONTROL });
    }
    const file = resolveInside(root, inner === '/' ? '/index.html' : inner);
    const info = file ? await stat(file).catch(() => null) : null;
    if (!file || !info?.isFile()) return send(404, 'text/plain; charset=utf-8', 'Not Found\n');
    const type = TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
    const isIndex = path.basename(file) === 'index.html';
    // Vite's hashed assets never change; everything else is revalidated, index.html never cached.
    const cache = isIndex ? 'no-store' : inner.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache';
    send(200, type, await readFile(file), { 'Cache-Control': cache });
  }

  // Hostile callbacks carry up to 100 KB of error_description in the URL; serve them like a lenient host.
  const server = await serveOnLoopback(handle, { maxHeaderSize: 256 * 1024 });
  const origin = new URL(server.url).origin;
  const apps = Object.fromEntries(
    mounts.map((mount): [string, MountedApp] => [
      mount,
      {
        url: origin + mount,
        setConfig(next) {
          configs.set(mount, { ...next });
        },
      },
    ]),
  );
  return { origin, apps, close: server.close };
}

/** The build at the root of its own origin: the app most tests use. */
export async function serveApp(options: ServeOptions = {}): Promise<AppServer> {
  const { apps, close } = await serveApps(['/'], options);
  return { ...apps['/'], close };
}
